// The resolved schedule: breaks at cue points, each with its pod of resolved ads, plus issues.
import Timing

/// Everything a tag resolved to: breaks with cue times and ads, and every error and warning.
public struct AdSchedule: Sendable, Hashable {
    /// Whether the tag was VMAP (ad rules) or a plain VAST response (one pre-roll).
    public enum Kind: String, Sendable, Hashable {
        /// A plain VAST response, reported as one pre-roll break.
        case vast
        /// A VMAP playlist.
        case vmap
    }

    /// VAST or VMAP.
    public var kind: Kind
    /// The tag that was loaded (path or URL), when loaded from one.
    public var tag: String?
    /// Breaks in play order: pre-roll, mid-rolls by time, post-rolls, then breaks that could not be placed.
    public var breaks: [ScheduledBreak]
    /// Errors and warnings, in the order found.
    public var issues: [AdIssue]
    /// Whether the response itself held no ad (`<VAST/>`, only `<Error>`s, an empty body or HTTP
    /// 204): IMA's VAST_EMPTY_RESPONSE, as opposed to ads that failed.
    public var isEmptyResponse = false

    /// Makes a schedule.
    public init(kind: Kind, tag: String?, breaks: [ScheduledBreak], issues: [AdIssue]) {
        self.kind = kind
        self.tag = tag
        self.breaks = breaks
        self.issues = issues
    }

    /// Issues that cost an ad or a response.
    public var errors: [AdIssue] { issues.filter { $0.severity == .error } }
    /// Tolerated problems.
    public var warnings: [AdIssue] { issues.filter { $0.severity == .warning } }

    /// Cue points as IMA reports them: 0 for a pre-roll, seconds for mid-rolls, -1 for a post-roll; distinct, in order.
    public var cuePoints: [Double] {
        var seen: [Double] = []
        for b in breaks {
            guard let c = b.cueSeconds, !seen.contains(c) else { continue }
            seen.append(c)
        }
        return seen
    }

    /// All ads of all breaks, in play order.
    public var allAds: [ResolvedAd] { breaks.flatMap(\.ads) }
}

/// One ad break: where it plays, its pod, its buffet and its VMAP tracking.
public struct ScheduledBreak: Sendable, Hashable {
    /// VMAP `breakId` (`preroll` for a plain VAST response); nil when the VMAP gave none.
    public var id: String?
    /// The offset as written in the VMAP (`.start` for plain VAST).
    public var timeOffset: VMAPTimeOffset
    /// Where it sits (a pre-roll, a mid-roll at a content time, a post-roll: `end` or 100%); nil
    /// when it could not be placed.
    public var cue: BreakCue?
    /// IMA's pod index: 0 pre-roll, 1…N mid-rolls, -1 post-roll; nil when not placed.
    public var podIndex: Int?
    /// VMAP `breakType`s.
    public var breakTypes: [String]
    /// The pod to play, in order (positions 1…n).
    public var ads: [ResolvedAd]
    /// Stand-alone ads left over for substitution (the buffet).
    public var standaloneAds: [ResolvedAd]
    /// VMAP break tracking: `breakStart`, `breakEnd`, `error`.
    public var trackingEvents: [TrackingEvent]
    /// VMAP `AdSource@id`.
    public var adSourceId: String?
    /// VMAP `AdTagURI`, resolved, when the break's ads came from one.
    public var adTagURI: String?
    /// VMAP AdBreak extensions.
    public var extensions: [VASTExtension]

    /// The cue's content time: 0 for a pre-roll; nil for a post-roll or a break not placed.
    public var cueTime: MediaTime? { cue?.contentTime }

    /// Cue seconds as IMA reports them: 0 pre-roll, seconds mid-roll, -1 post-roll; nil when not placed.
    public var cueSeconds: Double? { cue?.seconds }

    /// The pod a player plays: its ads, or, when it has none, its first stand-alone ad.
    public var pod: [ResolvedAd] { ads.isEmpty ? Array(standaloneAds.prefix(1)) : ads }
    /// The stand-alone ads kept as fallbacks for pod ads whose media fails (those not in `pod`).
    public var spares: [ResolvedAd] { ads.isEmpty ? Array(standaloneAds.dropFirst()) : standaloneAds }

    /// The URLs of one VMAP break event (`breakStart`, `breakEnd`, `error`).
    public func trackingURLs(for event: String) -> [URLTemplate] {
        trackingEvents.filter { $0.event == event }.map(\.url)
    }
}
