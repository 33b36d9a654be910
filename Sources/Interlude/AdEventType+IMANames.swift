/// IMA's Swift spellings of the event types (`IMAAdEventType.LOADED`, …), so code written
/// against IMA compiles with only the `IMA` prefix dropped.
extension AdEventType {
    public static let LOADED = AdEventType.loaded
    public static let STARTED = AdEventType.started
    public static let FIRST_QUARTILE = AdEventType.firstQuartile
    public static let MIDPOINT = AdEventType.midpoint
    public static let THIRD_QUARTILE = AdEventType.thirdQuartile
    public static let COMPLETE = AdEventType.complete
    public static let SKIPPED = AdEventType.skipped
    public static let CLICKED = AdEventType.clicked
    public static let TAPPED = AdEventType.tapped
    public static let PAUSE = AdEventType.pause
    public static let RESUME = AdEventType.resume
    public static let AD_BREAK_READY = AdEventType.adBreakReady
    public static let AD_BREAK_FETCH_ERROR = AdEventType.adBreakFetchError
    public static let AD_BREAK_STARTED = AdEventType.adBreakStarted
    public static let AD_BREAK_ENDED = AdEventType.adBreakEnded
    public static let ALL_ADS_COMPLETED = AdEventType.allAdsCompleted
    public static let CUEPOINTS_CHANGED = AdEventType.cuepointsChanged
    public static let LOG = AdEventType.log
}
