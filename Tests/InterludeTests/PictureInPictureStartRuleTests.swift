import Draw
import Foundation
import Playback
import Testing
import TestSupport
import Interlude

/// IMA's PiP rule on `AdsManager.start()`, with an app wired as the PiP guide wires it: the
/// request made with `avPlayerVideoDisplay:pictureInPictureProxy:`, the proxy as the PiP
/// controller's delegate forwarding to the app. `start()` in PiP fails with IMA's error (1102)
/// and starts nothing; after PiP stops it plays the ad.
@MainActor @Suite(.serialized) struct PictureInPictureStartRuleTests {
    @MainActor final class App: @preconcurrency AdsLoaderDelegate, @preconcurrency AdsManagerDelegate, PictureInPictureControllerDelegate {
        let player: Player
        var manager: AdsManager?
        var errors: [AdError] = []
        var log: [String] = []
        init(player: Player) { self.player = player }

        func adsLoader(_ loader: AdsLoader, adsLoadedWith adsLoadedData: AdsLoadedData) {
            manager = adsLoadedData.adsManager
            manager?.delegate = self
            manager?.initialize(with: nil)
        }
        func adsLoader(_ loader: AdsLoader, failedWith adErrorData: AdLoadingErrorData) { log.append("loadError \(adErrorData.adError.code)") }
        func adsManager(_ adsManager: AdsManager, didReceive event: AdEvent) { log.append(event.typeString) }
        func adsManager(_ adsManager: AdsManager, didReceive error: AdError) { errors.append(error); log.append("error \(error.code)") }
        func adsManagerDidRequestContentPause(_ adsManager: AdsManager) { log.append("contentPause"); player.pause() }
        func adsManagerDidRequestContentResume(_ adsManager: AdsManager) { log.append("contentResume"); player.play() }
        func pictureInPictureControllerWillStartPictureInPicture(_ c: PictureInPictureController) { log.append("willStart") }
        func pictureInPictureControllerDidStartPictureInPicture(_ c: PictureInPictureController) { log.append("didStart") }
        func pictureInPictureControllerWillStopPictureInPicture(_ c: PictureInPictureController) { log.append("willStop") }
        func pictureInPictureControllerDidStopPictureInPicture(_ c: PictureInPictureController) { log.append("didStop") }
    }

    static func waitFor(_ what: @MainActor () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(60)
        while !what(), Date() < deadline { try await Task.sleep(nanoseconds: 10_000_000) }
    }

    @Test func startInPipIsRefusedWithIMAsErrorAndStartsNothingThenPlaysAfterPip() async throws {
        let (server, _, content, _, vast) = try PictureInPictureSessionTests.server()
        defer { server.stop() }
        let player = try Player.open(url: content, clock: .asFastAsPossible)
        let null = NullOutput()
        player.surface.attach(null)
        let app = App(player: player)
        let pip = PictureInPictureController(player: player)
        let proxy = PictureInPictureProxy(avPictureInPictureControllerDelegate: app)
        pip.delegate = proxy
        let loader = AdsLoader(settings: nil)
        loader.delegate = app
        let request = AdsRequest(adTagUrl: vast, adDisplayContainer: AdDisplayContainer(adContainer: player.surface),
                                 avPlayerVideoDisplay: PlayerVideoDisplay(player: player), pictureInPictureProxy: proxy, userContext: nil)
        loader.requestAds(with: request)
        try await Self.waitFor { app.log.contains("LOADED") }
        let manager = try #require(app.manager)

        pip.startPictureInPicture()
        #expect(app.log.suffix(2) == ["willStart", "didStart"], "the proxy forwards to the app: \(app.log)")
        #expect(manager.isPictureInPictureActive && proxy.isPictureInPictureActive)
        manager.start()
        try await Self.waitFor { !app.errors.isEmpty }   // the delegate hears it on the main queue, after start() returns
        #expect(app.errors.map(\.code) == [AdsManager.startRefusedInPictureInPictureCode])
        #expect(app.errors.first?.code == 1102)
        try await Task.sleep(nanoseconds: 100_000_000)
        #expect(!manager.isPlayingAd && !app.log.contains("contentPause") && !app.log.contains("STARTED"))
        #expect(manager.state.breaks.allSatisfy { $0.state == .scheduled }, "nothing started")
        #expect(null.frameCount == 0)

        pip.stopPictureInPicture()
        #expect(app.log.suffix(2) == ["willStop", "didStop"] && !manager.isPictureInPictureActive)
        manager.start()
        try await Self.waitFor { app.log.contains("ALL_ADS_COMPLETED") }
        #expect(app.log.contains("STARTED") && app.log.contains("COMPLETE"))
        #expect(app.errors.count == 1)
        let ad = try #require(manager.playedBreaks.first?.ads.first)
        #expect(ad.presentation == .normal && ad.placement.frames == 30)
        // off the main actor: the player delivers its observers on main and would wait for it
        _ = try await offPool { player.waitUntilIdle(timeout: 60) }
        #expect(null.frameCount == 30 + 90)
        try player.close()
    }

    @Test func theLayerDrawsTheWindowOnlyWhileActiveAndOnTopOfTheOtherLayers() throws {
        let content = try TestMedia.clip(sourceID: 7, width: 320, height: 180, fps: 30, seconds: 1)
        let player = try Player.open(url: content, clock: .asFastAsPossible)
        defer { try? player.close() }
        let pip = PictureInPictureController(player: player)
        #expect(!player.surface.layers.all.contains { $0 === pip.layer })
        pip.startPictureInPicture()
        let ui = FakeAdUI()
        player.surface.addLayer(ui)
        #expect(player.surface.layers.all.last === pip.layer, "a layer added during PiP goes under the window")
        pip.stopPictureInPicture()
        pip.startPictureInPicture()
        #expect(player.surface.layers.all.last === pip.layer, "PiP goes on top when it starts")
        pip.stopPictureInPicture()
        #expect(!player.surface.layers.all.contains { $0 === pip.layer } && player.surface.layers.all.count == 1)
        let r = pip.layer.windowRect(width: 320, height: 180)
        #expect(r == Draw.PixelRect(x: 182, y: 98, width: 128, height: 72))
        let tl = PictureInPictureLayer(corner: .topLeft).windowRect(width: 320, height: 180)
        #expect(tl == Draw.PixelRect(x: 10, y: 10, width: 128, height: 72))
    }
}
