// A requested break position (`CuePosition`, the CLI's and `StitchRequest`'s) as the sequencer's cue.
import Ads
import Playback

extension CuePosition {
    /// The same position as the one cue type the sequencer orders (`start` → pre-roll, a time →
    /// mid-roll at that time, `end` → post-roll).
    public var cue: BreakCue {
        switch self {
        case .start: return .preroll
        case .time(let t): return .midroll(t)
        case .end: return .postroll
        }
    }
}

extension BreakSequence {
    /// The sequence of requested media breaks: their positions, ids ("" or none: named by the
    /// sequencer) and pod sizes.
    public init(_ breaks: [AdBreakRequest]) {
        self.init(cues: breaks.map(\.position.cue), ids: breaks.map { $0.id.isEmpty ? nil : $0.id }, adCounts: breaks.map(\.ads.count))
    }
}
