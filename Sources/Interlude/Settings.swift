import Foundation
import Synchronization

/// SDK-wide settings, as IMA's `IMASettings`: a class, set through a `let` as in IMA's samples,
/// read when an `AdsLoader` is created (the loader keeps its own copy). Any thread may set them.
public final class Settings: Sendable {
    private struct Values {
        var maxRedirects = 4
        var autoPlayAdBreaks = true
        var enableBackgroundPlayback = false
    }
    private let values = Mutex(Values())

    /// Most wrapper redirects followed before error 302 (IMA's default: 4).
    public var maxRedirects: Int {
        get { values.withLock { $0.maxRedirects } }
        set { values.withLock { $0.maxRedirects = newValue } }
    }
    /// Whether ad breaks start by themselves; when false `AD_BREAK_READY` fires and the break
    /// waits for `AdsManager.start()` during that event, or is dropped.
    public var autoPlayAdBreaks: Bool {
        get { values.withLock { $0.autoPlayAdBreaks } }
        set { values.withLock { $0.autoPlayAdBreaks = newValue } }
    }
    /// Whether ads (and content, in apps that follow `BackgroundPlayback`) go on playing while the
    /// app is in the background (needed for picture-in-picture in IMA); when false, entering the
    /// background pauses the ad playing and its beacons until the app returns.
    public var enableBackgroundPlayback: Bool {
        get { values.withLock { $0.enableBackgroundPlayback } }
        set { values.withLock { $0.enableBackgroundPlayback = newValue } }
    }

    /// Default settings.
    public init() {}

    /// An independent copy.
    public func copy() -> Settings {
        let s = Settings()
        let v = values.withLock { $0 }
        s.values.withLock { $0 = v }
        return s
    }
}

/// How ads render, as IMA's `IMAAdsRenderingSettings`: passed to `AdsManager.initialize(with:)`.
/// A class, set through a `let` as in IMA's samples; the manager keeps its own copy. Any thread
/// may set them.
public final class AdsRenderingSettings: Sendable {
    private struct Values {
        var mimeTypes: [String] = []
        var bitrate: Int?
        var loadVideoTimeout: Double = -1
        var playAdsAfterTime: Double = -1
        var disableUi = false
        var uiElements: [UIElementType]?
        var enablePreloading = true
        var linkOpener: (@Sendable (URL) -> Void)?
    }
    private let values = Mutex(Values())

    /// Acceptable media MIME types in preference order; empty means Interlude's defaults
    /// (progressive MP4/H.264 first, then WebM, …).
    public var mimeTypes: [String] {
        get { values.withLock { $0.mimeTypes } }
        set { values.withLock { $0.mimeTypes = newValue } }
    }
    /// Target media bitrate in kbit/s; nil picks the one closest to the output size.
    public var bitrate: Int? {
        get { values.withLock { $0.bitrate } }
        set { values.withLock { $0.bitrate = newValue } }
    }
    /// Seconds allowed to fetch one ad media file before error 402; -1 for the default 8 s.
    public var loadVideoTimeout: Double {
        get { values.withLock { $0.loadVideoTimeout } }
        set { values.withLock { $0.loadVideoTimeout = newValue } }
    }
    /// With ad rules (VMAP), only breaks strictly after this content time play; -1 disables.
    public var playAdsAfterTime: Double {
        get { values.withLock { $0.playAdsAfterTime } }
        set { values.withLock { $0.playAdsAfterTime = newValue } }
    }
    /// Ask for a custom ad UI (effective per ad through `Ad.isUiDisabled`); `clicked()` is for it.
    public var disableUi: Bool {
        get { values.withLock { $0.disableUi } }
        set { values.withLock { $0.disableUi = newValue } }
    }
    /// Which of IMA's default UI elements show (`.adAttribution`, `.countdown`); nil: both.
    /// The skip button and "Learn more" always show, as in IMA.
    public var uiElements: [UIElementType]? {
        get { values.withLock { $0.uiElements } }
        set { values.withLock { $0.uiElements = newValue } }
    }
    /// Fetch every ad's media as soon as the manager is initialised (IMA's default); when false,
    /// each break's media is fetched when the break comes up.
    public var enablePreloading: Bool {
        get { values.withLock { $0.enablePreloading } }
        set { values.withLock { $0.enablePreloading = newValue } }
    }
    /// Opens a click-through URL when the viewer clicks an ad (IMA's link opener), called on the
    /// manager's `delegateQueue` (main by default); nil: the URL is only reported in the CLICKED event.
    public var linkOpener: (@Sendable (URL) -> Void)? {
        get { values.withLock { $0.linkOpener } }
        set { values.withLock { $0.linkOpener = newValue } }
    }

    /// Default rendering settings.
    public init() {}

    /// The media-fetch timeout actually used, in seconds.
    var effectiveLoadVideoTimeout: Double { let t = loadVideoTimeout; return t > 0 ? t : 8 }

    /// An independent copy.
    public func copy() -> AdsRenderingSettings {
        let s = AdsRenderingSettings()
        let v = values.withLock { $0 }
        s.values.withLock { $0 = v }
        return s
    }
}
