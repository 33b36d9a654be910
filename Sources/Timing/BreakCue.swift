// Where an ad break sits: the one cue type of requests, schedules and the sequencer.

/// Where an ad break sits on the content's timeline: the one cue type of every schedule (media
/// breaks, an ad response, native breaks, a viewer's session).
public enum BreakCue: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Before the first content frame.
    case preroll
    /// At a content time (> 0): content pauses before its first frame at or after it.
    case midroll(MediaTime)
    /// After the last content frame.
    case postroll

    /// A cue at content time `t`: a pre-roll at 0 (or before), else a mid-roll.
    public init(contentTime t: MediaTime) {
        self = t > .zero ? .midroll(t) : .preroll
    }

    /// IMA's cue point seconds: 0, the time, or -1 (for reports and `adCuePoints` only; never
    /// used to order or place a break).
    public var seconds: Double {
        switch self { case .preroll: return 0; case .midroll(let t): return t.seconds; case .postroll: return -1 }
    }

    /// The content time of the cue: 0 for a pre-roll, the time for a mid-roll, nil for a post-roll.
    public var contentTime: MediaTime? {
        switch self { case .preroll: return .zero; case .midroll(let t): return t; case .postroll: return nil }
    }

    /// `start`, `end` or seconds (`3.5s`).
    public var description: String {
        switch self { case .preroll: return "start"; case .midroll(let t): return "\(t.seconds)s"; case .postroll: return "end" }
    }

    /// Play-order rank: 0 pre-roll, 1 mid-roll, 2 post-roll.
    package var rank: Int {
        switch self { case .preroll: return 0; case .midroll: return 1; case .postroll: return 2 }
    }

    /// Whether `self` plays before `other` (equal cues are neither).
    package func playsBefore(_ other: BreakCue) -> Bool {
        if rank != other.rank { return rank < other.rank }
        if case .midroll(let a) = self, case .midroll(let b) = other { return a < b }
        return false
    }
}

extension BreakCue {
    /// Parses `start`, `end` (or `pre`, `preroll`, `post`, `postroll`), seconds (`20.5`) or
    /// `HH:MM:SS.mmm`, exactly (never through Double); 0 is a pre-roll; nil when malformed.
    public init?(parsing text: String) {
        switch text.lowercased() {
        case "start", "pre", "preroll": self = .preroll
        case "end", "post", "postroll": self = .postroll
        default:
            guard let t = MediaTime(clock: text), t >= .zero else { return nil }
            self = t == .zero ? .preroll : .midroll(t)
        }
    }

    /// The pre-roll, as a request spells it (`--ad-break start=…`).
    public static var start: BreakCue { .preroll }
    /// The post-roll, as a request spells it (`--ad-break end=…`).
    public static var end: BreakCue { .postroll }
    /// A mid-roll at `t`, as a request spells it (`--ad-break 3.5=…`).
    public static func time(_ t: MediaTime) -> BreakCue { .midroll(t) }
}
