// The one stitch entry point: the request (content, output, encoder), where the breaks come from,
// and the options; the stitchers behind it (Stitcher, TagStitcher, NativeStitcher) are the
// package's.
import Ads
import Foundation
import Playback
import Threads
import Timing

/// Where the ad breaks of a stitch come from.
public enum StitchBreaks: Sendable {
    /// Breaks the app schedules itself: ad media files at cue times, each break's ads played in
    /// order as a pod. They replace the request's own `breaks`.
    case media([AdBreakRequest])
    /// A VAST or VMAP ad tag (an http(s) URL, a `file://` URL or a path), played through
    /// ``AdsLoader`` and ``AdsManager`` as a player app plays it (the request's `breaks` are not played).
    case adTag(String)
    /// A VAST or VMAP document in hand, played as an ad tag is.
    case adsResponse(String)
}

/// How a stitch plays its breaks, beside its request and their source. Every option has IMA's
/// default; those of the ads API (settings, media cache, VAST timeout, ad UI, companions) apply
/// to an ad tag or response, and layers and progress to every stitch.
public struct StitchOptions {
    /// The SDK settings of the stitch's ``AdsLoader`` (`maxRedirects`, …).
    public var settings = Settings()
    /// The rendering settings its ``AdsManager`` is initialised with (`loadVideoTimeout`,
    /// `playAdsAfterTime`, `uiElements`, `disableUi`, …).
    public var renderingSettings = AdsRenderingSettings()
    /// Where ad media named by the tag is fetched and kept.
    public var cache = AdMediaCache()
    /// Milliseconds allowed for each VAST request (IMA's `vastLoadTimeout`); nil for the defaults.
    public var vastLoadTimeout: Double?
    /// Called after each output frame with the stream time reached and the expected total (on the
    /// stitch's own thread).
    public var onProgress: (@Sendable (MediaTime, MediaTime) -> Void)?
    /// Layers drawn on the output's frames (ad UI, overlays) and mixed into its audio.
    public var layers: [SurfaceLayer] = []
    /// Whether IMA's default ad UI (attribution, countdown, skip, "Learn more") is drawn on ads
    /// that keep it; on by default, as in IMA. `renderingSettings.uiElements` chooses its parts.
    public var drawsDefaultAdUI = true
    /// The app's own ad UI, drawn on ads whose `isUiDisabled` is true (set
    /// `renderingSettings.disableUi`); nil draws nothing on them.
    public var customAdUI: (any AdUIRenderer)?
    /// Companion slots beside the player (IMA's `CompanionAdSlot`s); what filled them is in the result.
    public var companionSlots: [CompanionAdSlot] = []

    /// Called for each event of the frame loop, on the stitching thread (media breaks, native ads alone).
    package var onEvent: (@Sendable (SpliceEvent) -> Void)?
    /// Whether ads with companions are shown in an L-shaped layout with them (`--companions lbar`).
    package var companionLBar = false
    /// How the tag's documents are fetched.
    package var fetcher: any AdDocumentFetcher = HTTPAdFetcher()
    /// Native ads placed beside the breaks: with media breaks they join them (`NativeStitcher`),
    /// with an ad tag or response they play beside its VAST breaks (`TagStitcher.nativeBreaks`).
    package var nativeBreaks: [NativeBreak] = []
    /// Whether the tag's native VMAP breaks are the app's (`TagStitcher.playsNativeVMAPBreaks`).
    package var playsNativeVMAPBreaks = false
    /// Native ads the app could not load (listed among a tag stitch's errors).
    package var nativeLoadErrors: [AdError] = []
    /// Where native video assets are fetched.
    package var nativeMediaCache = AdMediaCache()
    /// Seconds to fetch one native video asset.
    package var nativeVideoTimeout: Double = 8

    /// IMA's defaults.
    public init() {}
}

/// Stitches `request`'s content with the ads of `breaks` into its output: the one way to stitch
/// from code. Media breaks play as pods at their cues; an ad tag or response plays through
/// ``AdsLoader`` and ``AdsManager`` as a player app plays it, reporting the manager's events and
/// the beacons a player must fire.
///
/// The stitch runs on threads of its own and needs no particular actor or thread; several may run
/// at once. Throws `StitchFailure` when no output could be made; ad problems (a tag that does not
/// load, media that cannot be played) are in the result.
///
/// ```swift
/// let result = try await stitch(request, breaks: .adTag("https://ads.example/vmap.xml"))
/// print(result.cuePoints)
/// ```
public func stitch(_ request: StitchRequest, breaks: StitchBreaks, options: StitchOptions = StitchOptions()) async throws -> StitchResult {
    switch breaks {
    case .media(let list):
        var request = request
        request.breaks = list
        if !options.nativeBreaks.isEmpty {
            let stitcher = NativeStitcher(request: request, natives: options.nativeBreaks, extraLayers: options.layers)
            stitcher.mediaCache = options.nativeMediaCache
            stitcher.videoTimeout = options.nativeVideoTimeout
            stitcher.onEvent = options.onEvent
            stitcher.onProgress = options.onProgress
            return try await runOnMainActor(HandedOver(stitcher))
        }
        let stitcher = Stitcher(request: request, layers: options.layers)
        stitcher.onEvent = options.onEvent
        stitcher.onProgress = options.onProgress
        let handed = HandedOver(stitcher)
        // the frame loop blocks its caller until the output is written: a thread of its own
        return try await onOwnThread("stitch") { try handed.value.run() }
    case .adTag(let tag):
        return try await tagStitcher(request, adTag: tag, adsResponse: nil, options).run()
    case .adsResponse(let response):
        return try await tagStitcher(request, adTag: nil, adsResponse: response, options).run()
    }
}

/// Runs a native stitch, whose templates are laid out on the main actor.
@MainActor private func runOnMainActor(_ stitcher: HandedOver<NativeStitcher>) async throws -> StitchResult {
    try await stitcher.value.run()
}

/// The ads-API app of a stitch, configured from `options`.
private func tagStitcher(_ request: StitchRequest, adTag: String?, adsResponse: String?, _ options: StitchOptions) -> TagStitcher {
    let stitcher = TagStitcher(output: request, adTag: adTag, adsResponse: adsResponse)
    stitcher.settings = options.settings
    stitcher.renderingSettings = options.renderingSettings
    stitcher.cache = options.cache
    stitcher.fetcher = options.fetcher
    stitcher.vastLoadTimeout = options.vastLoadTimeout
    stitcher.onProgress = options.onProgress
    stitcher.layers = options.layers
    stitcher.drawsDefaultAdUI = options.drawsDefaultAdUI
    stitcher.customAdUI = options.customAdUI
    stitcher.companionSlots = options.companionSlots
    stitcher.companionLBar = options.companionLBar
    stitcher.nativeBreaks = options.nativeBreaks
    stitcher.playsNativeVMAPBreaks = options.playsNativeVMAPBreaks
    stitcher.nativeLoadErrors = options.nativeLoadErrors
    stitcher.nativeMediaCache = options.nativeMediaCache
    stitcher.nativeVideoTimeout = options.nativeVideoTimeout
    return stitcher
}
