import Foundation

/// SDK-wide settings, as IMA's `IMASettings`: a class, set through a `let` as in IMA's samples,
/// read when an `AdsLoader` is created (the loader keeps its own copy). Any thread may set them.
public final class Settings: Sendable {
    /// Most wrapper redirects followed before error 302 (IMA's default: 4).
    public var maxRedirects: Int { get { _maxRedirects.value } set { _maxRedirects.value = newValue } }
    private let _maxRedirects = Guarded<Int>(4)
    /// Whether ad breaks start by themselves; when false `AD_BREAK_READY` fires and the break
    /// waits for `AdsManager.start()` during that event, or is dropped.
    public var autoPlayAdBreaks: Bool { get { _autoPlayAdBreaks.value } set { _autoPlayAdBreaks.value = newValue } }
    private let _autoPlayAdBreaks = Guarded<Bool>(true)
    /// Whether ads (and content, in apps that follow `BackgroundPlayback`) go on playing while the
    /// app is in the background (needed for picture-in-picture in IMA); when false, entering the
    /// background pauses the ad playing and its beacons until the app returns.
    public var enableBackgroundPlayback: Bool { get { _enableBackgroundPlayback.value } set { _enableBackgroundPlayback.value = newValue } }
    private let _enableBackgroundPlayback = Guarded<Bool>(false)

    /// Default settings.
    public init() {}

    /// An independent copy.
    package func copy() -> Settings {
        let s = Settings()
        s.maxRedirects = maxRedirects
        s.autoPlayAdBreaks = autoPlayAdBreaks
        s.enableBackgroundPlayback = enableBackgroundPlayback
        return s
    }
}

/// How ads render, as IMA's `IMAAdsRenderingSettings`: passed to `AdsManager.initialize(with:)`.
/// A class, set through a `let` as in IMA's samples; the manager keeps its own copy. Any thread
/// may set them.
public final class AdsRenderingSettings: Sendable {
    /// Acceptable media MIME types in preference order; empty means Interlude's defaults
    /// (progressive MP4/H.264 first, then WebM, …).
    public var mimeTypes: [String] { get { _mimeTypes.value } set { _mimeTypes.value = newValue } }
    private let _mimeTypes = Guarded<[String]>([])
    /// Target media bitrate in kbit/s; nil picks the one closest to the output size.
    public var bitrate: Int? { get { _bitrate.value } set { _bitrate.value = newValue } }
    private let _bitrate = Guarded<Int?>(nil)
    /// Seconds allowed to fetch one ad media file before error 402; -1 for the default 8 s.
    public var loadVideoTimeout: Double { get { _loadVideoTimeout.value } set { _loadVideoTimeout.value = newValue } }
    private let _loadVideoTimeout = Guarded<Double>(-1)
    /// With ad rules (VMAP), only breaks strictly after this content time play; -1 disables.
    public var playAdsAfterTime: Double { get { _playAdsAfterTime.value } set { _playAdsAfterTime.value = newValue } }
    private let _playAdsAfterTime = Guarded<Double>(-1)
    /// Ask for a custom ad UI (effective per ad through `Ad.isUiDisabled`); `clicked()` is for it.
    public var disableUi: Bool { get { _disableUi.value } set { _disableUi.value = newValue } }
    private let _disableUi = Guarded<Bool>(false)
    /// Which of IMA's default UI elements show (`.adAttribution`, `.countdown`); nil: both.
    /// The skip button and "Learn more" always show, as in IMA.
    public var uiElements: [UIElementType]? { get { _uiElements.value } set { _uiElements.value = newValue } }
    private let _uiElements = Guarded<[UIElementType]?>(nil)
    /// Fetch every ad's media as soon as the manager is initialised (IMA's default); when false,
    /// each break's media is fetched when the break comes up.
    public var enablePreloading: Bool { get { _enablePreloading.value } set { _enablePreloading.value = newValue } }
    private let _enablePreloading = Guarded<Bool>(true)
    /// Opens a click-through URL when the viewer clicks an ad (IMA's link opener), called on the
    /// manager's `delegateQueue` (main by default); nil: the URL is only reported in the CLICKED event.
    public var linkOpener: (@Sendable (URL) -> Void)? { get { _linkOpener.value } set { _linkOpener.value = newValue } }
    private let _linkOpener = Guarded<(@Sendable (URL) -> Void)?>(nil)

    /// Default rendering settings.
    public init() {}

    /// The media-fetch timeout actually used, in seconds.
    var effectiveLoadVideoTimeout: Double { let t = loadVideoTimeout; return t > 0 ? t : 8 }

    /// An independent copy.
    package func copy() -> AdsRenderingSettings {
        let s = AdsRenderingSettings()
        s.mimeTypes = mimeTypes; s.bitrate = bitrate; s.loadVideoTimeout = loadVideoTimeout
        s.playAdsAfterTime = playAdsAfterTime; s.disableUi = disableUi; s.enablePreloading = enablePreloading
        s.linkOpener = linkOpener
        s.uiElements = uiElements
        return s
    }
}
