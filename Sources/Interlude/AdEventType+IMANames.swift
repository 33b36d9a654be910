/// IMA's Swift spellings of the event types (`IMAAdEventType.LOADED`, …), so code written
/// against IMA compiles with only the `IMA` prefix dropped.
extension AdEventType {
    /// IMA's `LOADED`: the ad is loaded and ready to start.
    public static let LOADED = AdEventType.loaded
    /// IMA's `STARTED`: the ad started playing (its first frame).
    public static let STARTED = AdEventType.started
    /// IMA's `FIRST_QUARTILE`: the ad reached a quarter of its duration.
    public static let FIRST_QUARTILE = AdEventType.firstQuartile
    /// IMA's `MIDPOINT`: the ad reached half of its duration.
    public static let MIDPOINT = AdEventType.midpoint
    /// IMA's `THIRD_QUARTILE`: the ad reached three quarters of its duration.
    public static let THIRD_QUARTILE = AdEventType.thirdQuartile
    /// IMA's `COMPLETE`: the ad played to its end.
    public static let COMPLETE = AdEventType.complete
    /// IMA's `SKIPPED`: the viewer skipped the ad.
    public static let SKIPPED = AdEventType.skipped
    /// IMA's `CLICKED`: the ad was clicked (its click-through).
    public static let CLICKED = AdEventType.clicked
    /// IMA's `TAPPED`: the viewer tapped the ad outside its click-through.
    public static let TAPPED = AdEventType.tapped
    /// IMA's `PAUSE`: the ad was paused.
    public static let PAUSE = AdEventType.pause
    /// IMA's `RESUME`: the ad was resumed.
    public static let RESUME = AdEventType.resume
    /// IMA's `AD_BREAK_READY`: a break is ready and waits for `start()` (auto-play off).
    public static let AD_BREAK_READY = AdEventType.adBreakReady
    /// IMA's `AD_BREAK_FETCH_ERROR`: a break could not be fetched.
    public static let AD_BREAK_FETCH_ERROR = AdEventType.adBreakFetchError
    /// IMA's `AD_BREAK_STARTED`: a break started.
    public static let AD_BREAK_STARTED = AdEventType.adBreakStarted
    /// IMA's `AD_BREAK_ENDED`: a break ended.
    public static let AD_BREAK_ENDED = AdEventType.adBreakEnded
    /// IMA's `ALL_ADS_COMPLETED`: every ad of the response has played.
    public static let ALL_ADS_COMPLETED = AdEventType.allAdsCompleted
    /// IMA's `CUEPOINTS_CHANGED`: the ad rules' cue points are known.
    public static let CUEPOINTS_CHANGED = AdEventType.cuepointsChanged
    /// IMA's `LOG`: a non-fatal error, with its code in the event data.
    public static let LOG = AdEventType.log
}
