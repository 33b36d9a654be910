import Ads
import Foundation
import Playback
import Threads
import Timing

/// Stitches content with the ads of an ad tag by driving the engine through `AdsLoader` and
/// `AdsManager` exactly as a player app does with IMA (BasicExample's flow):
///
/// one loader → request with the content playhead → `adsLoadedWith` → `initialize` → LOADED →
/// `start` → content plays until the manager's next cue → content pause request → the manager plays
/// the pod into the output → content resume request → … → `contentComplete` → post-rolls →
/// ALL_ADS_COMPLETED. A tag that fails to load leaves the content playing without ads.
///
/// What `stitch(_:breaks:options:)` runs for `.adTag` and `.adsResponse` (apps call that).
///
/// The app lives on a serial queue of its own (its delegate calls, its player observers): no
/// part of a stitch needs the main thread, so a process may run several at once while its main
/// thread does other work.
package final class TagStitcher: AdsManagerDelegate, @unchecked Sendable {
    // @unchecked Sendable: the settings below are set before `run()`; while it runs, the stitch's
    // own state (from `player` down) is touched only on `queue`, and after it ends only by `run()`,
    // which the awaited end orders after the queue's last use.
    /// Content, output and encoding (its `breaks` are not used: the tag schedules breaks).
    package let output: StitchRequest
    /// The ad tag (URL or path) or, when nil, `adsResponse`.
    package let adTag: String?
    /// A VAST/VMAP document in hand.
    package let adsResponse: String?
    /// SDK settings.
    package var settings = Settings()
    /// Rendering settings passed to `initialize(with:)`.
    package var renderingSettings = AdsRenderingSettings()
    /// Where ad media is cached.
    package var cache = AdMediaCache()
    /// How documents are fetched.
    package var fetcher: any AdDocumentFetcher = HTTPAdFetcher()
    /// Milliseconds allowed for each VAST request (IMA's `vastLoadTimeout`); nil for the defaults.
    package var vastLoadTimeout: Double?
    /// Called after each output frame with the stream time reached and the expected total.
    package var onProgress: ((MediaTime, MediaTime) -> Void)?

    /// Layers drawn on the output's frames (ad UI, overlays) and mixed into its audio; set before `run()`.
    package var layers: [SurfaceLayer] = []
    /// Whether IMA's default ad UI (attribution, countdown, skip, "Learn more") is drawn on ads
    /// that keep it; on by default, as in IMA. `renderingSettings.uiElements` chooses its parts.
    package var drawsDefaultAdUI = true
    /// The app's own ad UI, drawn on ads whose `isUiDisabled` is true (set
    /// `renderingSettings.disableUi`); nil draws nothing on them.
    package var customAdUI: (any AdUIRenderer)?
    /// Companion slots beside the player (IMA's `CompanionAdSlot`s); what filled them is in the result.
    package var companionSlots: [CompanionAdSlot] = []
    /// Whether ads with companions are shown in an L-shaped layout with them (`--companions lbar`).
    package var companionLBar = false
    /// Native ads shown beside the tag's VAST breaks, each where its position puts it: a full-frame
    /// one as a break of its own (after a VAST break at the same cue; post-rolls after the VAST
    /// post-rolls), an L-bar over the content. Drawn on top of the other layers.
    package var nativeBreaks: [NativeBreak] = []
    /// Whether the tag's native VMAP breaks (`<vmap:CustomAdData templateType="openrtb-native">`)
    /// are the app's (read into `nativeBreaks`): the loader leaves them out of the VAST schedule.
    package var playsNativeVMAPBreaks = false
    /// Where native video assets are fetched.
    package var nativeMediaCache = AdMediaCache()
    /// Seconds to fetch one native video asset.
    package var nativeVideoTimeout: Double = 8
    /// Native ads the app could not load (listed among the result's errors; the stitch goes on).
    package var nativeLoadErrors: [AdError] = []

    /// The delegate calls this app received, in order: `contentPause`, `contentResume`,
    /// `event:TYPE`, `error:CODE` (for tests and diagnostics).
    private(set) var delegateLog: [String] = []
    private var adsManager: AdsManager?
    /// Where this app's delegate calls and player observers run.
    private let queue = DispatchQueue(label: "interlude.tag-stitcher")

    /// A stitch of `output.content` with the ads of `adTag` (a URL or path) or `adsResponse`.
    package init(output: StitchRequest, adTag: String? = nil, adsResponse: String? = nil) {
        self.output = output
        self.adTag = adTag
        self.adsResponse = adsResponse
    }

    /// Runs the stitch. Throws `StitchFailure` when no output could be made; ad problems are in the result.
    ///
    /// It is an app on a stitching `Player` (`Player(stitching:)`, as fast as possible) written
    /// as IMA's guide writes one: `PlayerVideoDisplay` plays the ads through the player,
    /// `PlayerContentPlayhead` lets the manager watch the playhead itself (boundary observers at
    /// its cues), the delegate pauses and resumes content, and `contentComplete()` on the
    /// did-play-to-end notification plays the post-rolls. Only the clock and the output differ
    /// from `interlude play`. The player's frame loop runs on its own thread, the manager decides
    /// on its own queue, and this app answers on `queue`; nothing waits for the main thread
    /// (native breaks are laid out by their templates on the main actor before the stitch starts).
    package func run() async throws -> StitchResult {
        let started = monotonicSeconds()
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-native-\(UUID().uuidString.prefix(8))")
        if !nativeBreaks.isEmpty { try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true) }
        defer { try? FileManager.default.removeItem(at: work) }
        var natives: [PreparedNative] = [], nativeWarnings: [String] = []
        if !nativeBreaks.isEmpty {
            (natives, nativeWarnings) = try await NativePreparation.prepare(nativeBreaks, cache: nativeMediaCache,
                                                                            videoTimeout: nativeVideoTimeout, work: work)
        }
        var adUI: AdUILayer?, adUIWarning: String?
        if drawsDefaultAdUI || customAdUI != nil {
            do {
                adUI = try AdUILayer(defaultUI: drawsDefaultAdUI ? DefaultAdUI(uiElements: renderingSettings.uiElements) : nil, customUI: customAdUI)
            } catch { adUIWarning = "ad UI not drawn: \(error)" }
        }
        let lbar = companionLBar ? try? CompanionLBarLayer() : nil
        let player = try Player(stitching: output)
        queue.sync { self.player = player }
        let container = AdDisplayContainer(videoDisplay: PlayerVideoDisplay(player: player, threads: output.threads))
        container.adUI = adUI
        container.companionSlots = companionSlots
        container.companionLayout = lbar
        adUI?.companionLayout = lbar
        let loader = AdsLoader(settings: settings, delegateQueue: queue)
        loader.fetcher = fetcher
        loader.mediaCache = cache
        let format = player.surface.format
        loader.mediaPreferences = MediaSelectionPreferences(outputWidth: format.width, outputHeight: format.height)
        if playsNativeVMAPBreaks { loader.appTemplateTypes = [NativeVMAP.templateType] }
        let playhead = PlayerContentPlayhead(player: player)
        let request: AdsRequest
        if let adTag {
            request = AdsRequest(adTagUrl: adTag, adDisplayContainer: container, contentPlayhead: playhead)
        } else {
            request = AdsRequest(adsResponse: adsResponse ?? "", adDisplayContainer: container, contentPlayhead: playhead)
        }
        request.contentDuration = player.currentItem?.duration.seconds
        request.vastLoadTimeout = vastLoadTimeout
        let loadError: AdError?
        let manager: AdsManager?
        do {
            manager = try await loader.loadAds(request).adsManager
            loadError = nil
        } catch let e as AdError {
            (manager, loadError) = (nil, e)
        } catch {
            (manager, loadError) = (nil, AdError(type: .adLoadingFailed, code: 1005, message: "\(error)"))
        }
        // The layers, bottom first, before the first frame: VAST NonLinear overlays and double
        // boxes draw on content frames, so the player's output, which opens at the first frame,
        // re-encodes content instead of copying its packets (smart rendering) when they are
        // there (with --smart on a double box plays as a standard break instead).
        var smartRefusal: String?   // a reason of ours when a double box turned copying off
        let surface = player.surface
        if let lbar { surface.addLayer(lbar) }
        if let manager, manager.hasOverlays, let overlays = try? AdOverlayLayer() {
            overlays.expectsOverlays = true
            container.overlays = overlays
            surface.addLayer(overlays)
        } else if let manager, manager.hasDoubleBoxes, player.copiesContent, output.smart == .auto {
            surface.addLayer(DoubleBoxReservation())
            smartRefusal = DoubleBoxLayer.smartRenderingRefusal
        }
        for l in layers { surface.addLayer(l) }
        if let adUI { surface.addLayer(adUI) }
        for n in natives { surface.addLayer(n.layer) }

        let expected = player.currentItem?.duration ?? .zero
        let progress = HandedOver(onProgress)
        player.spliceEvents = { @Sendable event in
            switch event {
            case let .contentProgress(_, streamTime), let .adProgress(_, _, _, streamTime):
                progress.value?(streamTime + format.frameDuration, expected)
            default: break
            }
        }
        // Full-frame native breaks play at their cues, after the manager's break there (post-rolls
        // after the manager's post-rolls); their observers go on after the manager's.
        let nativePostrolls = natives.filter { $0.mediaPath != nil && $0.cueTime == nil }
        queue.sync {
            nativeCues = natives.filter { $0.mediaPath != nil && $0.cueTime != nil }
            adsManager = manager
        }
        manager?.delegate = self
        manager?.initialize(with: renderingSettings)
        if let manager { await manager.preloadMedia(cache: cache) }
        let planEnd = monotonicSeconds()
        queue.sync {
            for cue in BreakSequence(cues: nativeCues.map(\.native.position)).cues.compactMap(\.contentTime) {
                nativeTokens.append(player.addBoundaryTimeObserver(forTimes: [cue], queue: queue) { [weak self] in
                    self?.reachedNativeCue(cue)
                })
            }
        }
        // Ad media is ready: from here on nothing should keep the player waiting long (a manager
        // that never resumes content fails the stitch instead of hanging it).
        player.stallTimeout = output.stallTimeout

        // Content ends → the manager's post-rolls (contentComplete) → the native post-rolls → done;
        // a failed stitch (the player's failed-to-play-to-end notification) → done at once. The
        // player posts both from its thread; this app hears them on its queue.
        let postrolls = nativePostrolls[...]
        var observers: [NSObjectProtocol] = []
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let ending = StitchEnding(c)
            observers.append(NotificationCenter.default.addObserver(forName: .PlayerItemDidPlayToEndTime, object: player.currentItem,
                                                                    queue: nil) { [self] _ in
                queue.async { [self] in
                    let finish: @Sendable () -> Void = { [self] in
                        queue.async { [self] in
                            loader.contentComplete()   // IMA's call; the manager has completed already
                            let end = player.timeline.segments.last?.contentEnd ?? player.currentTime()
                            playNatives(postrolls, at: end) { ending.done() }
                        }
                    }
                    if let manager { manager.completeContent(then: finish) } else { finish() }
                }
            })
            observers.append(NotificationCenter.default.addObserver(forName: .PlayerItemFailedToPlayToEndTime, object: player.currentItem,
                                                                    queue: nil) { _ in
                ending.done()   // `finishStitch()` throws the failure
            })
            // Only now may content play: the player posts its end from its own thread, and a
            // notification posted before the observers exist is lost (content without ads ends
            // quickly, copied packet by packet; that lost end was the no-fill path's hang).
            queue.sync {
                let asked = gate == .asked
                gate = .open
                if manager == nil || asked { resumeContent() }
            }
        }
        for o in observers { NotificationCenter.default.removeObserver(o) }
        let (leftOut, failure) = queue.sync { () -> ([String], Error?) in
            for t in nativeTokens { player.removeTimeObserver(t) }
            for n in nativeCues where !playedNatives.contains(n.id) {
                nativeProblems.append("\(n.id): its cue \(n.cueTime?.seconds ?? 0) s lies past the content's end; not shown")
            }
            return (nativeProblems, nativeFailure)
        }
        if let e = failure {
            player.abandon()
            throw StitchFailure.encodingFailed("stitch failed: \(e)")
        }
        let session = try await onOwnThread("stitch flush") { HandedOver(try player.finishStitch()) }.value
        let played = manager?.playedBreaks ?? []
        var result = StitchResult(
            schedule: .adResponse, session: session, breaks: played.map { $0.placement(in: session.timelineMap) },
            warnings: (adUIWarning.map { [$0] } ?? []) + nativeWarnings + leftOut
                + natives.compactMap { $0.shortfall(frameDuration: session.format.frameDuration) },
            started: started, planned: planEnd)
        result.cuePoints = manager?.adCuePoints ?? []
        result.playedBreaks = played
        result.events = manager?.events ?? []
        result.errors = (loadError.map { [$0] } ?? []) + nativeLoadErrors + (manager?.errors ?? [])
        result.beacons = loader.beacons + (manager?.beacons ?? [])
        if let smartRefusal, result.smartRendering?.used == false { result.smartRendering?.reason = smartRefusal }
        result.companions = companionSlots.flatMap(\.filled).sorted { $0.streamStart < $1.streamStart }
        result.natives = natives.map(\.placement)
        return result
    }

    // MARK: content and native breaks on the player

    private var player: Player?
    /// Whether content may play: not before the ad media is fetched and the end observers are in
    /// place (a request to play meanwhile is kept), then whenever the app asks.
    private var gate = ContentGate.closed
    private enum ContentGate { case closed, asked, open }
    private var nativeCues: [PreparedNative] = []
    private var nativeTokens: [Any] = []
    private var nativesDue: [PreparedNative] = []
    private var playedNatives: Set<String> = []
    private var nativeProblems: [String] = []
    private var nativeMeasurements = AdMeasurements(threads: 0)

    /// Content plays on, after any native breaks due at the cue it stands on. Content waits for
    /// the manager's preloading (everything is fetched before the first frame, as a stitch always did).
    private func resumeContent() {
        guard gate == .open else { gate = .asked; return }
        let due = nativesDue[...]
        nativesDue = []
        guard let player else { return }
        playNatives(due, at: player.currentTime()) { [weak self] in self?.player?.play() }
    }

    /// The player holds at a native cue (after the manager's observer at the same cue ran): its
    /// breaks play now, or after the manager's break there when one is playing.
    private func reachedNativeCue(_ cue: MediaTime) {
        guard let player else { return }
        player.pause()
        nativesDue += nativeCues.filter { $0.cueTime == cue }
        let managerBreak = adsManager?.playsBreakPausingContent ?? false
        if !managerBreak { resumeContent() }   // otherwise the manager's content-resume request plays them
    }

    /// Plays full-frame native breaks one after another as breaks of their own (`BreakRunner`),
    /// then `done` (on `queue`).
    private func playNatives(_ items: ArraySlice<PreparedNative>, at contentTime: MediaTime, then done: @escaping @Sendable () -> Void) {
        guard let player else { done(); return }
        playedNatives.formUnion(items.filter { $0.mediaPath != nil }.map(\.id))
        let (breaks, leftOut) = PreparedNative.runnerBreaks(items, &nativeMeasurements)
        nativeProblems += leftOut
        BreakRunner(player: player, queue: queue).play(breaks, at: contentTime) { [self] _, failed in
            if let f = failed.first { nativeFailure = nativeFailure ?? f.error }
            done()
        }
    }

    private var nativeFailure: Error?

    // MARK: AdsManagerDelegate — what the app does (on `queue`)

    /// Logs `event:TYPE`; starts the ads on `LOADED` (a single ad or pod) and on every `AD_BREAK_READY`.
    public func adsManager(_ adsManager: AdsManager, didReceive event: AdEvent) {
        delegateLog.append("event:\(event.typeString)")
        switch event.type {
        case .loaded where !adsManager.isAdRules: adsManager.start()      // a single ad or pod plays on LOADED
        case .adBreakReady: adsManager.start()                             // this app always wants its breaks
        default: break
        }
    }

    /// Logs `error:CODE` and lets content play on (after any native breaks due).
    public func adsManager(_ adsManager: AdsManager, didReceive error: AdError) {
        delegateLog.append("error:\(error.code)")
        resumeContent()   // as the guide's app does: a fatal ad error leaves content playing
    }

    /// Logs `contentPause` and pauses the content.
    public func adsManagerDidRequestContentPause(_ adsManager: AdsManager) {
        delegateLog.append("contentPause")
        player?.pause()
    }

    /// Logs `contentResume` and lets content play on (after any native breaks due).
    public func adsManagerDidRequestContentResume(_ adsManager: AdsManager) {
        delegateLog.append("contentResume")
        resumeContent()
    }
}

/// The end of a stitch, heard once from whichever thread gets there first (the end of the
/// post-rolls, or the player's failure).
private final class StitchEnding: Sendable {
    private let continuation: Locked<CheckedContinuation<Void, Never>?>
    init(_ c: CheckedContinuation<Void, Never>) { continuation = Locked(c) }
    func done() { continuation.withLock { $0.take() }?.resume() }
}
