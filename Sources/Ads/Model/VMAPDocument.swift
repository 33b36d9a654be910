// The typed VMAP 1.0 document: ad breaks, their sources and tracking.
import Timing

/// A parsed `<vmap:VMAP>` document.
public struct VMAPDocument: Sendable, Hashable {
    /// `@version` as written.
    public var version: String
    /// Ad breaks in document order.
    public var breaks: [VMAPAdBreak]
    /// Top-level `<Extensions>`.
    public var extensions: [VASTExtension]
    /// Tolerated problems found while parsing.
    public var warnings: [AdIssue]
}

/// Where a break sits in the content (VMAP `timeOffset`).
public enum VMAPTimeOffset: Sendable, Hashable, CustomStringConvertible {
    /// `start`: a pre-roll.
    case start
    /// `end`: a post-roll.
    case end
    /// `HH:MM:SS(.mmm)` from content start (0 is a pre-roll).
    case time(MediaTime)
    /// `n%` of the content duration (0–100), exact.
    case percent(Rational)
    /// `#m`: the m-th ad opportunity (m ≥ 1).
    case position(Int)

    /// Parses `start`, `end`, `HH:MM:SS(.mmm)`, `n%` and `#m`; nil for anything else.
    public init?(parsing text: String) {
        let t = text.trimmingCharacters(in: .whitespacesAndNewlines)
        switch t.lowercased() {
        case "start": self = .start
        case "end": self = .end
        default:
            if t.hasPrefix("#") {
                guard let m = Int(t.dropFirst()), m >= 1 else { return nil }
                self = .position(m)
            } else {
                // A time or a percentage reads as a VAST offset does.
                switch VASTOffset(parsing: t) {
                case .time(let time)?: self = .time(time)
                case .percent(let p)?: self = .percent(p)
                case nil: return nil
                }
            }
        }
    }

    /// `start`, `end`, `00:10:23.125`, `70%` or `#1`.
    public var description: String {
        switch self {
        case .start: return "start"
        case .end: return "end"
        case .time(let t): return t.clockString
        case .percent(let p): return VASTTime.percentString(p) + "%"
        case .position(let m): return "#\(m)"
        }
    }
}

/// `<vmap:AdBreak>`.
public struct VMAPAdBreak: Sendable, Hashable {
    /// Parsed `@timeOffset`; nil when invalid (the break is then reported and skipped).
    public var timeOffset: VMAPTimeOffset?
    /// `@timeOffset` as written.
    public var rawTimeOffset: String
    /// `@breakType` split on commas (`linear`, `nonlinear`, `display`), in preference order.
    public var breakTypes: [String]
    /// `@breakId`.
    public var breakId: String?
    /// `@repeatAfter`.
    public var repeatAfter: MediaTime?
    /// `<AdSource>`; nil when absent (tracking still fires).
    public var adSource: VMAPAdSource?
    /// `<TrackingEvents>`: `breakStart`, `breakEnd`, `error`.
    public var trackingEvents: [TrackingEvent]
    /// `<Extensions>`.
    public var extensions: [VASTExtension]
}

/// `<vmap:AdSource>`: the ads of one break.
public struct VMAPAdSource: Sendable, Hashable {
    /// What the source holds.
    public enum Content: Sendable, Hashable {
        /// `<VASTAdData>` (or `<VASTData>`): an embedded VAST document.
        case vastAdData(VASTDocument)
        /// `<AdTagURI templateType>`: a tag to fetch.
        case adTagURI(URLTemplate, templateType: String?)
        /// `<CustomAdData templateType>`: a non-VAST response.
        case customAdData(String, templateType: String?)
        /// An embedded VAST that could not be used, with the reason.
        case invalid(AdIssue)
        /// An AdSource with none of the above.
        case empty
    }

    /// `@id` (a string: Google uses `preroll-ad-1`).
    public var id: String?
    /// `@allowMultipleAds`; nil when absent (the player's choice: allowed).
    public var allowMultipleAds: Bool?
    /// `@followRedirects`; nil when absent (the player's choice: followed).
    public var followRedirects: Bool?
    /// The content.
    public var content: Content
}
