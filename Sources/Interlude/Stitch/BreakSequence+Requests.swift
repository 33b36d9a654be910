// Requested media breaks (`StitchRequest.breaks`) sequenced.
import Ads
import Playback

extension BreakSequence {
    /// The sequence of requested media breaks: their positions, ids ("" or none: named by the
    /// sequencer) and pod sizes.
    public init(_ breaks: [AdBreakRequest]) {
        self.init(cues: breaks.map(\.position), ids: breaks.map { $0.id.isEmpty ? nil : $0.id }, adCounts: breaks.map(\.ads.count))
    }
}
