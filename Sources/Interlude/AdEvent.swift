import Ads
import Timing

/// IMA's ad event types (`IMAAdEventType`). Raw values are IMA's names.
public enum AdEventType: String, Sendable, Equatable, CaseIterable {
    case loaded = "LOADED"
    case started = "STARTED"
    case firstQuartile = "FIRST_QUARTILE"
    case midpoint = "MIDPOINT"
    case thirdQuartile = "THIRD_QUARTILE"
    case complete = "COMPLETE"
    case skipped = "SKIPPED"
    case clicked = "CLICKED"
    case tapped = "TAPPED"
    case pause = "PAUSE"
    case resume = "RESUME"
    case adBreakReady = "AD_BREAK_READY"
    case adBreakFetchError = "AD_BREAK_FETCH_ERROR"
    case adBreakStarted = "AD_BREAK_STARTED"
    case adBreakEnded = "AD_BREAK_ENDED"
    case allAdsCompleted = "ALL_ADS_COMPLETED"
    case cuepointsChanged = "CUEPOINTS_CHANGED"
    case log = "LOG"

    /// IMA's name, e.g. `FIRST_QUARTILE`.
    public var typeString: String { rawValue }
}

/// An ad event, as IMA's `IMAAdEvent`, with the stream and content times at which it happened.
public struct AdEvent: Sendable, Equatable {
    /// What happened.
    public var type: AdEventType
    /// The ad concerned (nil for break-level and manager-level events).
    public var ad: Ad?
    /// Extra data as strings, e.g. `adBreakTime` (seconds; -1 for a post-roll) or a LOG message.
    public var data: [String: String]?
    /// Output stream time of the event.
    public var streamTime: MediaTime
    /// Content time (the playhead) at the event.
    public var contentTime: MediaTime

    /// IMA's name of the type.
    public var typeString: String { type.rawValue }

    /// Extra data as IMA's `adData` dictionary (`[String: Any]`).
    public var adData: [String: Any]? { data.map { $0.mapValues { $0 as Any } } }
}

/// Where an `AdError` arose (IMA's `IMAErrorType`).
public enum AdErrorType: String, Sendable, Equatable {
    case adLoadingFailed
    case adPlayingFailed
    case adUnknownErrorType
}

/// An ad error, as IMA's `IMAAdError`: codes below 1000 are the VAST error codes (what goes into
/// `[ERRORCODE]`), 1000 and up IMA's own (e.g. 1009 empty response, 1005 failed to request ads).
public struct AdError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Loading or playing.
    public var type: AdErrorType
    /// VAST or IMA error number.
    public var code: Int
    /// One line.
    public var message: String
    /// The ad concerned, when there is one.
    public var adId: String?

    /// Makes an error.
    public init(type: AdErrorType, code: Int, message: String, adId: String? = nil) {
        self.type = type; self.code = code; self.message = Printable.escaped(message); self.adId = adId
    }

    /// `error CODE: message`.
    public var description: String { "error \(code): \(message)" }
}
