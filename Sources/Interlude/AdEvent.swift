import Ads
import Timing

/// IMA's ad event types (`IMAAdEventType`). Raw values are IMA's names.
public enum AdEventType: String, Sendable, Equatable, CaseIterable {
    /// The ad is loaded: its media is measured and it can start.
    case loaded = "LOADED"
    /// The ad started: its first frame is shown (impressions and `start` fire).
    case started = "STARTED"
    /// The ad reached a quarter of its duration.
    case firstQuartile = "FIRST_QUARTILE"
    /// The ad reached half of its duration.
    case midpoint = "MIDPOINT"
    /// The ad reached three quarters of its duration.
    case thirdQuartile = "THIRD_QUARTILE"
    /// The ad played to its end.
    case complete = "COMPLETE"
    /// The viewer skipped the ad (`AdsManager.skip()` past its offset).
    case skipped = "SKIPPED"
    /// The ad was clicked: its click-through URL was handed to the link opener.
    case clicked = "CLICKED"
    /// The viewer tapped the ad away from its click-through (a paused ad resumes).
    case tapped = "TAPPED"
    /// The ad was paused (`AdsManager.pause()`).
    case pause = "PAUSE"
    /// The ad was resumed (`AdsManager.resume()`).
    case resume = "RESUME"
    /// A break is due and waits for `AdsManager.start()` (`Settings.autoPlayAdBreaks` false).
    case adBreakReady = "AD_BREAK_READY"
    /// A break of the ad rules could not be fetched; content resumes at its cue.
    case adBreakFetchError = "AD_BREAK_FETCH_ERROR"
    /// A break started (before its first ad).
    case adBreakStarted = "AD_BREAK_STARTED"
    /// A break ended (after its last ad).
    case adBreakEnded = "AD_BREAK_ENDED"
    /// Every break of the response has played or failed: nothing more will play.
    case allAdsCompleted = "ALL_ADS_COMPLETED"
    /// The ad rules' cue points are known (`AdsManager.adCuePoints`).
    case cuepointsChanged = "CUEPOINTS_CHANGED"
    /// A non-fatal error the rest of the response survives, with its code in the event data.
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
    /// The ad response could not be loaded or had nothing to play.
    case adLoadingFailed
    /// An ad or break failed while playing.
    case adPlayingFailed
    /// Neither loading nor playing.
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
