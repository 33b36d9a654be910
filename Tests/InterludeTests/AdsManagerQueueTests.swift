import Foundation
import Playback
import Testing
import TestSupport
import Timing
@testable import Interlude

/// Issue 19, item 3: the manager decides on a queue of its own, the frame loop never waits for the
/// app's queue, and the delegate hears everything, in order, on the queue the app named.
@Suite struct AdsManagerQueueTests {
    /// An app on a stitching player that lives on a queue of its own (IMA's getting-started flow:
    /// start on LOADED, pause and play the content on the manager's requests, contentComplete at
    /// the end). It counts the delegate calls that did not come on its queue.
    final class QueueApp: @unchecked Sendable, AdsLoaderDelegate, AdsManagerDelegate {
        // @unchecked Sendable: every mutable field is touched on `queue` only (the delegate calls,
        // the end observer's hop), and read by the test after `finished` has run.
        let queue = DispatchQueue(label: "interlude.test.queue-app")
        private let key = DispatchSpecificKey<Int>()
        let player: Player
        let loader: AdsLoader
        private(set) var log: [String] = []
        private(set) var offQueue = 0
        private(set) var manager: AdsManager?
        /// What the app does on an ad's progress (on `queue`).
        var onProgress: ((AdsManager, Double) -> Void)?
        private var finished: CheckedContinuation<Void, Never>?
        private var endObserver: NSObjectProtocol?

        init(player: Player) {
            self.player = player
            queue.setSpecific(key: key, value: 1)
            loader = AdsLoader(settings: nil, delegateQueue: queue)
            loader.delegate = self
            endObserver = NotificationCenter.default.addObserver(forName: .PlayerItemDidPlayToEndTime, object: player.currentItem,
                                                                 queue: nil) { [weak self] _ in
                guard let self else { return }
                self.queue.async { self.loader.contentComplete() }
            }
        }

        deinit { if let endObserver { NotificationCenter.default.removeObserver(endObserver) } }

        /// Requests the ads of `tag` and returns once ALL_ADS_COMPLETED (or a loading error) was heard.
        func run(tag: String) async {
            await withCheckedContinuation { c in
                queue.async {
                    self.finished = c
                    self.loader.requestAds(AdsRequest(adTagUrl: tag, adDisplayContainer: AdDisplayContainer(videoDisplay: PlayerVideoDisplay(player: self.player)),
                                                      contentPlayhead: PlayerContentPlayhead(player: self.player)))
                }
            }
        }

        private func note(_ s: String) {
            if DispatchQueue.getSpecific(key: key) != 1 { offQueue += 1 }
            log.append(s)
        }
        private func finish() { finished?.resume(); finished = nil }

        func adsLoader(_ loader: AdsLoader, adsLoadedWith data: AdsLoadedData) {
            note("loaded")
            manager = data.adsManager
            manager?.delegate = self
            manager?.initialize(with: nil)
        }
        func adsLoader(_ loader: AdsLoader, failedWith error: AdLoadingErrorData) { note("failed \(error.adError.code)"); finish() }
        func adsManager(_ m: AdsManager, didReceive event: AdEvent) {
            note(event.typeString)
            if event.type == .loaded { m.start() }
            if event.type == .allAdsCompleted { finish() }
        }
        func adsManager(_ m: AdsManager, didReceive error: AdError) { note("error \(error.code)"); player.play() }
        func adsManagerDidRequestContentPause(_ m: AdsManager) { note("pause"); player.pause() }
        func adsManagerDidRequestContentResume(_ m: AdsManager) { note("resume"); player.play() }
        func adsManager(_ m: AdsManager, adDidProgressToTime t: Double, totalTime: Double) {
            if DispatchQueue.getSpecific(key: key) != 1 { offQueue += 1 }
            onProgress?(m, t)
        }
    }

    /// Content (2 s, 25 fps) and two 1 s ads, a VMAP with a pre-roll, a pod of both at 1 s and a post-roll.
    static func fixture(_ name: String) async throws -> (dir: URL, vmap: URL, content: URL) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-queue-\(name)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let content = try await TestMedia.clip(sourceID: 1, width: 320, height: 180, fps: 25, seconds: 2)
        let ads = try await [TestMedia.clip(sourceID: 2, width: 320, height: 180, fps: 25, seconds: 1),
                             TestMedia.clip(sourceID: 3, width: 320, height: 180, fps: 25, seconds: 1)]
        func inline(_ id: String, _ ad: URL, skip: String? = nil) -> String {
            "<Ad id=\"\(id)\"><InLine><AdSystem>Queue</AdSystem><AdTitle>\(id)</AdTitle><Impression>http://i.invalid/\(id)</Impression><Creatives><Creative><Linear\(skip.map { " skipoffset=\"\($0)\"" } ?? "")><Duration>00:00:01</Duration><MediaFiles><MediaFile delivery=\"progressive\" type=\"video/mp4\" width=\"320\" height=\"180\">\(ad.path)</MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad>"
        }
        func vastBreak(_ offset: String, _ id: String, _ body: String) -> String {
            "<vmap:AdBreak timeOffset=\"\(offset)\" breakType=\"linear\" breakId=\"\(id)\"><vmap:AdSource allowMultipleAds=\"true\"><vmap:VASTAdData><VAST version=\"4.0\">\(body)</VAST></vmap:VASTAdData></vmap:AdSource></vmap:AdBreak>"
        }
        let vmap = dir.appendingPathComponent("rules.xml")
        try ("<vmap:VMAP xmlns:vmap=\"http://www.iab.net/videosuite/vmap\" version=\"1.0\">"
             + vastBreak("start", "pre", inline("pre", ads[0]))
             + vastBreak("00:00:01.000", "mid", inline("mid-a", ads[1], skip: "00:00:00.200").replacingOccurrences(of: "<Ad id", with: "<Ad sequence=\"1\" id")
                                                + inline("mid-b", ads[0]).replacingOccurrences(of: "<Ad id", with: "<Ad sequence=\"2\" id"))
             + vastBreak("end", "post", inline("post", ads[1]))
             + "</vmap:VMAP>").write(to: vmap, atomically: true, encoding: .utf8)
        return (dir, vmap, content)
    }

    static let expectedLog: [String] = {
        let ad = ["LOADED", "STARTED", "FIRST_QUARTILE", "MIDPOINT", "THIRD_QUARTILE", "COMPLETE"]
        var log = ["loaded", "CUEPOINTS_CHANGED"]
        log += ["pause", "AD_BREAK_STARTED"] + ad + ["AD_BREAK_ENDED", "resume"]
        log += ["pause", "AD_BREAK_STARTED"] + ad + ad + ["AD_BREAK_ENDED", "resume"]
        log += ["pause", "AD_BREAK_STARTED"] + ad + ["AD_BREAK_ENDED", "resume", "ALL_ADS_COMPLETED"]
        return log
    }()

    /// A skip asked from the app's queue on an ad's progress takes effect without the loop
    /// waiting for it: the skippable ad ends after its skip offset and before its end, SKIPPED
    /// and the `skip` beacon are recorded, and the next ad of the pod plays in full.
    @Test func aSkipFromTheAppsQueueEndsTheAdAtALaterFrame() async throws {
        let (dir, vmap, content) = try await Self.fixture("skip")
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.nut")
        let player = try Player(stitching: StitchRequest(content: content.path, breaks: [], output: out.path, container: .nut))
        player.stallTimeout = 30
        let app = QueueApp(player: player)
        app.onProgress = { m, t in if t >= 0.2 && m.events.last?.ad?.adId == "mid-a" { m.skip() } }
        await app.run(tag: vmap.path)
        try player.close()
        let manager = try #require(app.manager)
        let pod = try #require(manager.playedBreaks.first { $0.id == "mid" })
        #expect(pod.ads.map(\.skipped) == [true, false])
        let skipped = pod.ads[0].placement.duration
        #expect(skipped >= MediaTime(value: 1, timescale: 5) && skipped < MediaTime(seconds: 1), "\(skipped.seconds) s of the 1 s ad")
        #expect(pod.ads[1].placement.duration == MediaTime(seconds: 1))
        #expect(manager.events.contains { $0.type == .skipped && $0.ad?.adId == "mid-a" })
        #expect(app.log.contains("SKIPPED") && app.offQueue == 0)
    }

    /// Nothing reaches the delegate once the manager is destroyed, even what was queued for it
    /// before (the delegate's queue held while the manager decided).
    @Test func nothingQueuedReachesTheDelegateAfterDestroy() async throws {
        let display = FakeDisplay()
        let queue = DispatchQueue(label: "interlude.test.held-delegate")
        let loader = AdsLoader(settings: nil, delegateQueue: queue)
        let request = AdsRequest(adsResponse: Docs.vmap([("start", Docs.ad("a", seconds: 1))]),
                                 adDisplayContainer: AdDisplayContainer(videoDisplay: display), contentPlayhead: nil)
        let m = try await loader.loadAds(request).adsManager
        let heard = Recorded<String>()
        let d = SendableRecorder(heard)
        m.delegate = d
        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() }   // the delegate's queue is held: deliveries wait behind this
        let rendering = AdsRenderingSettings()
        rendering.enablePreloading = false   // the fake display's media is no file: nothing to fetch ahead
        m.initialize(with: rendering)
        m.contentDidReachCuePoint(.zero)   // the pre-roll plays (the fake display at once)
        #expect(m.events.count > 5, "the manager decided and recorded without its delegate")
        m.destroy()
        gate.signal()
        await withCheckedContinuation { c in queue.async { c.resume() } }
        #expect(heard.all.isEmpty, "\(heard.all)")
    }
}

/// A delegate that only records, from whatever queue it is called on.
private final class SendableRecorder: AdsManagerDelegate {
    let heard: Recorded<String>
    init(_ heard: Recorded<String>) { self.heard = heard }
    func adsManager(_ m: AdsManager, didReceive event: AdEvent) { heard.append(event.typeString) }
    func adsManager(_ m: AdsManager, didReceive error: AdError) { heard.append("error") }
    func adsManagerDidRequestContentPause(_ m: AdsManager) { heard.append("pause") }
    func adsManagerDidRequestContentResume(_ m: AdsManager) { heard.append("resume") }
}

/// In the serial pass with the other tests that hold the main thread.
extension BlockedMainStitchTests {
    /// The whole flow with the main thread held from before the request to after the end: the
    /// stitch completes (the manager never needs the main queue), every delegate call came on the
    /// app's queue, in the order of the manager's own event list, and the output holds pre-roll,
    /// content, the pod, content, post-roll.
    @Test func aStitchWithItsAppOnItsOwnQueueNeverNeedsTheMainThread() async throws {
        let (dir, vmap, content) = try await AdsManagerQueueTests.fixture("own")
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.nut")
        let player = try Player(stitching: StitchRequest(content: content.path, breaks: [], output: out.path, container: .nut))
        player.stallTimeout = 30
        let app = AdsManagerQueueTests.QueueApp(player: player)
        let hold = MainThreadHold()
        try await hold.during {
            await app.run(tag: vmap.path)
            try player.close()
        }
        #expect(hold.wasHeldThroughout, "the main thread was held for the whole stitch")
        #expect(app.offQueue == 0, "every delegate call came on the app's queue")
        #expect(app.log == AdsManagerQueueTests.expectedLog, "\(app.log)")
        let manager = try #require(app.manager)
        #expect(app.log.dropFirst().filter { $0 != "pause" && $0 != "resume" } == manager.events.map(\.typeString),
                "the delegate heard the manager's events in its order")
        let frames = try await MediaVerifier.videoFrames(out, reader: IdentityReader(output: PixelSize(width: 320, height: 180),
                                                                                  sources: [PixelSize(width: 320, height: 180)]))
        #expect(MediaVerifier.segments(frames).map(\.sourceID) == [2, 1, 3, 2, 1, 3], "\(MediaVerifier.segments(frames))")
        #expect(frames.count == 4 * 25 + 50)
    }
}
