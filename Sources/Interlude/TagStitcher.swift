import Ads
import Foundation
import Playback
import Timing

/// Stitches content with the ads of an ad tag by driving the engine through `AdsLoader` and
/// `AdsManager` exactly as a player app does with IMA (BasicExample's flow):
///
/// one loader → request with the content playhead → `adsLoadedWith` → `initialize` → LOADED →
/// `start` → content plays until the manager's next cue → content pause request → the manager plays
/// the pod into the output → content resume request → … → `contentComplete` → post-rolls →
/// ALL_ADS_COMPLETED. A tag that fails to load leaves the content playing without ads.
@MainActor public final class TagStitcher: AdsManagerDelegate {
    /// Content, output and encoding (its `breaks` are not used: the tag schedules breaks).
    public let output: StitchRequest
    /// The ad tag (URL or path) or, when nil, `adsResponse`.
    public let adTag: String?
    /// A VAST/VMAP document in hand.
    public let adsResponse: String?
    /// SDK settings.
    public let settings = Settings()
    /// Rendering settings passed to `initialize(with:)`.
    public let renderingSettings = AdsRenderingSettings()
    /// Where ad media is cached.
    public var cache = AdMediaCache()
    /// How documents are fetched.
    public var fetcher: any AdDocumentFetcher = URLSessionAdFetcher()
    /// Milliseconds allowed for each VAST request (IMA's `vastLoadTimeout`); nil for the defaults.
    public var vastLoadTimeout: Double?
    /// Called after each output frame with the stream time reached and the expected total.
    public var onProgress: ((MediaTime, MediaTime) -> Void)?

    /// Layers drawn on the output's frames (ad UI, overlays) and mixed into its audio; set before `run()`.
    public var layers: [SurfaceLayer] = []
    /// Whether IMA's default ad UI (attribution, countdown, skip, "Learn more") is drawn on ads
    /// that keep it; on by default, as in IMA. `renderingSettings.uiElements` chooses its parts.
    public var drawsDefaultAdUI = true
    /// The app's own ad UI, drawn on ads whose `isUiDisabled` is true (set
    /// `renderingSettings.disableUi`); nil draws nothing on them.
    public var customAdUI: (any AdUIRenderer)?
    /// Companion slots beside the player (IMA's `CompanionAdSlot`s); what filled them is in the result.
    public var companionSlots: [CompanionAdSlot] = []
    /// Whether ads with companions are shown in an L-shaped layout with them (`--companions lbar`).
    public var companionLBar = false
    /// Native ads shown beside the tag's VAST breaks, each where its position puts it: a full-frame
    /// one as a break of its own (after a VAST break at the same cue; post-rolls after the VAST
    /// post-rolls), an L-bar over the content. Drawn on top of the other layers.
    public var nativeBreaks: [NativeBreak] = []
    /// Whether the tag's native VMAP breaks (`<vmap:CustomAdData templateType="openrtb-native">`)
    /// are the app's (read into `nativeBreaks`): the loader leaves them out of the VAST schedule.
    public var playsNativeVMAPBreaks = false
    /// Where native video assets are fetched.
    public var nativeMediaCache = AdMediaCache()
    /// Seconds to fetch one native video asset.
    public var nativeVideoTimeout: Double = 8
    /// Native ads the app could not load (listed among the result's errors; the stitch goes on).
    public var nativeLoadErrors: [AdError] = []

    private var contentPaused = false
    /// The delegate calls this app received, in order: `contentPause`, `contentResume`,
    /// `event:TYPE`, `error:CODE` (for tests and diagnostics).
    public private(set) var delegateLog: [String] = []
    private var adsManager: AdsManager?

    /// A stitch of `output.content` with the ads of `adTag` (a URL or path) or `adsResponse`.
    public init(output: StitchRequest, adTag: String? = nil, adsResponse: String? = nil) {
        self.output = output
        self.adTag = adTag
        self.adsResponse = adsResponse
    }

    /// Runs the stitch. Throws `StitchFailure` when no output could be made; ad problems are in the result.
    public func run() async throws -> TagStitchResult {
        let started = monotonicSeconds()
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-native-\(UUID().uuidString.prefix(8))")
        if !nativeBreaks.isEmpty { try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true) }
        defer { try? FileManager.default.removeItem(at: work) }
        let (natives, nativeWarnings) = try await NativePreparation.prepare(nativeBreaks, cache: nativeMediaCache,
                                                                            videoTimeout: nativeVideoTimeout, work: work)
        let nativeLayers: [SurfaceLayer] = natives.map(\.layer)
        var adUI: AdUILayer?, adUIWarning: String?
        if drawsDefaultAdUI || customAdUI != nil {
            do {
                adUI = try AdUILayer(defaultUI: drawsDefaultAdUI ? DefaultAdUI(uiElements: renderingSettings.uiElements) : nil, customUI: customAdUI)
            } catch { adUIWarning = "ad UI not drawn: \(error)" }
        }
        let lbar = companionLBar ? try? CompanionLBarLayer() : nil
        let uiLayers = (lbar.map { [$0] } ?? []) + layers + (adUI.map { [$0] } ?? []) + nativeLayers
        let opened = try SpliceSession(request: output, layers: uiLayers)
        var loadError: AdError?
        var manager: AdsManager?
        let display = SessionVideoDisplay(session: opened, threads: output.threads, playsOffMainActor: true)
        let container = AdDisplayContainer(videoDisplay: display)
        container.adUI = adUI
        container.companionSlots = companionSlots
        container.companionLayout = lbar
        adUI?.companionLayout = lbar
        let playhead = EnginePlayhead()
        let loader = AdsLoader(settings: settings)
        loader.fetcher = fetcher
        loader.mediaCache = cache
        loader.mediaPreferences = MediaSelectionPreferences(outputWidth: opened.format.width, outputHeight: opened.format.height)
        if playsNativeVMAPBreaks { loader.appTemplateTypes = [NativeVMAP.templateType] }
        let request: AdsRequest
        if let adTag {
            request = AdsRequest(adTagUrl: adTag, adDisplayContainer: container, contentPlayhead: playhead)
        } else {
            request = AdsRequest(adsResponse: adsResponse ?? "", adDisplayContainer: container, contentPlayhead: playhead)
        }
        request.contentDuration = opened.contentDuration.seconds
        request.vastLoadTimeout = vastLoadTimeout
        do {
            manager = try await loader.loadAds(request).adsManager
        } catch let e as AdError {
            loadError = e
        } catch {
            loadError = AdError(type: .adLoadingFailed, code: 1005, message: "\(error)")
        }
        adsManager = manager
        manager?.delegate = self
        manager?.initialize(with: renderingSettings)
        if let manager { await manager.preloadMedia(cache: cache) }
        // VAST NonLinear overlays draw on content frames. When the output copies content packets
        // (smart rendering), it is reopened with the overlay layer so that smart rendering is
        // decided knowing it (nothing was written yet); otherwise the layer is added (overlays
        // draw on content frames only, the other layers on ad frames only, so the order is moot).
        let session: SpliceSession
        var smartRefusal: String?   // a reason of ours when a double box turned copying off
        if let manager, manager.hasOverlays, let overlays = try? AdOverlayLayer() {
            overlays.expectsOverlays = true
            container.overlays = overlays
            if opened.smartRendering?.used == true {
                opened.abort()
                session = try SpliceSession(request: output, layers: (lbar.map { [$0] } ?? []) + [overlays] + layers + (adUI.map { [$0] } ?? []) + nativeLayers)
                container.videoDisplay = SessionVideoDisplay(session: session, threads: output.threads, playsOffMainActor: true)
            } else {
                opened.layers.add(overlays)
                session = opened
            }
        } else if let reopened = try reopenedForDoubleBoxes(opened, manager: manager, container: container, layers: uiLayers) {
            // a VMAP double box draws on content frames: no copying (DoubleBox+SmartRendering.swift)
            session = reopened
            smartRefusal = DoubleBoxLayer.smartRenderingRefusal
        } else {
            session = opened
        }
        let planEnd = monotonicSeconds()

        // The frame loop runs on a worker thread while this main-actor method awaits it, so the
        // main actor (where the manager, the loader and any app code run) is never held for the
        // length of a stitch. Progress is reported from the worker; the playhead is set on the main
        // actor after each run of content (the manager reads it at the cue).
        let expected = session.contentDuration
        let progress = HandedOver(onProgress)
        let format = session.format
        session.onEvent = { event in
            switch event {
            case let .contentProgress(_, streamTime), let .adProgress(_, _, _, streamTime):
                progress.value?(streamTime + format.frameDuration, expected)
            default: break
            }
        }
        let worker = HandedOver(session)
        // Full-frame native breaks wait in cue order; each plays when content reaches its cue,
        // after the manager's break at that cue (post-rolls after the manager's post-rolls).
        var pendingNatives = natives.filter { $0.mediaPath != nil && $0.cueTime != nil }.sorted { $0.cueTime! < $1.cueTime! }[...]
        let nativePostrolls = natives.filter { $0.mediaPath != nil && $0.cueTime == nil }
        var nativeProblems: [String] = []
        var measurements = AdMeasurements(threads: output.threads)
        func playNative(_ n: PreparedNative, at contentTime: MediaTime) async throws {
            guard let path = n.mediaPath else { return }
            let media: AdMedia
            do { media = try measurements.measure(path) } catch {
                nativeProblems.append("\(n.id): its media \(n.mediaLabel ?? path) cannot play: \(error.message); left out")
                return
            }
            session.beginBreak(id: n.id, contentTime: contentTime)
            n.layer.activate()
            defer { n.layer.deactivate() }
            _ = try await onWorkerThread { try worker.value.playAd(media, position: 1, totalAds: 1) }
            session.endBreak()
        }
        do {
            var position = MediaTime.zero
            while true {
                let vastCue = manager?.nextCuePoint(atOrAfter: position)
                let nativeCue = pendingNatives.first?.cueTime
                let cue = [vastCue, nativeCue].compactMap { $0 }.min()
                if contentPaused { contentPaused = false }   // a manager that never resumed does not hold content
                try await onWorkerThread { try worker.value.playContent(until: cue) }
                // the playhead, as the manager sees it at the cue: the last content frame shown
                playhead.contentTime = session.contentTime
                if let last = session.timelineMap.segments.last { playhead.streamTime = max(.zero, last.streamEnd - format.frameDuration) }
                if session.contentEnded { break }
                guard let cue else { break }
                position = cue
                if vastCue == cue, let manager {
                    // the break plays (ads spliced on a worker too); content goes on once it is over
                    // (or, for a double box, until its ads are queued: they play as content goes on)
                    await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                        var resumed = false
                        let once: @MainActor () -> Void = { if !resumed { resumed = true; c.resume() } }
                        manager.contentContinuesDuringBreak = once
                        manager.reach(cue) { _ in once() }
                    }
                    manager.contentContinuesDuringBreak = nil
                }
                while let n = pendingNatives.first, let t = n.cueTime, t <= cue {
                    pendingNatives.removeFirst()
                    try await playNative(n, at: cue)
                }
            }
            if let manager {
                await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in manager.contentComplete { c.resume() } }
            }
            loader.contentComplete()   // IMA's call; the manager has completed already
            let end = session.timelineMap.segments.last?.contentEnd ?? session.contentTime ?? .zero
            for n in nativePostrolls { try await playNative(n, at: end) }
            for n in pendingNatives {
                nativeProblems.append("\(n.id): its cue \(n.cueTime?.seconds ?? 0) s lies past the content's end; not shown")
            }
            try await onWorkerThread { try worker.value.finish() }
        } catch {
            session.abort()
            if let f = error as? StitchFailure { throw f }
            throw StitchFailure.encodingFailed("stitch failed: \(error)")
        }
        var content = session.content
        content.duration = session.timelineMap.segments.last?.contentEnd ?? session.contentDuration
        let total = monotonicSeconds() - started
        var result = TagStitchResult(
            content: content, output: session.outputSummary, format: session.format, videoFrames: session.videoFrames,
            audioSamples: session.audioSamples, timeline: session.timelineMap, cuePoints: manager?.adCuePoints ?? [],
            breaks: manager?.playedBreaks ?? [], events: manager?.events ?? [],
            errors: (loadError.map { [$0] } ?? []) + nativeLoadErrors + (manager?.errors ?? []), beacons: manager?.beacons ?? [],
            warnings: session.contentWarnings + (adUIWarning.map { [$0] } ?? []) + nativeWarnings + nativeProblems
                + natives.compactMap { $0.shortfall(frameDuration: session.format.frameDuration) },
            timings: StageTimings(plan: planEnd - started, decode: max(0, total - (planEnd - started) - session.encoderWaitSeconds),
                                  encode: session.encodeSeconds, mux: session.muxSeconds, total: total))
        result.smartRendering = session.smartRendering
        if let smartRefusal, result.smartRendering?.used == false { result.smartRendering?.reason = smartRefusal }
        result.companions = companionSlots.flatMap(\.filled).sorted { $0.streamStart < $1.streamStart }
        result.natives = natives.map(\.placement)
        return result
    }

    // MARK: AdsManagerDelegate — what the app does

    public func adsManager(_ adsManager: AdsManager, didReceive event: AdEvent) {
        delegateLog.append("event:\(event.typeString)")
        switch event.type {
        case .loaded where !adsManager.isAdRules: adsManager.start()      // a single ad or pod plays on LOADED
        case .adBreakReady: adsManager.start()                             // this app always wants its breaks
        default: break
        }
    }

    public func adsManager(_ adsManager: AdsManager, didReceive error: AdError) { delegateLog.append("error:\(error.code)") }

    public func adsManagerDidRequestContentPause(_ adsManager: AdsManager) {
        delegateLog.append("contentPause")
        contentPaused = true
    }

    public func adsManagerDidRequestContentResume(_ adsManager: AdsManager) {
        delegateLog.append("contentResume")
        contentPaused = false
    }
}

/// What a tag-driven stitch produced.
public struct TagStitchResult: Sendable {
    /// The content.
    public var content: MediaSummary
    /// The output.
    public var output: MediaSummary
    /// The output format.
    public var format: OutputFormat
    /// Output video frames.
    public var videoFrames: Int64
    /// Output audio samples per channel.
    public var audioSamples: Int64
    /// Content ↔ stream mapping.
    public var timeline: TimelineMap
    /// IMA cue points of the response.
    public var cuePoints: [Double]
    /// Breaks as they played.
    public var breaks: [PlayedBreak]
    /// Events in the order the manager emitted them.
    public var events: [AdEvent]
    /// Errors: a failed load, and every ad error.
    public var errors: [AdError]
    /// Every beacon due, in order.
    public var beacons: [TrackedBeacon]
    /// Content problems that did not stop the stitch.
    public var warnings: [String]
    /// Where the time went.
    public var timings: StageTimings
    /// Whether content was copied (`--smart`), or why not.
    public var smartRendering: SmartRenderingSummary? = nil
    /// Companions shown in the companion slots, by stream time.
    public var companions: [FilledCompanion] = []
    /// Native ads (`TagStitcher.nativeBreaks`) and where they showed, in request order.
    public var natives: [NativePlacement] = []
}
