// The values a beacon's macros are filled from: one value per request, built by the caller.
import Foundation
import Timing

/// `[SERVERSIDE]` values.
public enum ServerSideMode: Int, Sendable, Hashable {
    /// The client fires the request itself.
    case client = 0
    /// A server fires on the client's behalf, as the client asked.
    case serverOnBehalfOfClient = 1
    /// A server fires on its own decision.
    case serverOwnDecision = 2
}

/// A value for a macro the context has no named field for.
public enum MacroValue: Sendable, Hashable {
    /// A single value, percent-encoded on substitution.
    case string(String)
    /// An `Array<T>` macro: each element encoded, joined with an unencoded comma.
    case list([String])
}

/// Everything `MacroExpander` may substitute. Pure data: build one per beacon request.
///
/// Unset optional fields expand to `-1` (unknown) for IAB macros; names in `withheld` expand to `-2`.
/// `timestamp` and `cacheBusting` are fixed at construction, so expansion is a pure function and
/// tests can pin them.
public struct MacroContext: Sendable, Hashable {
    /// `[ERRORCODE]` (and VMAP's `[ERROR_CODE]`).
    public var errorCode: VASTErrorCode?
    /// VMAP `[ERROR_MESSAGE]`.
    public var errorMessage: String?
    /// `[CONTENTPLAYHEAD]` and `[MEDIAPLAYHEAD]`: content time.
    public var contentPlayhead: MediaTime?
    /// `[ADPLAYHEAD]`: time within the ad.
    public var adPlayhead: MediaTime?
    /// `[ASSETURI]`: the media file being played.
    public var assetURI: String?
    /// `[BREAKPOSITION]`: the break's place (1 pre-roll, 2 mid-roll, 3 post-roll).
    public var breakCue: BreakCue?
    /// `[ADCOUNT]`.
    public var adCount: Int?
    /// `[PODSEQUENCE]`.
    public var podSequence: Int?
    /// `[ADSERVINGID]`.
    public var adServingId: String?
    /// `[UNIVERSALADID]`: `registry id` pairs.
    public var universalAdIds: [UniversalAdId]
    /// `[REASON]` (verificationNotExecuted: 1 rejected, 2 not supported, 3 load error).
    public var reason: Int?
    /// `[LIMITADTRACKING]`.
    public var limitAdTracking: Bool?
    /// `[SERVERSIDE]`.
    public var serverSide: ServerSideMode?
    /// `[TIMESTAMP]`: when the request is made.
    public var timestamp: Date
    /// Zone offset used to format `[TIMESTAMP]`, in seconds east of UTC.
    public var timeZoneOffsetSeconds: Int
    /// `[CACHEBUSTING]` (also `[RANDOM]`, `[random]`, `[timestamp]`): 0…99 999 999, zero-padded to 8 digits.
    public var cacheBusting: Int
    /// Values for any other macro, by name without brackets (IAB names or custom ones).
    public var values: [String: MacroValue]
    /// Macro names withheld for policy reasons: they expand to `-2`.
    public var withheld: Set<String>

    /// A context; everything optional defaults to unknown, `timestamp` to now, `cacheBusting` to random.
    public init(errorCode: VASTErrorCode? = nil, errorMessage: String? = nil, contentPlayhead: MediaTime? = nil,
                adPlayhead: MediaTime? = nil, assetURI: String? = nil, breakCue: BreakCue? = nil,
                adCount: Int? = nil, podSequence: Int? = nil, adServingId: String? = nil,
                universalAdIds: [UniversalAdId] = [], reason: Int? = nil, limitAdTracking: Bool? = nil,
                serverSide: ServerSideMode? = nil, timestamp: Date = Date(), timeZoneOffsetSeconds: Int = 0,
                cacheBusting: Int = Int.random(in: 0..<100_000_000), values: [String: MacroValue] = [:],
                withheld: Set<String> = []) {
        self.errorCode = errorCode
        self.errorMessage = errorMessage
        self.contentPlayhead = contentPlayhead
        self.adPlayhead = adPlayhead
        self.assetURI = assetURI
        self.breakCue = breakCue
        self.adCount = adCount
        self.podSequence = podSequence
        self.adServingId = adServingId
        self.universalAdIds = universalAdIds
        self.reason = reason
        self.limitAdTracking = limitAdTracking
        self.serverSide = serverSide
        self.timestamp = timestamp
        self.timeZoneOffsetSeconds = timeZoneOffsetSeconds
        self.cacheBusting = cacheBusting
        self.values = values
        self.withheld = withheld
    }
}
