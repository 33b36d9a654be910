import Foundation
import Testing
import Timing
import TestSupport
@testable import Interlude

/// The manager's behaviour as IMA documents it, checked on a clock-only display.
@MainActor @Suite struct AdsManagerBehaviourTests {
    func manager(_ response: String, settings: Settings = Settings(), rendering: AdsRenderingSettings? = nil)
        async throws -> (AdsManager, FakeDisplay, RecordingDelegate) {
        let display = FakeDisplay()
        let request = AdsRequest(adsResponse: response, adDisplayContainer: AdDisplayContainer(videoDisplay: display), contentPlayhead: nil)
        let m = try await AdsLoader.steppingOnMain(settings: settings).loadAds(request).adsManager
        let d = RecordingDelegate()
        m.delegate = d
        m.initialize(with: rendering)
        return (m, display, d)
    }

    /// Plays content from 0 to `end` seconds the way the stitcher does: to each cue, then the break.
    func play(_ m: AdsManager, _ display: FakeDisplay, until end: Int64, seekTo: MediaTime? = nil) {
        var position = MediaTime.zero
        var t = MediaTime.zero
        if let seekTo { t = seekTo; position = seekTo; m.contentDidReachCuePoint(seekTo) }
        while let cue = m.nextCuePoint(atOrAfter: position), cue < MediaTime(seconds: end) {
            display.playContent(from: t, to: cue); t = cue
            position = cue
            m.contentDidReachCuePoint(cue)
        }
        display.playContent(from: t, to: MediaTime(seconds: end))
        m.contentComplete()
    }

    @Test func adRulesPlayBreaksAtTheirCuesAndPostrollAfterContentComplete() async throws {
        let (m, display, d) = try await manager(Docs.vmap([("start", Docs.ad("a", seconds: 2)), ("00:00:05", Docs.ad("b", seconds: 1)),
                                                           ("end", Docs.ad("c", seconds: 1))]))
        #expect(m.adCuePoints == [0, 5, -1])
        play(m, display, until: 10)
        #expect(display.log == ["begin b0", "ad fake-2.mp4 60 frames", "end", "begin b1", "ad fake-1.mp4 30 frames", "end",
                                "begin b2", "ad fake-1.mp4 30 frames", "end"])
        #expect(d.log.filter { $0 == "pause" }.count == 3 && d.log.filter { $0 == "resume" }.count == 3)
        #expect(d.log.last == "ALL_ADS_COMPLETED")
        m.contentComplete()
        #expect(d.log.filter { $0 == "ALL_ADS_COMPLETED" }.count == 1, "contentComplete twice changes nothing")
    }

    @Test func plainVASTPlaysAsPrerollOnlyAfterStart() async throws {
        let (m, display, d) = try await manager("<VAST version=\"3.0\">\(Docs.ad("solo", seconds: 1))</VAST>")
        #expect(d.log == ["LOADED"])
        #expect(m.adCuePoints.isEmpty && m.nextCuePoint(atOrAfter: .zero) == nil, "nothing plays before start()")
        m.start()
        play(m, display, until: 3)
        #expect(d.log == ["LOADED", "pause", "AD_BREAK_STARTED", "STARTED", "FIRST_QUARTILE", "MIDPOINT", "THIRD_QUARTILE", "COMPLETE",
                          "AD_BREAK_ENDED", "resume", "ALL_ADS_COMPLETED"])
    }

    @Test func startIsIgnoredWithAdRules() async throws {
        let (m, display, d) = try await manager(Docs.vmap([("00:00:02", Docs.ad("a", seconds: 1))]))
        m.start()
        play(m, display, until: 4)
        #expect(d.log.filter { $0 == "STARTED" }.count == 1)
    }

    @Test func breaksWaitForStartWhenAutoPlayIsOff() async throws {
        let settings = Settings()
        settings.autoPlayAdBreaks = false
        let (m, display, d) = try await manager(Docs.vmap([("00:00:01", Docs.ad("kept", seconds: 1)), ("00:00:03", Docs.ad("dropped", seconds: 1))]),
                                                settings: settings)
        var readies = 0
        d.onEvent = { m, e in
            if e.type == .adBreakReady {
                readies += 1
                #expect(e.data?["adBreakTime"] == (readies == 1 ? "1.0" : "3.0"))
                if readies == 1 { m.start() }
            }
        }
        play(m, display, until: 5)
        #expect(readies == 2)
        #expect(display.log == ["begin b0", "ad fake-1.mp4 30 frames", "end"])
        #expect(m.state.breaks.map(\.state) == [.played, .skipped])
    }

    @Test func playAdsAfterTimeDropsBreaksAtOrBeforeIt() async throws {
        let rendering = AdsRenderingSettings()
        rendering.playAdsAfterTime = 5
        let (m, display, _) = try await manager(Docs.vmap([("start", Docs.ad("a", seconds: 1)), ("00:00:05", Docs.ad("b", seconds: 1)),
                                                           ("00:00:06", Docs.ad("c", seconds: 1))]), rendering: rendering)
        play(m, display, until: 8)
        #expect(m.state.breaks.map(\.state) == [.skipped, .skipped, .played])
    }

    @Test func aSeekPastSeveralMidrollsPlaysOnlyTheLast() async throws {
        let (m, display, _) = try await manager(Docs.vmap([("00:00:02", Docs.ad("a", seconds: 1)), ("00:00:04", Docs.ad("b", seconds: 1)),
                                                           ("00:00:06", Docs.ad("c", seconds: 1)), ("00:00:09", Docs.ad("d", seconds: 1))]))
        play(m, display, until: 10, seekTo: MediaTime(seconds: 7))
        #expect(m.state.breaks.map(\.state) == [.skipped, .skipped, .played, .played])
        #expect(display.log.filter { $0.hasPrefix("begin") } == ["begin b2", "begin b3"])
    }

    @Test func skipWorksOnlyOnASkippableAdPastItsOffset() async throws {
        let (m, display, d) = try await manager(Docs.vmap([("00:00:01", Docs.ad("skippable", seconds: 6, skip: "00:00:02", sequence: 1) + Docs.ad("fixed", seconds: 3, sequence: 2))]))
        var tries: [String] = []
        d.onProgress = { m, t in
            if m.events.last?.ad?.adId == "fixed" || tries.count > 20 { m.skip(); return }
            tries.append(String(format: "%.1f", t))
            m.skip()
        }
        play(m, display, until: 2)
        let played = m.playedBreaks[0].ads
        #expect(played.map(\.skipped) == [true, false], "the unskippable ad plays to the end")
        #expect(played[0].placement.duration >= MediaTime(seconds: 2) && played[0].placement.duration < MediaTime(value: 21, timescale: 10))
        #expect(played[0].tracking.contains { $0.event == "skip" && $0.url == "http://t.invalid/skip/skippable" })
        #expect(d.log.contains("SKIPPED") && !d.log.contains { $0 == "COMPLETE" && false })
        #expect(played[1].placement.duration == MediaTime(seconds: 3))
    }

    @Test func discardAdBreakStopsThePlayingBreakOrTheNextOne() async throws {
        let (m, display, d) = try await manager(Docs.vmap([("00:00:01", Docs.ad("a", seconds: 4, sequence: 1) + Docs.ad("b", seconds: 4, sequence: 2)),
                                                           ("00:00:03", Docs.ad("c", seconds: 1)), ("00:00:05", Docs.ad("e", seconds: 1))]))
        d.onProgress = { m, t in if t >= 1 && m.events.last?.ad?.adId == "a" { m.discardAdBreak() } }
        var position = MediaTime.zero
        while let cue = m.nextCuePoint(atOrAfter: position) {
            position = cue
            m.contentDidReachCuePoint(cue)
            if cue == MediaTime(seconds: 1) { m.discardAdBreak() }   // no break playing now: drops the next one (3 s)
        }
        #expect(m.state.breaks.map(\.state) == [.discarded, .discarded, .played])
        #expect(display.log.contains { $0.hasPrefix("ad fake-4.mp4") } && !display.log.contains("ad fake-4.mp4 120 frames"))
        #expect(d.log.filter { $0 == "resume" }.count == 2, "a discarded break still resumes content")
    }

    @Test func aFailingAdGoesOnWithThePodAndAFailedBreakResumesContent() async throws {
        let (m, display, d) = try await manager(Docs.vmap([("00:00:01", Docs.ad("bad", seconds: 1, media: "missing.mp4", sequence: 1) + Docs.ad("good", seconds: 1, sequence: 2)),
                                                           ("00:00:03", Docs.ad("bad2", seconds: 1, media: "missing.mp4"))]))
        play(m, display, until: 5)
        #expect(m.errors.map(\.code) == [401, 401])
        #expect(m.beacons.filter { $0.event == "error" }.map(\.url) == ["http://e.invalid/bad?c=401", "http://e.invalid/bad2?c=401"])
        #expect(m.state.breaks.map(\.state) == [.played, .failed])
        #expect(d.log.contains("AD_BREAK_FETCH_ERROR"))
        #expect(d.log.filter { $0 == "pause" }.count == 1, "no pause for a break with nothing to play")
    }

    @Test func standaloneAdsAreFallbacks() async throws {
        let (m, display, _) = try await manager(Docs.vmap([("00:00:01", Docs.ad("x", seconds: 1, media: "missing.mp4") + Docs.ad("y", seconds: 2) + Docs.ad("z", seconds: 1))]))
        play(m, display, until: 2)
        #expect(m.playedBreaks.first?.ads.map(\.ad.adId) == ["y"], "the first stand-alone ad that can play, and only it")
        #expect(m.errors.map(\.code) == [401])
    }

    @Test func nothingIsDeliveredAfterDestroy() async throws {
        let (m, display, d) = try await manager(Docs.vmap([("00:00:01", Docs.ad("a", seconds: 3)), ("end", Docs.ad("b", seconds: 1))]))
        d.onEvent = { m, e in if e.type == .firstQuartile { m.destroy() } }
        play(m, display, until: 4)
        #expect(d.log.last == "FIRST_QUARTILE")
        #expect(!d.log.contains("ALL_ADS_COMPLETED"))
    }

    @Test func clickedAndPauseNeedAPlayingAdAndCustomUI() async throws {
        let rendering = AdsRenderingSettings()
        rendering.disableUi = true
        let (m, display, d) = try await manager(Docs.vmap([("00:00:01", Docs.ad("a", seconds: 2))]), rendering: rendering)
        m.clicked()
        #expect(!d.log.contains("CLICKED"), "no ad playing")
        d.onEvent = { m, e in if e.type == .midpoint { m.clicked(); m.pause(); m.resume() } }
        play(m, display, until: 2)
        #expect(d.log.contains("CLICKED") && d.log.contains("PAUSE") && d.log.contains("RESUME"))
        let tracking = m.playedBreaks[0].ads[0].tracking
        #expect(tracking.contains { $0.event == "clickTracking" && $0.url == "http://t.invalid/click/a" })
        #expect(tracking.contains { $0.event == "pause" && $0.streamTime == MediaTime(seconds: 2) })
        #expect(m.playedBreaks[0].ads[0].ad.isUiDisabled)
    }

    /// The click-through goes to the rendering settings' `linkOpener` whether or not the app
    /// set a delegate: it is the app's link handler, not a delegate call.
    @Test func theLinkOpenerGetsTheClickThroughWithoutADelegate() async throws {
        let rendering = AdsRenderingSettings()
        rendering.disableUi = true
        let opened = Recorded<String>()
        rendering.linkOpener = { opened.append($0.absoluteString) }
        let (m, display, d) = try await manager(Docs.vmap([("00:00:01", Docs.ad("a", seconds: 2))]), rendering: rendering)
        d.onEvent = { m, e in if e.type == .midpoint { m.delegate = nil; m.clicked() } }
        play(m, display, until: 2)
        #expect(opened.all == ["http://landing.invalid/a"])
        #expect(m.events.contains { $0.type == .clicked })
    }

    @Test func mediaNamedByANetworkDocumentCannotBeLocal() async throws {
        let display = FakeDisplay()
        let server = try TestSupport.HTTPTestServer()
        defer { server.stop() }
        server.route("/vast.xml", body: "<VAST version=\"3.0\">\(Docs.ad("net", seconds: 1, media: "file:///etc/fake-1.mp4"))</VAST>")
        let request = AdsRequest(adTagUrl: server.url("/vast.xml"), adDisplayContainer: AdDisplayContainer(videoDisplay: display), contentPlayhead: nil)
        // Selection refuses it at load (as `inspect` shows): with no other ad, the response has
        // nothing to play, an ad-loading error as IMA reports one (the app plays its content).
        do {
            _ = try await AdsLoader.steppingOnMain().loadAds(request)
            Issue.record("a response whose only ad cannot play loaded")
        } catch let e as AdError {
            #expect(e.type == .adLoadingFailed && e.code == 403, "\(e)")
            #expect(e.message.contains("local file named by a network document"), "\(e)")
        }
        #expect(display.log.isEmpty)
    }
}
