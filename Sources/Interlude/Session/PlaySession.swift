import Foundation
import Playback
import Timing

/// `interlude play` as a library: an app on `Player`, `AdsLoader` and `AdsManager` written the way
/// IMA's getting-started guide writes one, plus a viewer script (`SessionScript`) and a live event
/// log. Played as fast as possible, the same script gives the same events and the same output.
/// Picture-in-picture follows IMA's PiP guide (a `PictureInPictureProxy` as the controller's
/// delegate, the PiP request initializer, `start()` on LOADED only outside PiP) and the background
/// follows `BackgroundPlayback`.
@MainActor package final class PlaySession: @preconcurrency AdsLoaderDelegate, @preconcurrency AdsManagerDelegate,
                                                         PictureInPictureControllerDelegate {
    /// The content player; attach outputs to `player.surface` before `run()`.
    public let player: Player
    /// The ad tag (URL or path), if any.
    public let adTag: String?
    /// The viewer script.
    public let script: SessionScript
    /// Where events are written.
    public let log: SessionEventLog
    /// Rendering settings passed to `initialize(with:)` (its `linkOpener` logs opened URLs).
    public let renderingSettings = AdsRenderingSettings()
    /// Milliseconds allowed for the first VAST request and each wrapper (IMA's `vastLoadTimeout`); nil: 8 s / 4 s.
    public var vastLoadTimeout: Double?
    /// Whether IMA's default ad UI is drawn on the surface (on by default, as in IMA).
    public var drawsDefaultAdUI = true
    /// The app's UI for ads whose `isUiDisabled` is true (with `renderingSettings.disableUi`).
    public var customAdUI: (any AdUIRenderer)?
    /// The ad UI drawn on the player's surface, once ads were requested.
    public private(set) var adUI: AdUILayer?
    /// The loader (one per app, as IMA asks).
    public let adsLoader: AdsLoader
    /// The manager once ads loaded.
    public private(set) var adsManager: AdsManager?
    /// Picture-in-picture on the player (the window key `p`, `pip on/off`).
    public let pictureInPictureController: PictureInPictureController
    /// The proxy installed as the PiP controller's delegate: forwards to this session and the ads.
    public private(set) var pictureInPictureProxy: PictureInPictureProxy!
    /// The background rules (`background on/off`).
    public let backgroundPlayback: BackgroundPlayback
    /// Whether a pause or background with no `for` ends the session when nothing is left to
    /// resume it: played as fast as possible with no viewer input (no window, no app calling
    /// `perform`), such a hold would wait for ever. Off by default: an app may resume it.
    public var endsHeldPlaybackAtScriptEnd = false
    /// Where the session's ads stand.
    private var ads: AdsStage
    private enum AdsStage: Equatable {
        /// No ad tag.
        case none
        /// Requested, not loaded yet (a LOADED still to come plays on).
        case loading
        /// Loaded; LOADED came during picture-in-picture, so `start()` waits for PiP to stop, as
        /// the PiP guide asks.
        case startWaitsForPictureInPicture
        /// Loaded and playing as the manager decides.
        case running
        /// The request failed: content plays alone.
        case loadFailed
        /// ALL_ADS_COMPLETED came.
        case allCompleted
    }
    /// What the viewer does to the session as a whole.
    private var viewer = Viewer.watching
    private enum Viewer: Equatable {
        case watching
        /// A pause or background with no `for` holds playback (no timer ends it).
        case holdingWithoutEnd
        /// `quit`, or a hold that nothing can end: the session ends.
        case quitting
    }
    private var eventCounts: [AdEventType: Int] = [:]
    /// Script actions on a time that fired already (by index): each fires once, so a seek back
    /// over its own time does not fire it again.
    private var firedActions: Set<Int> = []
    private var finished: CheckedContinuation<Void, Never>?
    private var endObserver: NSObjectProtocol?
    private let tokens = NSMutableArray()

    /// A session of `player` with the ads of `adTag` (none when nil) and a viewer `script`.
    public init(player: Player, adTag: String?, script: SessionScript = SessionScript(actions: []),
                log: SessionEventLog, settings: Settings? = nil) {
        self.player = player
        self.adTag = adTag
        self.script = script
        self.log = log
        ads = adTag == nil ? .none : .loading
        adsLoader = AdsLoader(settings: settings)
        // As fast as possible, the session's log and frames are the same every run: the manager
        // decides in step with this app (on the main actor), so each event is logged and answered
        // at its frame. A script that reacts to ad events needs that in real time too.
        adsLoader.managersDecideInStep = player.clock == .asFastAsPossible
            || script.actions.contains { if case .event = $0.trigger { return true }; return false }
        pictureInPictureController = PictureInPictureController(player: player)
        backgroundPlayback = BackgroundPlayback(player: player, settings: settings)
        adsLoader.delegate = self
        pictureInPictureProxy = PictureInPictureProxy(avPictureInPictureControllerDelegate: self)
        pictureInPictureController.delegate = pictureInPictureProxy
        renderingSettings.linkOpener = { [weak self] url in   // on the delegate queue: main
            MainActor.assumeIsolated { self?.write("openURL", ["url": url.absoluteString]) }
        }
    }

    /// Plays the session to its end (content ended and, with ads, ALL_ADS_COMPLETED) or to a
    /// `quit`, then closes the player (finishing its outputs).
    public func run() async throws {
        endObserver = NotificationCenter.default.addObserver(forName: .PlayerItemDidPlayToEndTime, object: player.currentItem,
                                                             queue: .main) { [weak self] _ in
            MainActor.assumeIsolated { self?.contentEnded() }
        }
        installScript()
        if let adTag {
            let container = AdDisplayContainer(adContainer: player.surface)
            container.adUI?.defaultUI = drawsDefaultAdUI ? DefaultAdUI(uiElements: renderingSettings.uiElements) : nil
            container.adUI?.customUI = customAdUI
            adUI = container.adUI
            let request = AdsRequest(adTagUrl: adTag, adDisplayContainer: container,
                                     avPlayerVideoDisplay: PlayerVideoDisplay(player: player),
                                     pictureInPictureProxy: pictureInPictureProxy, userContext: nil)
            request.contentDuration = player.currentItem?.duration.seconds
            request.vastLoadTimeout = vastLoadTimeout
            adsLoader.requestAds(with: request)
        } else {
            player.play()
        }
        await withCheckedContinuation { finished = $0; checkDone() }
        if let endObserver { NotificationCenter.default.removeObserver(endObserver) }
        adsManager?.destroy()
        try player.close()
    }

    /// Pauses what plays (the ad, else the content), or resumes it when paused: a window's space bar.
    public func togglePause() {
        if let m = adsManager, m.isPlayingAd { perform(m.isAdPaused ? .resume : .pause(seconds: nil)); return }
        perform(player.rate == 0 ? .resume : .pause(seconds: nil))
    }

    /// A click at output pixel (x, y) (a live window): on the ad UI's skip button `skip()`, on
    /// "Learn more" `clicked()`, on a button of the app's own views its action; elsewhere on an ad
    /// the viewer's click (TAPPED and resume on a paused ad, else the click-through). On content,
    /// a click on a VAST overlay is its click-through (`AdsManager.overlayClicked`).
    public func click(atX x: Int, y: Int) {
        guard let m = adsManager else { return }
        guard m.isPlayingAd else {
            if let o = m.overlay(atX: x, y: y) { write("action", ["do": "overlayClick", "ad": o.adId]); m.overlayClicked(o) }
            return
        }
        if let button = player.surface.adUISubviews(existing: true)?.button(atX: x, y: y), let action = button.onTouchUpInside {
            write("action", ["do": "button", "x": x, "y": y])
            action()
            return
        }
        switch adUI?.action(atX: x, y: y) {
        case .skip: perform(.skip)
        case .learnMore:
            write("action", ["do": "learnMore"])
            m.learnMoreClicked()
        case nil: perform(.click)
        }
    }

    /// Starts picture-in-picture, or stops it when active: a window's `p` key.
    public func togglePictureInPicture() {
        perform(.pictureInPicture(!pictureInPictureController.isPictureInPictureActive))
    }

    /// Seeks content by `delta` seconds from where it is (a window's arrow keys); refused in an ad.
    public func seek(by delta: Double) {
        guard !(adsManager?.isPlayingAd ?? false) else { write("action", ["do": "seek", "refused": "an ad is playing"]); return }
        let to = max(0, player.currentTime().seconds + delta)
        perform(.seek(to: MediaTime(seconds: to, timescale: 1000)))
    }

    /// Performs a viewer action now (the window's keys, or the script).
    public func perform(_ kind: SessionScript.Kind) {
        switch kind {
        case .pause(let seconds):
            write("action", ["do": "pause"])
            if seconds == nil { hold() }   // before pausing: a resume on the PAUSE event clears it
            if let m = adsManager, m.isPlayingAd { m.pause() } else { player.pause() }
            if seconds == nil { holdWithoutEnd() }
            if let seconds {
                let resume = { [weak self] in self?.perform(.resume) }
                if player.clock == .realTime {
                    DispatchQueue.main.asyncAfter(deadline: .now() + seconds) { MainActor.assumeIsolated { resume() } }
                } else {
                    DispatchQueue.main.async { MainActor.assumeIsolated { resume() } }
                }
            }
        case .resume:
            write("action", ["do": "resume"])
            release()
            if let m = adsManager, m.isPlayingAd { m.resume() } else if !(adsManager?.isPlayingAd ?? false) { player.play() }
        case .skip:
            write("action", ["do": "skip"])
            adsManager?.skip()
        case .click:
            write("action", ["do": "click"])
            adsManager?.viewerClicked()
        case .seek(let to):
            write("action", ["do": "seek", "to": to.seconds])
            player.seek(to: to) { [weak self] ok in
                MainActor.assumeIsolated { self?.write("seeked", ["to": to.seconds, "ok": ok]) }
            }
        case .pictureInPicture(let on):
            write("action", ["do": on ? "pip on" : "pip off"])
            if on { pictureInPictureController.startPictureInPicture() } else { pictureInPictureController.stopPictureInPicture() }
        case .background(let on, let seconds):
            write("action", ["do": on ? "background on" : "background off"])
            if on {
                let effect = backgroundPlayback.enterBackground()
                write("background", ["playback": effect.rawValue])
                if seconds == nil, effect == .pauses { hold(); holdWithoutEnd() }
                if let seconds {
                    let back = { [weak self] in self?.perform(.background(false, seconds: nil)) }
                    if player.clock == .realTime {
                        DispatchQueue.main.asyncAfter(deadline: .now() + seconds) { MainActor.assumeIsolated { back() } }
                    } else {
                        DispatchQueue.main.async { MainActor.assumeIsolated { back() } }
                    }
                }
            } else {
                release()
                backgroundPlayback.enterForeground()
            }
        case .quit:
            write("action", ["do": "quit"])
            viewer = .quitting
            player.pause()
            adsManager?.destroy()
            checkDone()
        }
    }

    /// A pause or background with no `for` holds playback (unless the session is ending).
    private func hold() { if viewer == .watching { viewer = .holdingWithoutEnd } }
    /// A resume, or the return from the background, ends a hold.
    private func release() { if viewer == .holdingWithoutEnd { viewer = .watching } }

    /// A pause or background with no `for`. In real time, or with a viewer's input, the viewer (a
    /// key, a later action) ends it; played as fast as possible with no input
    /// (`endsHeldPlaybackAtScriptEnd`) nothing else can come once playback is held, so when it is
    /// still held after the actions and events it set off have run, the session ends there — at
    /// the script's end — instead of waiting for ever.
    private func holdWithoutEnd() {
        guard viewer == .holdingWithoutEnd, endsHeldPlaybackAtScriptEnd, player.clock == .asFastAsPossible else { return }
        // two turns of the main queue: events the pause itself posts (PAUSE) and actions on them run first
        DispatchQueue.main.async { DispatchQueue.main.async { MainActor.assumeIsolated { [weak self] in self?.endIfStillHeld() } } }
    }

    private func endIfStillHeld() {
        guard viewer == .holdingWithoutEnd, finished != nil else { return }
        let adPaused = adsManager.map { $0.isPlayingAd && $0.isAdPaused } ?? false
        let contentHeld = player.rate == 0 && !(adsManager?.isPlayingAd ?? false)
        guard (adPaused || contentHeld), ads != .loading else { return }   // a LOADED still to come plays on
        write("scriptEnded", ["reason": "held by a pause or background with no \"for\"; nothing can resume it as fast as possible"])
        viewer = .quitting
        adsManager?.destroy()
        checkDone()
    }

    private func installScript() {
        for (index, action) in script.actions.enumerated() {
            switch action.trigger {
            case .contentTime(let t):
                tokens.add(player.addBoundaryTimeObserver(forTimes: [t], queue: .main) { [weak self] in
                    MainActor.assumeIsolated { self?.fireTimeAction(index) }
                })
            case .streamTime(let t):
                tokens.add(player.addStreamTimeObserver(forTimes: [t], queue: .main) { [weak self] _ in
                    MainActor.assumeIsolated { self?.fireTimeAction(index) }
                })
            case .event:
                break
            }
        }
    }

    /// Performs script action `index` the first time its time is reached: a seek back over that
    /// time must not set it off again (a backwards seek at 15 s fired 1,601 times in 15 s).
    private func fireTimeAction(_ index: Int) {
        guard firedActions.insert(index).inserted else { return }
        perform(script.actions[index].kind)
    }

    private func contentEnded() {
        write("contentEnded")
        adsLoader.contentComplete()
        checkDone()
    }

    private func checkDone() {
        let adsDone = ads == .none || ads == .loadFailed || ads == .allCompleted
        guard let c = finished, viewer == .quitting || (player.contentEnded && adsDone) else { return }
        finished = nil
        write("end", ["frames": player.surface.presentedFrames, "droppedFrames": player.droppedFrames])
        c.resume()
    }

    private func write(_ event: String, _ fields: [String: Any] = [:]) {
        log.write(event, streamTime: player.streamTime, contentTime: player.currentTime(), fields)
    }

    // MARK: AdsLoaderDelegate

    /// The ads loaded: takes their manager, becomes its delegate and initializes it with the rendering settings.
    public func adsLoader(_ loader: AdsLoader, adsLoadedWith adsLoadedData: AdsLoadedData) {
        adsManager = adsLoadedData.adsManager
        ads = .running
        adsManager?.delegate = self
        backgroundPlayback.adsManager = adsManager
        adsManager?.initialize(with: renderingSettings)
    }

    /// Loading failed: logs `adsLoadError` and plays the content without ads.
    public func adsLoader(_ loader: AdsLoader, failedWith adErrorData: AdLoadingErrorData) {
        write("adsLoadError", ["code": adErrorData.adError.code, "type": adErrorData.adError.type.rawValue,
                               "message": adErrorData.adError.message, "errorUrls": loader.beacons.map(\.url)])
        ads = .loadFailed
        player.play()
        checkDone()
    }

    // MARK: AdsManagerDelegate

    /// Logs the event (its ad and data), runs the script's actions it sets off, and starts the ads on `LOADED`
    /// (once picture-in-picture stops, if it is active).
    public func adsManager(_ adsManager: AdsManager, didReceive event: AdEvent) {
        var fields: [String: Any] = [:]
        if let ad = event.ad {
            fields["adId"] = ad.adId
            fields["adPosition"] = ad.adPodInfo.adPosition
            fields["totalAds"] = ad.adPodInfo.totalAds
        }
        if let data = event.data { for (k, v) in data { fields[k] = v } }
        log.write(event.typeString, streamTime: event.streamTime, contentTime: event.contentTime, fields)
        if event.type == .loaded {
            // the PiP guide: ads cannot be started in picture-in-picture; start once it stops
            if pictureInPictureController.isPictureInPictureActive { ads = .startWaitsForPictureInPicture } else { adsManager.start() }
        }
        if event.type == .allAdsCompleted { ads = .allCompleted; checkDone() }
        let n = (eventCounts[event.type] ?? 0) + 1
        eventCounts[event.type] = n
        for action in script.actions where action.trigger == .event(event.type, occurrence: n) { perform(action.kind) }
    }

    /// Logs `adError` and plays the content.
    public func adsManager(_ adsManager: AdsManager, didReceive error: AdError) {
        write("adError", ["code": error.code, "message": error.message])
        player.play()
    }

    /// Logs `contentPause` and pauses the player.
    public func adsManagerDidRequestContentPause(_ adsManager: AdsManager) {
        write("contentPause")
        player.pause()
    }

    /// Logs `contentResume` and plays the content again (unless quitting).
    public func adsManagerDidRequestContentResume(_ adsManager: AdsManager) {
        write("contentResume")
        if viewer != .quitting { player.play() }
        checkDone()
    }

    // MARK: PictureInPictureControllerDelegate (through the proxy)

    /// Logs `pictureInPictureStarted`.
    public func pictureInPictureControllerDidStartPictureInPicture(_ controller: PictureInPictureController) {
        write("pictureInPictureStarted")
    }

    /// Logs `pictureInPictureStopped` and starts the ads if their start waited for it.
    public func pictureInPictureControllerDidStopPictureInPicture(_ controller: PictureInPictureController) {
        write("pictureInPictureStopped")
        if ads == .startWaitsForPictureInPicture {
            ads = .running
            adsManager?.start()
        }
    }
}
