import Foundation
import Interlude
import Testing
import TestSupport

/// Runs the ported custom-UI guide app (CustomUIViewController.swift) as fast as possible into a
/// NUT file and compares it, decoded by the ffmpeg CLI, with the same player and tag played
/// without any ad UI: the app's countdown, skip and "Learn more" views appear on ad frames only,
/// the skip button only on the skippable ad and with "Skip ad" from its skip offset, content
/// frames are bit-identical.
@MainActor @Suite(.serialized) struct CustomUIGuideTests {
    // 320x180 @ 25 fps: content 0..<25, ad 1 25..<100 (3 s, skippable at 1.4 s), ad 2 100..<150, content 150..<175
    static let ad1 = 25..<100, ad2 = 100..<150
    static let content = Array(0..<25) + Array(150..<175)

    static func fixture(_ dir: URL) throws -> (content: URL, tag: URL) {
        func media(_ id: Int, _ seconds: Double) throws -> URL {
            try TestMedia.derived(from: TestMedia.clip(sourceID: id, width: 320, height: 180, fps: 25, seconds: seconds),
                                  name: "adui-s\(id)-\(seconds)s.mkv",
                                  arguments: ["-vf", "drawbox=x=0:y=0:w=iw:h=40:color=0x808080:t=fill,drawbox=x=0:y=ih-60:w=iw:h=60:color=0x606060:t=fill",
                                              "-c:v", "ffv1", "-c:a", "copy"])
        }
        func ad(_ id: String, _ seq: Int, _ media: URL, _ seconds: Int, skip: String?) -> String {
            """
            <Ad id="\(id)" sequence="\(seq)"><InLine><AdSystem>T</AdSystem><AdTitle>\(id)</AdTitle><Impression><![CDATA[http://127.0.0.1:9/i]]></Impression>
            <Creatives><Creative><Linear\(skip.map { " skipoffset=\"\($0)\"" } ?? "")><Duration>00:00:0\(seconds)</Duration>
            <VideoClicks><ClickThrough><![CDATA[https://example.com/learn]]></ClickThrough></VideoClicks>
            <MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="320" height="180"><![CDATA[\(media.path)]]></MediaFile></MediaFiles>
            </Linear></Creative></Creatives>
            <Extensions><Extension type="uiSettings"><UiHideable>1</UiHideable></Extension></Extensions></InLine></Ad>
            """
        }
        let vmap = """
            <vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">
            <vmap:AdBreak timeOffset="00:00:01.000" breakType="linear" breakId="mid">
            <vmap:AdSource id="pod" allowMultipleAds="true" followRedirects="true"><vmap:VASTAdData>
            <VAST version="3.0">\(ad("one", 1, try media(7, 3), 3, skip: "00:00:01.400"))\(ad("two", 2, try media(9, 2), 2, skip: nil))</VAST>
            </vmap:VASTAdData></vmap:AdSource></vmap:AdBreak></vmap:VMAP>
            """
        let tag = dir.appendingPathComponent("vmap.xml")
        try Data(vmap.utf8).write(to: tag)
        return (try TestMedia.clip(sourceID: 1, width: 320, height: 180, fps: 25, seconds: 2), tag)
    }

    static func crop(_ p: DecodedPictures, _ n: Int, _ r: Interlude.PixelRect) -> [UInt8] {
        var out: [UInt8] = []
        for row in r.y..<(r.y + r.height) {
            let start: Int = row * p.width + r.x
            out += p.frames[n][start..<(start + r.width)]
        }
        return out
    }

    @Test func theGuidesCustomUIIsDrawnOnAdFramesOnly() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-customui-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let (content, tag) = try Self.fixture(dir)

        // the app of the guide
        CustomUIViewController.ContentURLString = content.absoluteString
        CustomUIViewController.AdTagURLString = tag.path
        CustomUIViewController.clock = .asFastAsPossible
        let vc = CustomUIViewController()
        vc.viewDidLoad()
        let guideOut = dir.appendingPathComponent("guide.nut")
        vc.view.attach(try EncodedOutput(url: guideOut.path, container: .nut, format: vc.view.format, settings: EncoderSettings()))
        vc.viewDidAppear(true)
        let deadline = Date().addingTimeInterval(60)
        while !(vc.log.contains("ALL_ADS_COMPLETED") && vc.player.contentEnded), Date() < deadline {
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        #expect(vc.log.contains("ALL_ADS_COMPLETED"), "\(vc.log)")
        // the learn-more button's frame is a hit area on the last ad frame drawn
        #expect(vc.view.adUISubviews?.button(atX: 20, y: 20) === vc.learnMore)
        try vc.player.close()
        // the guide's "%.f" rounds to the nearest second: 1.4 s to skip reads "1"
        #expect(vc.log.contains { $0.hasPrefix("skip title Skip this ad in 1... at 0.00") }, "\(vc.log)")
        #expect(vc.log.contains { $0.hasPrefix("skip title Skip this ad in 0... at 1.20") }, "\(vc.log)")
        #expect(vc.log.contains { $0.hasPrefix("skip title Skip ad at 1.40") }, "\(vc.log)")
        #expect(!vc.log.contains { $0.hasPrefix("skip title Skip ad at 1.20") })

        // the same tag played without any UI, as `interlude play --ad-ui none` plays it
        let plainOut = dir.appendingPathComponent("plain.nut")
        var job = PlayJob(content: content.path)
        job.adTag = tag.path
        job.adUI = AdUIChoice.none
        job.output = plainOut.path
        job.format = .nut
        job.clock = .asFastAsPossible
        _ = try await job.run()

        let guide = try await DecodedPictures.decode(guideOut), plain = try await DecodedPictures.decode(plainOut)
        #expect(guide.frames.count == 175 && plain.frames.count == 175)
        guard guide.frames.count == 175, plain.frames.count == 175 else { return }
        for n in Self.content { #expect(guide.frames[n] == plain.frames[n], "content frame \(n) bit-identical") }
        let countdown = vc.adCountdown.frame, skip = vc.skipAd.frame, learn = vc.learnMore.frame
        let untouched = Interlude.PixelRect(x: 120, y: 44, width: 160, height: 70)
        // STARTED reaches the app after the ad's first frame: the views show from the next frames on
        for n in Array(Self.ad1.dropFirst(3)) + Array(Self.ad2.dropFirst(5)) {
            #expect(Self.crop(guide, n, countdown) != Self.crop(plain, n, countdown), "countdown on frame \(n)")
            #expect(Self.crop(guide, n, learn) != Self.crop(plain, n, learn), "learn more on frame \(n)")
            #expect(Self.crop(guide, n, untouched) == Self.crop(plain, n, untouched), "nothing else drawn on frame \(n)")
            #expect((Self.crop(guide, n, skip) != Self.crop(plain, n, skip)) == Self.ad1.contains(n), "skip button on the skippable ad only, frame \(n)")
        }
        // "Skip this ad in 1..." until the progress callback at 1.4 s (ad frame 35), "Skip ad" after
        let before = Self.crop(guide, Self.ad1.lowerBound + 30, skip), after = Self.crop(guide, Self.ad1.lowerBound + 40, skip)
        #expect(before != after)
        #expect((40..<74).allSatisfy { Self.crop(guide, Self.ad1.lowerBound + $0, skip) == after })
    }
}
