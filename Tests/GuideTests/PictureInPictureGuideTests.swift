import Foundation
import Interlude
import Testing
import TestSupport

/// Runs the ported PiP guide app (PictureInPictureViewController) as fast as possible into a
/// frame stream and decodes it with the ffmpeg CLI: the PiP button pressed during content puts the
/// video in the window, a mid-roll reached in PiP plays there, and LOADED in PiP does not start a
/// VAST ad (the guide's rule) until the app is back in normal mode.
@MainActor @Suite(.serialized) struct PictureInPictureGuideTests {
    static let reader = IdentityReader(candidates: [PixelRect(x: 0, y: 0, width: 320, height: 180)])

    /// Content (source 7, 3 s) and a 1 s ad (source 3), with a local VMAP (mid-roll at 1.0 s) and
    /// a local VAST naming the local ad file.
    static func fixture() throws -> (content: URL, vmap: String, vast: String) {
        let content = try TestMedia.clip(sourceID: 7, width: 320, height: 180, fps: 30, seconds: 3)
        let ad = try TestMedia.clip(sourceID: 3, width: 320, height: 180, fps: 30, seconds: 1)
        let vast = """
            <VAST version="4.0"><Ad id="mid"><InLine><AdSystem>Local</AdSystem><AdTitle>mid</AdTitle><Impression/>
            <Creatives><Creative><Linear><Duration>00:00:01</Duration><MediaFiles>
            <MediaFile delivery="progressive" type="video/mp4" width="320" height="180"><![CDATA[\(ad.absoluteString)]]></MediaFile>
            </MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>
            """
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-pip-guide-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let vmap = dir.appendingPathComponent("vmap.xml"), vastURL = dir.appendingPathComponent("vast.xml")
        try Data("""
            <vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">
            <vmap:AdBreak timeOffset="00:00:01.000" breakType="linear" breakId="mid"><vmap:AdSource><vmap:VASTAdData>\(vast)</vmap:VASTAdData></vmap:AdSource></vmap:AdBreak>
            </vmap:VMAP>
            """.utf8).write(to: vmap)
        try Data(vast.utf8).write(to: vastURL)
        return (content, vmap.path, vastURL.path)
    }

    static func waitFor(_ what: @MainActor () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(60)
        while !what(), Date() < deadline { try await Task.sleep(nanoseconds: 10_000_000) }
    }

    static func app(_ content: URL, out: URL) throws -> PictureInPictureViewController {
        PictureInPictureViewController.ContentURLString = content.absoluteString
        PictureInPictureViewController.clock = .asFastAsPossible
        let vc = PictureInPictureViewController()
        vc.viewDidLoad()
        try? FileManager.default.removeItem(at: out)
        vc.view.attach(try EncodedOutput(url: out.path, container: .nut, format: vc.view.format, settings: EncoderSettings()))
        return vc
    }

    static func output(_ name: String) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-guide-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.appendingPathComponent(name)
    }

    @Test func aMidrollReachedInPipPlaysInTheWindow() async throws {
        let f = try Self.fixture()
        let out = try Self.output("pip-guide.nut")
        let vc = try Self.app(f.content, out: out)
        // the viewer presses the PiP button at content 0.5 s and again at stream 2.5 s
        vc.contentPlayer.addBoundaryTimeObserver(forTimes: [MediaTime(value: 1, timescale: 2)], queue: .main) {
            MainActor.assumeIsolated { vc.onPipButtonClicked() }
        }
        vc.contentPlayer.addStreamTimeObserver(forTimes: [MediaTime(value: 5, timescale: 2)], queue: .main) { _ in
            MainActor.assumeIsolated { vc.onPipButtonClicked() }
        }
        vc.requestAds(withTag: f.vmap)
        try await Self.waitFor { vc.log.contains("AdsManager event (ALL_ADS_COMPLETED).") && vc.contentPlayer.contentEnded }
        try vc.contentPlayer.close()
        #expect(vc.log.filter { $0.hasPrefix("PiP") } == ["PiP will start", "PiP did start", "PiP will stop", "PiP did stop"])
        #expect(vc.adsManager?.playedBreaks.first?.ads.first?.presentation == .pictureInPicture)
        let p = try await DecodedPictures.decode(out)
        #expect(p.frames.count == 120)
        let w = vc.pictureInPictureController.layer.windowRect(width: 320, height: 180)
        let window = IdentityReader(candidates: [PixelRect(x: w.x, y: w.y, width: w.width, height: w.height)])
        func id(_ r: IdentityReader, _ n: Int) -> Int { r.read(p.frames[n], width: 320, height: 180).identity.map { $0.sourceID * 1000 + $0.frameIndex } ?? -1 }
        for n in 0..<120 {
            switch n {
            case 0..<15, 75..<120: #expect(id(Self.reader, n) == 7000 + (n < 15 ? n : n - 30), "frame \(n) full size")
            case 15..<30: #expect(id(window, n) == 7000 + n, "frame \(n): content in the window")
            case 30..<60: #expect(id(window, n) == 3000 + n - 30, "frame \(n): the ad in the window")
            default: #expect(id(window, n) == 7000 + n - 30, "frame \(n): content in the window")
            }
        }
    }

    @Test func loadedInPipDoesNotStartTheAdUntilNormalMode() async throws {
        let f = try Self.fixture()
        let out = try Self.output("pip-guide-vast.nut")
        let vc = try Self.app(f.content, out: out)
        vc.onPipButtonClicked()
        vc.requestAds(withTag: f.vast)
        try await Self.waitFor { vc.log.contains("AdsManager event (LOADED).") }
        try await Task.sleep(nanoseconds: 100_000_000)
        let manager = try #require(vc.adsManager)
        #expect(!vc.log.contains("AdsManager event (STARTED).") && !manager.isPlayingAd, "the app did not start ads in PiP")
        #expect(manager.errors.isEmpty, "and so met no error")
        // back in normal mode, the ad can start (what the guide's FAQ says)
        vc.onPipButtonClicked()
        manager.start()
        try await Self.waitFor { vc.log.contains("AdsManager event (ALL_ADS_COMPLETED).") && vc.contentPlayer.contentEnded }
        try vc.contentPlayer.close()
        #expect(manager.playedBreaks.first?.ads.first?.presentation == .normal)
        let frames = try await MediaVerifier.videoFrames(out, reader: Self.reader)
        #expect(frames.count == 120 && frames.first?.identity?.sourceID == 3 && frames.last?.identity?.sourceID == 7)
    }
}
