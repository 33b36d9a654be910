// Native ads in a stitch: full-frame native breaks and L-bars, drawn by their templates, impressions at first frame.
import Ads
import Foundation
import Playback
import Threads
import Timing

/// A native ad placed in a stitch.
package struct NativeBreak: Sendable {
    /// How the ad takes the screen.
    package enum Layout: String, Sendable, CaseIterable {
        /// A break of its own: the layout fills the frame (the video asset, when there is one, plays
        /// as the break's media and shows in the layout's media window).
        case fullFrame = "full"
        /// The layout around the content, which keeps playing scaled into the layout's content window.
        case lBar = "lbar"
    }
    /// Where (content time; an L-bar starts at the first content frame at or after it).
    package var position: BreakCue
    /// The ad.
    package var ad: CustomNativeAd
    /// Full frame or L-bar.
    package var layout: Layout
    /// The template drawn (for an L-bar, one with a `content` view).
    package var template: NativeTemplate

    /// A native break.
    package init(position: BreakCue, ad: CustomNativeAd, layout: Layout, template: NativeTemplate) {
        self.position = position; self.ad = ad; self.layout = layout; self.template = template
    }
}

/// Where a native ad showed in the output, for the report.
package struct NativePlacement: Sendable, Equatable, Codable {
    /// `native-1`, … in request order.
    package var id: String
    /// `full` or `lbar`.
    package var layout: String
    /// The ad's format.
    package var formatID: String
    /// Stream seconds of the first frame drawn (nil when it never showed).
    package var firstFrame: Double?
    /// Stream seconds of the last frame drawn (nil when it never showed).
    package var lastFrame: Double?
    /// Frames drawn.
    package var frames: Int
    /// Stream seconds at which the impression was recorded (the first frame shown).
    package var impressionStreamTime: Double?
    /// The impression pixels due then (sent only when the ad's `firesTrackersLive`; the CLI's stitch records them).
    package var impressionURLs: [String]
    /// The media the break played (full frame): the video asset, or `generated still` for an image format.
    package var media: String?
}

/// Runs a stitch with native ads: full-frame native ads join the request's breaks (their media is
/// the ad's video, fetched like VAST ad media, or a still of the template's declared duration)
/// with the layout drawn over their frames: in the pod of a request break at the same cue (after
/// its ads), else as a break of their own. L-bars are layers over a range of content.
package final class NativeStitcher {
    /// The stitch without the native ads.
    package let request: StitchRequest
    /// The native ads.
    package let natives: [NativeBreak]
    /// Other layers (ad UI, …), drawn under the native layouts.
    package let extraLayers: [SurfaceLayer]
    /// Where network video assets are fetched.
    package var mediaCache = AdMediaCache()
    /// Seconds to fetch one video asset.
    package var videoTimeout: Double = 8
    /// Called for each event of the frame loop.
    package var onEvent: ((SpliceEvent) -> Void)?
    /// Called with the stream time reached and the expected total.
    package var onProgress: ((MediaTime, MediaTime) -> Void)?
    /// Seconds a native ad without video shows when its template declares no duration.
    package static let defaultDuration = MediaTime(value: 5, timescale: 1)

    /// Prepares a stitch; nothing is opened until `run()`.
    package init(request: StitchRequest, natives: [NativeBreak], extraLayers: [SurfaceLayer] = []) {
        self.request = request
        self.natives = natives
        self.extraLayers = extraLayers
    }

    /// Runs the stitch; throws `StitchFailure` when no output could be made (a native ad whose
    /// video cannot be fetched falls back to its image layout and the report says so).
    @MainActor package func run() async throws -> StitchResult {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-native-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        var request = self.request
        let (prepared, prepWarnings) = try await NativePreparation.prepare(natives, cache: mediaCache, videoTimeout: videoTimeout, work: work)
        var warnings = prepWarnings
        var layers: [SurfaceLayer] = extraLayers
        var byBreak: [String: [String: NativeLayoutLayer]] = [:]   // break id → media path → layer
        for p in prepared {
            layers.append(p.layer)
            guard let path = p.mediaPath else { continue }
            // A break of the request at the same cue takes the native ad into its pod (after its ads);
            // else the native ad is a break of its own.
            let breakId: String
            if let j = BreakSequence(request.breaks).slots(at: p.native.position).first?.source {
                request.breaks[j].ads.append(path)
                breakId = request.breaks[j].id
            } else {
                request.breaks.append(AdBreakRequest(id: p.id, position: p.native.position, ads: [path]))
                breakId = p.id
            }
            byBreak[breakId, default: [:]][path] = p.layer
        }
        let stitcher = Stitcher(request: request, layers: layers)
        // called on the stitch's thread (the player's), never on the main actor
        let activation = NativeActivation(byBreak: byBreak)
        let forward = HandedOver(onEvent)
        stitcher.onEvent = { @Sendable event in
            activation.handle(event)
            forward.value?(event)
        }
        let progress = HandedOver(onProgress)
        stitcher.onProgress = { @Sendable done, total in progress.value?(done, total) }
        // the frame loop's caller blocks until the output is written: a worker, so the main actor stays free
        let job = HandedOver(stitcher)
        var result = try await onOwnThread("native stitch") { try job.value.run() }
        warnings += prepared.compactMap { $0.shortfall(frameDuration: result.format.frameDuration) }
        result.warnings += warnings
        result.natives = prepared.map(\.placement)
        return result
    }
}

/// Turns each native ad's layout on while its media plays in the stitch (the frame loop's
/// events, on the player's thread).
private final class NativeActivation: Sendable {
    private let byBreak: [String: [String: NativeLayoutLayer]]   // break id → media path → layer
    /// The break and the layer showing now (events are few: a lock, not a loop's box).
    private let showing = Locked<(currentBreak: String?, current: NativeLayoutLayer?)>((nil, nil))
    private var currentBreak: String? { get { showing.withLock { $0.currentBreak } } set { showing.withLock { $0.currentBreak = newValue } } }
    private var current: NativeLayoutLayer? { get { showing.withLock { $0.current } } set { showing.withLock { $0.current = newValue } } }

    init(byBreak: [String: [String: NativeLayoutLayer]]) { self.byBreak = byBreak }

    func handle(_ event: SpliceEvent) {
        switch event {
        case .breakStarted(_, let id, _, _): currentBreak = id
        case .adStarted(_, _, _, let media, _):
            current = currentBreak.flatMap { byBreak[$0]?[media.url] }
            current?.activate()
        case .adEnded, .breakEnded:
            current?.deactivate()
            current = nil
        default: break
        }
    }
}
