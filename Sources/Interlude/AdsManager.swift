import Ads
import Foundation
import Playback
import Threads
import Threads
import Timing

/// Plays the ads of one response, as IMA's `IMAAdsManager`: it decides when content pauses, which
/// ad plays, fires ad events and records every beacon a player must send.
///
/// With ad rules (a VMAP response) the breaks play where the schedule puts them as the content
/// playhead reaches them; `start()` is ignored unless `autoPlayAdBreaks` is false. A plain VAST
/// response plays as a pre-roll once `start()` is called. `contentComplete()` (through the
/// loader) plays post-rolls, then ALL_ADS_COMPLETED. Nothing is delivered after `destroy()`.
///
/// The player integration — the content cue ahead (`nextCuePoint(atOrAfter:)`), reaching it
/// (`contentDidReachCuePoint(_:)`) and playing ads through the container's `AdVideoDisplay` — is
/// what makes pauses frame-exact: the engine stops content on the cue frame, then the manager plays.
///
/// **Threads.** The manager decides on a serial queue of its own: the frame loop hands it the cue
/// and the ad frames it acts on (`AdFrameMarks`) there, and never waits for the app. Its delegate
/// hears every event afterwards, in order, on `delegateQueue` (the loader's; main by default, as
/// in IMA). Any thread may call it: a call is applied on the manager's queue before it returns
/// (so a skip takes effect at the loop's next frame), and what it reads is the manager's state
/// at that moment. A loader may make managers that decide in step with their delegate instead
/// (on `delegateQueue` itself: a viewer script reacting to events, or the app's own ad views
/// drawn in a run as fast as possible), where what the frames show depends on the app's answers.
public final class AdsManager: Sendable {
    /// Receives events, errors and content pause/resume requests, on `delegateQueue`.
    public var delegate: AdsManagerDelegate? {
        get { delegateBox.withLock { $0.value } }
        set { delegateBox.withLock { $0.value = newValue } }
    }
    /// Where the delegate is called (the loader's `delegateQueue`).
    public let delegateQueue: DispatchQueue
    /// The resolved schedule this manager plays.
    package let schedule: AdSchedule
    /// Every break's and ad's state.
    package var state: AdPlaybackState { perform { adState } }
    /// Every event delivered, in order.
    public var events: [AdEvent] { perform { record.events } }
    /// Every error met, in order.
    public var errors: [AdError] { perform { record.errors } }
    /// Every beacon due, in order.
    public var beacons: [TrackedBeacon] { perform { record.beacons } }
    /// Breaks as they played.
    public var playedBreaks: [PlayedBreak] { perform { record.playedBreaks } }
    /// Whether the response uses ad rules (VMAP).
    package let isAdRules: Bool

    /// Where the manager decides: a serial queue of its own, or `delegateQueue` when it decides
    /// in step with its delegate.
    let queue: DispatchQueue
    /// Whether the manager decides on `delegateQueue`, each delegate call made before it goes on.
    let decidesInStep: Bool
    private let queueKey = DispatchSpecificKey<Void>()
    private let delegateBox = Locked(WeakDelegate())
    private struct WeakDelegate { weak var value: AdsManagerDelegate? }
    /// `phase.life` as the delegate queue sees it: nothing is delivered once it is destroyed.
    let lifeSeen = Locked(AdsManagerPhase.Life.loaded)

    let settings: Settings
    let request: AdsRequest
    let localOrigin: Bool
    /// Folder that relative media paths in a local document are resolved against.
    let mediaBase: URL?
    var adState: AdPlaybackState { get { decided.value.adState } _modify { yield &decided.value.adState } }
    /// What the app can read back: events, errors, beacons and played breaks, in order.
    var record: Record { get { decided.value.record } _modify { yield &decided.value.record } }
    struct Record {
        var events: [AdEvent] = []
        var errors: [AdError] = []
        var beacons: [TrackedBeacon] = []
        var playedBreaks: [PlayedBreak] = []
    }
    var plans: [BreakPlan] { get { decided.value.plans } _modify { yield &decided.value.plans } }
    var renderingSettings: AdsRenderingSettings { get { decided.value.renderingSettings } _modify { yield &decided.value.renderingSettings } }

    /// Whether the display's loop waits for the manager on the frames it acts on: when it decides
    /// in step with its delegate (what the delegate does on an event applies at that event's
    /// frame), or in a double box, where content plays under the ad and the manager reads the
    /// content time showing with the frame (its events' and beacons' content time). Otherwise the
    /// loop never waits for the manager on a frame.
    var waitsOnAdFrames: Bool { decidesInStep || doubleBox != nil }
    /// Whether the app's own views (`AdUIView`s its delegate updates) are drawn on the ad frames
    /// of a run as fast as possible: what the frames show must not depend on how soon the app's
    /// queue runs, so such a manager decides in step with its delegate.
    static func appViewsNeedStep(_ request: AdsRequest) -> Bool {
        guard let display = request.adDisplayContainer.videoDisplay, !display.firesBeaconsLive else { return false }
        return request.adDisplayContainer.adContainer?.adUISubviews(existing: true) != nil
    }
    /// Where network ad media is fetched to (the loader's).
    let mediaCache: AdMediaCache?
    /// The preloading started by `initialize`, when on.
    var preloadTask: Task<Void, Never>? { get { decided.value.preloadTask } _modify { yield &decided.value.preloadTask } }
    /// Media fetches under way or done, by URL.
    var mediaFetches: [String: Task<Result<String, AdMediaCache.Failure>, Never>] { get { decided.value.mediaFetches } _modify { yield &decided.value.mediaFetches } }
    /// Fires beacons over HTTP when the display plays live; its `outcomes` say what became of each.
    package let beaconSender = BeaconSender()
    /// Observers on a watched player (boundary tokens and the time-jump observer).
    var playerObservers: [Any] { get { decided.value.playerObservers } _modify { yield &decided.value.playerObservers } }
    var jumpObserver: NSObjectProtocol? { get { decided.value.jumpObserver } _modify { yield &decided.value.jumpObserver } }
    var mediaPaths: [String: Result<String, AdError>] { get { decided.value.mediaPaths } _modify { yield &decided.value.mediaPaths } }
    /// Where the manager stands (`AdsManagerPhase`: its life, start, break, completion, app state).
    var phase: AdsManagerPhase { get { decided.value.phase } _modify { yield &decided.value.phase } }
    /// Whether a plain VAST response was started.
    var started: Bool { phase.start == .started }
    /// Whether `destroy()` was called.
    var destroyed: Bool { phase.life == .destroyed }
    /// Whether a break is playing (from its start to its end, a double box too).
    var breakPlaying: Bool { phase.breakRun != .none }
    /// Whether the break playing was asked to end.
    var discardRequested: Bool { phase.breakRun == .discarding }
    var playing: Playing? { get { decided.value.playing } _modify { yield &decided.value.playing } }
    /// Overlays shown whose `close` beacons are still due: (content end, ad, break id).
    var overlayCloses: [(end: MediaTime, ad: ResolvedAd, breakId: String)] { get { decided.value.overlayCloses } _modify { yield &decided.value.overlayCloses } }
    /// Overlays scheduled on the display's overlay layer: what a click on one refers to.
    var overlaysOnScreen: [(overlay: ScheduledOverlay, ad: ResolvedAd, breakIndex: Int)] { get { decided.value.overlaysOnScreen } _modify { yield &decided.value.overlaysOnScreen } }
    /// Breaks shown as overlays so far.
    var overlaysShown: Int { get { decided.value.overlaysShown } _modify { yield &decided.value.overlaysShown } }
    /// Content pauses requested so far.
    var pauses: Int { get { decided.value.pauses } _modify { yield &decided.value.pauses } }
    /// The double-box break playing beside content, if any.
    var doubleBox: DoubleBoxRun? { get { decided.value.doubleBox } _modify { yield &decided.value.doubleBox } }
    private let epoch = Date()
    /// Everything the manager decides with: touched only on `queue` once init has set it up (a
    /// `LoopBound` of the queue, asserted on every access in debug builds).
    struct Decided {
        var adState: AdPlaybackState
        var record: Record = Record()
        var plans: [BreakPlan]
        var renderingSettings: AdsRenderingSettings = AdsRenderingSettings()
        var preloadTask: Task<Void, Never>? = nil
        var mediaFetches: [String: Task<Result<String, AdMediaCache.Failure>, Never>] = [:]
        var playerObservers: [Any] = []
        var jumpObserver: NSObjectProtocol? = nil
        var mediaPaths: [String: Result<String, AdError>] = [:]
        var phase: AdsManagerPhase = AdsManagerPhase()
        var playing: Playing? = nil
        var overlayCloses: [(end: MediaTime, ad: ResolvedAd, breakId: String)] = []
        var overlaysOnScreen: [(overlay: ScheduledOverlay, ad: ResolvedAd, breakIndex: Int)] = []
        var overlaysShown: Int = 0
        var pauses: Int = 0
        var doubleBox: DoubleBoxRun? = nil
    }
    let decided: LoopBound<Decided>

    /// The ad now playing and what has fired for it.
    struct Playing {
        var ad: Ad
        var resolved: ResolvedAd
        var media: AdMedia
        var breakIndex: Int
        /// Its progress: what its frames have set off so far.
        var tracker: AdProgressTracker
        /// Ad time of the ad frame now showing.
        var adTime: MediaTime { tracker.adTime }
        /// Stream time of the ad frame now showing.
        var frameStreamTime: MediaTime?
        /// How it is to end: played out, or skipped by the viewer.
        var ending = Ending.playsOut
        enum Ending { case playsOut, skipped }
        var tracking: [TrackedBeacon] = []
        /// Sum of the measured durations of the ads in this ad's pod.
        var podDuration: MediaTime = .zero
        /// Whether the ad is frozen (PAUSE fired, RESUME not yet).
        var hold = Hold.playing
        enum Hold { case playing, paused }
        /// How it was presented when its first frame showed.
        var presentation: AdPresentation = .normal
    }

    /// One break to play: what the schedule says, with an id and a cue.
    struct BreakPlan {
        var id: String
        var cue: AdPlaybackState.Cue
        var podIndex: Int
        var ads: [ResolvedAd]
        /// Stand-alone (buffet) ads kept as fallbacks for pod ads whose media fails.
        var spares: [ResolvedAd]
        var scheduled: ScheduledBreak
    }

    init(schedule: AdSchedule, settings: Settings, request: AdsRequest, localOrigin: Bool, mediaBase: URL?,
         mediaCache: AdMediaCache?, delegateQueue: DispatchQueue, decidesInStep: Bool) {
        self.mediaBase = mediaBase
        self.schedule = schedule
        self.settings = settings
        self.request = request
        self.localOrigin = localOrigin
        self.mediaCache = mediaCache
        self.delegateQueue = delegateQueue
        self.decidesInStep = decidesInStep
        queue = decidesInStep ? delegateQueue : DispatchQueue(label: "interlude.ads-manager")
        queue.setSpecific(key: queueKey, value: ())
        isAdRules = schedule.kind == .vmap
        // play order, pod indexes and names: the one break sequencer
        let sequence = BreakSequence(schedule.breaks)
        let plans = sequence.slots.map { s in
            let b = schedule.breaks[s.source]
            return BreakPlan(id: s.name, cue: s.cue, podIndex: s.podIndex, ads: b.pod, spares: b.spares, scheduled: b)
        }
        let owner = ThreadOwner(name: "the ads manager's queue", queue: queue, key: queueKey)
        decided = LoopBound(Decided(adState: AdPlaybackState(sequence: sequence), plans: plans), owner: owner, name: "its state")
        owner.bind()
        if let proxy = request.pictureInPictureProxy { proxy.add(self) }
    }

    // the key's value would outlive it on a queue the app named (or the main queue)
    deinit { queue.setSpecific(key: queueKey, value: nil) }

    // MARK: the manager's queue

    /// Runs `body` on the manager's queue and returns its result: at once when already there,
    /// else waiting for the queue (which never waits for another thread, unless the manager
    /// decides in step with its delegate and `body` comes from elsewhere).
    func perform<T>(_ body: () throws -> T) rethrows -> T {
        if DispatchQueue.getSpecific(key: queueKey) != nil { return try body() }
        if queue === DispatchQueue.main, Thread.isMainThread { return try body() }
        return try queue.sync(execute: body)
    }

    /// Runs `work` where the delegate is called: queued on `delegateQueue` (not waited for), or at
    /// once when the manager decides in step with it; never once the manager is destroyed. `then`
    /// runs on the manager's queue after `work` has returned (or was dropped).
    func onDelegateQueue(_ work: @escaping @Sendable () -> Void, then: (@Sendable () -> Void)? = nil) {
        guard !destroyed else { then?(); return }
        if decidesInStep {
            work()
            then?()
            return
        }
        delegateQueue.async { [self] in
            if lifeSeen.withLock({ $0 }) != .destroyed { work() }
            if let then { queue.async(execute: then) }
        }
    }

    /// Calls the delegate, when there is one, with `call` (`onDelegateQueue`), then `then` on the
    /// manager's queue.
    func toDelegate(_ call: @escaping @Sendable (AdsManagerDelegate, AdsManager) -> Void, then: (@Sendable () -> Void)? = nil) {
        onDelegateQueue({ [self] in if let d = delegate { call(d, self) } }, then: then)
    }

    // MARK: IMA's API

    /// Whether an ad is playing now (between its break's content pause and resume).
    public var isPlayingAd: Bool { perform { playing != nil } }
    /// Whether the ad playing is paused (`pause()` without `resume()` yet).
    public var isAdPaused: Bool { perform { playing?.hold == .paused } }

    /// IMA's cue points: 0 for a pre-roll, seconds for mid-rolls, -1 for a post-roll; empty for a
    /// plain VAST response (as IMA reports single ads and pods).
    public var adCuePoints: [Double] { perform { isAdRules ? adState.cuePoints : [] } }

    /// Initialises playback with rendering settings (nil: defaults): applies `playAdsAfterTime`,
    /// re-selects media files for `mimeTypes`/`bitrate`, reports load-time errors, and fires
    /// CUEPOINTS_CHANGED (ad rules) or LOADED (a single ad or pod).
    public func initialize(with settings: AdsRenderingSettings?) {
        let copy = settings?.copy() ?? AdsRenderingSettings()
        perform {
            guard phase.initializing() else { return }
            renderingSettings = copy
            if let ui = request.adDisplayContainer.adUI, ui.defaultUI != nil { ui.defaultUI = DefaultAdUI(uiElements: renderingSettings.uiElements) }
            if !renderingSettings.mimeTypes.isEmpty || renderingSettings.bitrate != nil { reselectMedia() }
            if isAdRules, renderingSettings.playAdsAfterTime >= 0 {
                adState = adState.droppingBreaks(atOrBefore: MediaTime(seconds: renderingSettings.playAdsAfterTime, timescale: 1000))
            }
            let overlayAds = Set(plans.filter(isOverlayBreak).flatMap { $0.ads + $0.spares.filter { !$0.isLinear } }.compactMap(\.id))
            for issue in schedule.errors {
                // a non-linear ad is not an error where it is shown as an overlay
                if issue.code == .unexpectedLinearity, let id = issue.adId, overlayAds.contains(id) { continue }
                let e = AdError(type: .adLoadingFailed, code: issue.code?.rawValue ?? 900, message: issue.message, adId: issue.adId)
                recordError(e, urls: issue.errorURLs, adId: issue.adId, breakId: issue.breakId)
            }
            if renderingSettings.enablePreloading, let cache = mediaCache {
                let plans = self.plans
                preloadTask = Task { await self.preload(plans, into: cache) }
            }
            if isAdRules {
                deliver(.cuepointsChanged, ad: nil, data: ["cuepoints": adState.cuePoints.map { String($0) }.joined(separator: ",")])
            } else if let first = plans.first, let resolved = first.ads.first {
                deliver(.loaded, ad: makeAd(resolved, position: 1, total: first.ads.count, plan: first, media: nil))
            }
            watchPlayer()
        }
    }

    /// Starts ad playback: plays the single ad or pod of a VAST response (as a pre-roll); with ad
    /// rules it is ignored, except during AD_BREAK_READY when `autoPlayAdBreaks` is false.
    public func start() {
        perform {
            switch phase.starting(isAdRules: isAdRules, pictureInPictureActive: pictureInPictureActive) {
            case .refuseInPictureInPicture: refuseStartInPictureInPicture()
            case .startResponse: startWatchedPlayer()
            case .ignore, .playReadyBreak: break   // the ready break plays when AD_BREAK_READY returns
            }
        }
    }

    /// Pauses the playing ad: a player holds its picture and silences it until `resume()`; fires
    /// PAUSE and the `pause` beacon (a stitch made as fast as possible only records them).
    public func pause() { perform { pauseAd() } }

    func pauseAd() {
        guard var p = playing, !destroyed, p.hold == .playing else { return }
        p.hold = .paused
        request.adDisplayContainer.videoDisplay?.pauseAd()
        p.tracking += beaconsFor(event: "pause", p)
        playing = p
        deliver(.pause, ad: p.ad, at: p.frameStreamTime)
    }

    /// Resumes the paused ad (fires RESUME and the `resume` beacon).
    public func resume() { perform { resumeAd() } }

    func resumeAd() {
        guard var p = playing, !destroyed, p.hold == .paused else { return }
        p.hold = .playing
        p.tracking += beaconsFor(event: "resume", p)
        playing = p
        request.adDisplayContainer.videoDisplay?.resumeAd()
        deliver(.resume, ad: p.ad, at: p.frameStreamTime)
    }

    /// Skips the playing ad when it is skippable and its skip offset has been reached; otherwise
    /// nothing. The ad ends before the loop's next frame.
    public func skip() {
        perform {
            guard var p = playing, !destroyed, p.ad.isSkippable,
                  p.adTime.seconds >= p.ad.skipTimeOffset else { return }
            p.ending = .skipped
            playing = p
            request.adDisplayContainer.videoDisplay?.stopAd()
            doubleBox?.stopAd()
        }
    }

    /// Discards the playing break and resumes content; when none is playing, the next scheduled
    /// break will not play.
    public func discardAdBreak() {
        perform {
            guard !destroyed else { return }
            if phase.discarding() {
                // after the ad's next frame, as `adFrame` answering false there (the display does not
                // wait for its answer on every frame)
                if playing != nil { request.adDisplayContainer.videoDisplay?.endAdAfterNextFrame(); doubleBox?.stopAd() }
                return
            }
            let t = request.adDisplayContainer.videoDisplay?.contentTime ?? .zero
            if let i = adState.breaks.indices.first(where: { i in
                guard adState.breaks[i].state == .scheduled else { return false }
                switch adState.breaks[i].cue { case .midroll(let c): return c >= t; case .preroll: return true; case .postroll: return true }
            }) {
                adState = adState.settingBreak(i, to: .discarded)
            }
        }
    }

    /// The viewer clicked the custom "Learn more" of the playing ad (only with `disableUi`): fires
    /// CLICKED with the click-through URL, the click-tracking beacons, and hands the URL to the
    /// rendering settings' `linkOpener`.
    public func clicked() {
        perform {
            guard renderingSettings.disableUi else { return }
            click()
        }
    }

    /// The viewer clicked a "Learn more" button the ad UI drew (IMA's default UI, or a layout's
    /// `learnMore` button): the click-through, as `clicked()`, whether or not `disableUi` is set.
    public func learnMoreClicked() { perform { click() } }

    /// The viewer clicked or tapped the ad's picture (IMA's own UI: "Learn more", or a tap): on a
    /// paused ad it fires TAPPED and resumes it, as IMA does; otherwise it is a click-through.
    public func viewerClicked() {
        perform {
            guard let p = playing, !destroyed else { return }
            if p.hold == .paused {
                deliver(.tapped, ad: p.ad, at: p.frameStreamTime)
                resumeAd()
            } else {
                click()
            }
        }
    }

    private func click() {
        guard var p = playing, !destroyed else { return }
        let target = p.resolved.clickThrough.map { MacroExpander.expand($0, context: macroContext(p)) }
        for url in p.resolved.clickTracking { p.tracking.append(beacon("clickTracking", url, p)) }
        playing = p
        deliver(.clicked, ad: p.ad, data: target.map { ["clickThroughUrl": $0] })
        openLink(target)
    }

    /// Hands a click-through URL to the rendering settings' `linkOpener`, on the delegate's queue.
    func openLink(_ target: String?) {
        guard let target, let url = URL(string: target), let opener = renderingSettings.linkOpener else { return }
        onDelegateQueue { opener(url) }
    }

    /// Stops everything: no event or callback is delivered after this.
    public func destroy() {
        perform {
            phase.destroying()
            lifeSeen.withLock { $0 = .destroyed }
            request.adDisplayContainer.videoDisplay?.stopAd()
            doubleBox?.stopAd()
            unwatchPlayer()
        }
    }

    /// Where content time `t` appears in the output (exact to the frame).
    public func streamTime(forContentTime t: MediaTime) -> MediaTime {
        request.adDisplayContainer.videoDisplay?.timeline.streamTime(forContentTime: t) ?? t
    }

    /// The content time showing at stream time `t` (during a break: where content paused).
    public func contentTime(forStreamTime t: MediaTime) -> MediaTime {
        request.adDisplayContainer.videoDisplay?.timeline.contentTime(forStreamTime: t) ?? t
    }

    /// The last break that starts at or before stream time `t`.
    package func previousCuePoint(forStreamTime t: MediaTime) -> TimelineMap.Break? {
        request.adDisplayContainer.videoDisplay?.timeline.previousCuePoint(forStreamTime: t)
    }

    // MARK: delivery

    /// Records event `type` and delivers it to the delegate; `then` runs on the manager's queue
    /// once the delegate has returned from it (at once when the manager is destroyed).
    func deliver(_ type: AdEventType, ad: Ad?, data: [String: String]? = nil, at streamTime: MediaTime? = nil,
                 then: (@Sendable () -> Void)? = nil) {
        guard !destroyed else { then?(); return }
        let display = request.adDisplayContainer.videoDisplay
        let event = AdEvent(type: type, ad: ad, data: data, streamTime: streamTime ?? display?.streamTime ?? .zero,
                            contentTime: display?.contentTime ?? .zero)
        record.events.append(event)
        toDelegate({ d, m in d.adsManager(m, didReceive: event) }, then: then)
    }

    func recordError(_ error: AdError, urls: [URLTemplate], adId: String?, breakId: String?) {
        guard !destroyed else { return }
        record.errors.append(error)
        let display = request.adDisplayContainer.videoDisplay
        for url in urls {
            var ctx = macroContext(nil)
            ctx.errorCode = VASTErrorCode(rawValue: error.code < 1000 ? error.code : 900)
            emit(TrackedBeacon(event: "error", streamTime: display?.streamTime ?? .zero,
                               contentTime: display?.contentTime ?? .zero,
                               url: MacroExpander.expand(url, context: ctx), adId: adId, breakId: breakId))
        }
        // As IMA: an error that other ads or breaks survive is a LOG event; only a response with
        // nothing playable left reaches `adsManager(_:didReceive:)` (where apps resume content).
        deliver(.log, ad: nil, data: ["type": error.type.rawValue, "errorCode": String(error.code), "errorMessage": error.message])
    }

    /// Reports a fatal error: nothing of the response can play (the app should play content).
    func reportFatal(_ error: AdError) {
        toDelegate { d, m in d.adsManager(m, didReceive: error) }
    }

    func macroContext(_ p: Playing?, at streamTime: MediaTime? = nil) -> MacroContext {
        let display = request.adDisplayContainer.videoDisplay
        let stream = streamTime ?? display?.streamTime ?? .zero
        return MacroContext(contentPlayhead: display?.contentTime, adPlayhead: p?.adTime, assetURI: p?.media.url,
                            breakCue: p.flatMap { plans[$0.breakIndex].scheduled.cue },
                            adCount: p.map { $0.ad.adPodInfo.adPosition }, podSequence: p?.resolved.sequence,
                            adServingId: p?.resolved.adServingId, universalAdIds: p?.resolved.universalAdIds ?? [],
                            timestamp: epoch.addingTimeInterval(stream.seconds))
    }

    func beacon(_ event: String, _ url: URLTemplate, _ p: Playing, at streamTime: MediaTime? = nil) -> TrackedBeacon {
        let display = request.adDisplayContainer.videoDisplay
        let at = streamTime ?? p.frameStreamTime ?? display?.streamTime ?? .zero
        let b = TrackedBeacon(event: event, streamTime: at, contentTime: display?.contentTime ?? .zero,
                              url: MacroExpander.expand(url, context: macroContext(p, at: at)), adId: p.ad.adId,
                              breakId: plans[p.breakIndex].id)
        emit(b)
        return b
    }

    /// Records a beacon, and fires it over HTTP at once when the display plays live.
    func emit(_ b: TrackedBeacon) {
        record.beacons.append(b)
        if request.adDisplayContainer.videoDisplay?.firesBeaconsLive == true { beaconSender.fire(b) }
    }

    func beaconsFor(event: String, _ p: Playing, at streamTime: MediaTime? = nil) -> [TrackedBeacon] {
        p.resolved.trackingEvents.filter { $0.event == event }.map { beacon(event, $0.url, p, at: streamTime) }
    }
}
