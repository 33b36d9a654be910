import Foundation
import Testing
import Timing
import TestSupport
import Playback
@testable import Interlude

/// IMA's getting-started flow, step by step, as an app on a stitching player: one loader, a
/// request, adsLoadedWith → initialize → LOADED → start → content pause/resume → contentComplete
/// → post-roll → ALL_ADS_COMPLETED. The manager decides on its own queue; this app hears it on
/// the main queue, as IMA's apps do.
@MainActor final class PlayerApp: @preconcurrency AdsLoaderDelegate, @preconcurrency AdsManagerDelegate {
    let loader = AdsLoader()
    let player: Player
    let playhead: PlayerContentPlayhead
    let container: AdDisplayContainer
    var adsManager: AdsManager?
    var steps: [String] = []
    var loaded: CheckedContinuation<Void, Never>?
    var finished: CheckedContinuation<Void, Never>?
    nonisolated(unsafe) private var endObserver: NSObjectProtocol?   // set once, read in deinit

    init(player: Player) {
        self.player = player
        playhead = PlayerContentPlayhead(player: player)
        container = AdDisplayContainer(videoDisplay: PlayerVideoDisplay(player: player))
        loader.delegate = self
        endObserver = NotificationCenter.default.addObserver(forName: .PlayerItemDidPlayToEndTime, object: player.currentItem,
                                                             queue: nil) { [weak self] _ in
            DispatchQueue.main.async { MainActor.assumeIsolated { self?.contentEnded() } }
        }
    }

    deinit { if let endObserver { NotificationCenter.default.removeObserver(endObserver) } }

    func requestAds(tag: String) async {
        steps.append("requestAds")
        await withCheckedContinuation { c in
            loaded = c
            loader.requestAds(AdsRequest(adTagUrl: tag, adDisplayContainer: container, contentPlayhead: playhead))
        }
    }

    /// Waits for ALL_ADS_COMPLETED.
    func untilAllAdsCompleted() async {
        await withCheckedContinuation { finished = $0 }
    }

    func adsLoader(_ loader: AdsLoader, adsLoadedWith data: AdsLoadedData) {
        steps.append("adsLoadedWith")
        adsManager = data.adsManager
        adsManager?.delegate = self
        adsManager?.initialize(with: nil)
        loaded?.resume(); loaded = nil
    }

    func adsLoader(_ loader: AdsLoader, failedWith error: AdLoadingErrorData) {
        steps.append("failedWith \(error.adError.code)")
        loaded?.resume(); loaded = nil
    }

    func adsManager(_ m: AdsManager, didReceive event: AdEvent) {
        steps.append(event.typeString)
        if event.type == .loaded { m.start() }
        if event.type == .allAdsCompleted { finished?.resume(); finished = nil }
    }
    func adsManager(_ m: AdsManager, didReceive error: AdError) { steps.append("error \(error.code)") }
    func adsManagerDidRequestContentPause(_ m: AdsManager) {
        steps.append("pause content at \(playhead.currentTime)")
        player.pause()
    }
    func adsManagerDidRequestContentResume(_ m: AdsManager) {
        steps.append("resume content")
        player.play()
    }

    /// The content ended: contentComplete plays the post-roll.
    func contentEnded() {
        steps.append("content ended")
        loader.contentComplete()
    }
}

@MainActor @Suite struct GettingStartedFlowTests {
    @Test func theGettingStartedFlow() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-flow-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let content = try await TestMedia.clip(sourceID: 7, width: 320, height: 180, fps: 30, seconds: 3)
        let ad = TestMedia.Sample.adMatching.url.path
        let vmap = dir.appendingPathComponent("rules.xml")
        let inline = { (id: String) in
            "<VAST version=\"4.0\"><Ad id=\"\(id)\"><InLine><AdSystem>Flow</AdSystem><AdTitle>\(id)</AdTitle><Impression>http://i.invalid/\(id)</Impression><Creatives><Creative><Linear><Duration>00:00:06</Duration><MediaFiles><MediaFile delivery=\"progressive\" type=\"video/mp4\">\(ad)</MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>"
        }
        try """
        <vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">
        <vmap:AdBreak timeOffset="start" breakType="linear" breakId="pre"><vmap:AdSource><vmap:VASTAdData>\(inline("pre"))</vmap:VASTAdData></vmap:AdSource></vmap:AdBreak>
        <vmap:AdBreak timeOffset="end" breakType="linear" breakId="post"><vmap:AdSource><vmap:VASTAdData>\(inline("post"))</vmap:VASTAdData></vmap:AdSource></vmap:AdBreak>
        </vmap:VMAP>
        """.write(to: vmap, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("flow.nut")
        let player = try Player(stitching: StitchRequest(content: content.path, breaks: [], output: out.path,
                                                         container: .nut, overwrite: true))
        let app = PlayerApp(player: player)
        await app.requestAds(tag: vmap.path)
        await app.untilAllAdsCompleted()
        try player.close()
        let ad6 = ["LOADED", "STARTED", "FIRST_QUARTILE", "MIDPOINT", "THIRD_QUARTILE", "COMPLETE"]
        #expect(app.steps == ["requestAds", "adsLoadedWith", "CUEPOINTS_CHANGED",
                              "pause content at 0.0", "AD_BREAK_STARTED"] + ad6 + ["AD_BREAK_ENDED", "resume content",
                              "content ended",
                              "pause content at 2.966666666666667", "AD_BREAK_STARTED"] + ad6 + ["AD_BREAK_ENDED", "resume content",
                              "ALL_ADS_COMPLETED"], "\(app.steps)")
        #expect(app.adsManager?.adCuePoints == [0, -1])
        // the output really holds pre-roll, content, post-roll
        let frames = try await MediaVerifier.videoFrames(out, reader: IdentityReader(output: PixelSize(width: 320, height: 180),
                                                                               sources: [PixelSize(width: 640, height: 360), PixelSize(width: 320, height: 180)]))
        #expect(MediaVerifier.segments(frames).map(\.sourceID) == [2, 7, 2])
        #expect(frames.count == 180 + 90 + 180)
        // the player's playhead (a ContentPlayhead) is the last content frame presented
        #expect(player.currentTime() == MediaTime(value: 89, timescale: 30))
        // a second loader request reuses the same loader
        await app.requestAds(tag: dir.appendingPathComponent("missing.xml").path)
        #expect(app.steps.last == "failedWith 301")
    }
}
