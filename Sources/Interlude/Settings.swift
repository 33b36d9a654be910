import Foundation

/// SDK-wide settings, as IMA's `IMASettings`: read when an `AdsLoader` is created.
public struct Settings: Sendable, Equatable {
    /// Most wrapper redirects followed before error 302 (IMA's default: 4).
    public var maxRedirects: Int = 4
    /// BCP-47 language of any UI text.
    public var language: String = "en"
    /// Publisher Provided ID, for the ad server.
    public var ppid: String?
    /// Whether ad breaks start by themselves; when false `AD_BREAK_READY` fires and the break
    /// waits for `AdsManager.start()` during that event, or is dropped.
    public var autoPlayAdBreaks: Bool = true
    /// Kept for parity with IMA; a server stitch always plays in the background.
    public var enableBackgroundPlayback: Bool = true
    /// Player name and version reported to ad servers.
    public var playerType: String? = "interlude"
    /// Player version.
    public var playerVersion: String? = "0.1.0"
    /// Session identifier for frequency capping.
    public var sessionID: String?

    /// Default settings.
    public init() {}
}

/// How ads render, as IMA's `IMAAdsRenderingSettings`: passed to `AdsManager.initialize(with:)`.
public struct AdsRenderingSettings: Sendable, Equatable {
    /// Acceptable media MIME types in preference order; empty means Interlude's defaults
    /// (progressive MP4/H.264 first, then WebM, …).
    public var mimeTypes: [String] = []
    /// Target media bitrate in kbit/s; nil picks the one closest to the output size.
    public var bitrate: Int?
    /// Seconds allowed to fetch one ad media file before error 402; -1 for the default 8 s.
    public var loadVideoTimeout: Double = -1
    /// With ad rules (VMAP), only breaks strictly after this content time play; -1 disables.
    public var playAdsAfterTime: Double = -1
    /// Ask for a custom ad UI (effective per ad through `Ad.isUiDisabled`).
    public var disableUi: Bool = false
    /// UI elements to show (`adAttribution`, `countdown`).
    public var uiElements: [UiElement] = [.adAttribution, .countdown]
    /// Fetch ad media ahead of its break.
    public var enablePreloading: Bool = true

    /// IMA's hideable UI elements.
    public enum UiElement: String, Sendable, Equatable { case adAttribution, countdown }

    /// Default rendering settings.
    public init() {}

    /// The media-fetch timeout actually used, in seconds.
    public var effectiveLoadVideoTimeout: Double { loadVideoTimeout > 0 ? loadVideoTimeout : 8 }
}
