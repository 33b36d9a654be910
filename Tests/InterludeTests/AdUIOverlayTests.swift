import Draw
import Foundation
import Media
import Testing
import Timing
import TestSupport
import Playback
@testable import Interlude

/// VAST NonLinear overlays in a tag stitch, against a real HTTP server: a VMAP
/// `breakType="nonlinear"` break at 1 s with three overlay ads — a PNG served over HTTP (drawn),
/// an HTMLResource (503) and a local path named by the network document (refused) — decoded
/// (NUT, lossless) and compared with the content stitched alone.
@MainActor @Suite(.serialized) struct AdUIOverlayTests {
    /// A single VAST response whose ad is an overlay (no ad rules): nothing pauses content, so the
    /// manager asks for it to start (it used to wait for a resume that never came, and the stitch
    /// hung); the overlay shows over the content from its first frame.
    @Test func aSingleVASTOverlayAdLetsContentStart() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-overlay-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let png = dir.appendingPathComponent("banner.png")
        _ = try await Tools.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=white:s=160x40", "-frames:v", "1", png.path])
        let vast = """
            <VAST version="3.0"><Ad id="ov"><InLine><AdSystem>T</AdSystem><AdTitle>ov</AdTitle>
            <Creatives><Creative><NonLinearAds><NonLinear width="160" height="40" minSuggestedDuration="00:00:00.800">
            <StaticResource creativeType="image/png"><![CDATA[\(png.path)]]></StaticResource></NonLinear>
            </NonLinearAds></Creative></Creatives></InLine></Ad></VAST>
            """
        let content = try await TestMedia.clip(sourceID: 1, width: 320, height: 180, fps: 25, seconds: 2)
        let out = dir.appendingPathComponent("single.nut")
        let stitcher = TagStitcher(output: StitchRequest(content: content.path, breaks: [], output: out.path, container: .nut),
                                   adsResponse: vast)
        stitcher.cache = AdMediaCache(directory: dir.appendingPathComponent("cache"))
        // a deadline, so that a regression fails instead of hanging the suite
        final class Outcome { var result: Result<StitchResult, Error>? }
        let outcome = Outcome()
        Task { @MainActor in
            do { outcome.result = .success(try await stitcher.run()) } catch { outcome.result = .failure(error) }
        }
        for _ in 0..<600 where outcome.result == nil { try await Task.sleep(nanoseconds: 100_000_000) }
        let result = try #require(outcome.result, "the stitch did not finish within 60 s").get()
        #expect(result.videoFrames == 50 && result.breaks.isEmpty && stitcher.delegateLog.contains("contentResume"), "\(stitcher.delegateLog)")
        let frames = try await DecodedPictures.decode(out)
        #expect(frames.frames.count == 50)
    }

    @Test func anOverlayShowsOverPlayingContentForItsDurationWithBeacons() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-overlay-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // a 160x40 banner: solid white (luma 235) inside a 4 px black frame
        let png = dir.appendingPathComponent("banner.png")
        _ = try await Tools.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=white:s=160x40,drawbox=x=0:y=0:w=160:h=40:color=black:t=4",
                              "-frames:v", "1", png.path])
        let server = try HTTPTestServer()
        defer { server.stop() }
        server.route("/banner.png", .init(status: 200, headers: ["Content-Type": "image/png"], body: try Data(contentsOf: png)))
        func ad(_ id: String, _ seq: Int, _ resource: String) -> String {
            """
            <Ad id="\(id)" sequence="\(seq)"><InLine><AdSystem>T</AdSystem><AdTitle>\(id)</AdTitle><Impression><![CDATA[\(server.url("/imp?ad=\(id)"))]]></Impression>
            <Error><![CDATA[\(server.url("/err?ad=\(id)&code=[ERRORCODE]"))]]></Error>
            <Creatives><Creative><NonLinearAds><NonLinear width="160" height="40" minSuggestedDuration="00:00:00.800">\(resource)</NonLinear>
            <TrackingEvents><Tracking event="creativeView"><![CDATA[\(server.url("/cv?ad=\(id)"))]]></Tracking>
            <Tracking event="close"><![CDATA[\(server.url("/close?ad=\(id)"))]]></Tracking></TrackingEvents>
            </NonLinearAds></Creative></Creatives></InLine></Ad>
            """
        }
        server.route("/vmap.xml", body: """
            <vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">
            <vmap:AdBreak timeOffset="00:00:01.000" breakType="nonlinear" breakId="ov">
            <vmap:AdSource allowMultipleAds="true"><vmap:VASTAdData><VAST version="3.0">
            \(ad("img", 1, "<StaticResource creativeType=\"image/png\"><![CDATA[\(server.url("/banner.png"))]]></StaticResource>"))
            \(ad("html", 2, "<HTMLResource><![CDATA[<b>hi</b>]]></HTMLResource>"))
            \(ad("local", 3, "<StaticResource creativeType=\"image/png\"><![CDATA[\(png.path)]]></StaticResource>"))
            </VAST></vmap:VASTAdData></vmap:AdSource></vmap:AdBreak></vmap:VMAP>
            """)
        let content = try await TestMedia.clip(sourceID: 1, width: 320, height: 180, fps: 25, seconds: 2)
        let out = dir.appendingPathComponent("overlay.nut"), plainOut = dir.appendingPathComponent("plain.nut")
        let stitcher = TagStitcher(output: StitchRequest(content: content.path, breaks: [], output: out.path, container: .nut),
                                   adTag: server.url("/vmap.xml"))
        stitcher.cache = AdMediaCache(directory: dir.appendingPathComponent("cache"))
        let result = try await stitcher.run()
        _ = try Stitcher(request: StitchRequest(content: content.path, breaks: [], output: plainOut.path, container: .nut)).run()

        // content played on: 50 frames, in order, no ad break
        #expect(result.videoFrames == 50 && result.breaks.isEmpty)
        let frames = try await MediaVerifier.videoFrames(out, reader: IdentityReader(output: PixelSize(width: 320, height: 180),
                                                                                sources: [PixelSize(width: 320, height: 180)]))
        let segments = MediaVerifier.segments(frames)
        #expect(segments.count == 1 && segments.first?.sourceID == 1 && segments.first?.firstFrame == 0 && segments.first?.lastFrame == 49,
                "\(segments)")
        // the banner on frames 25..<45 (1 s for 0.8 s), at its VAST size, bottom centre; nothing else changed
        let drawn = try await DecodedPictures.decode(out), plain = try await DecodedPictures.decode(plainOut)
        let rect = ScheduledOverlay(adId: "", breakId: "", image: AdUIImage(try RGBAImage.filled(width: 160, height: 40, r: 0, g: 0, b: 0)),
                                    width: 160, height: 40, contentStart: .zero, contentEnd: .zero).rect(frameWidth: 320, frameHeight: 180)
        #expect(rect == Draw.PixelRect(x: 80, y: 131, width: 160, height: 40))
        for n in 0..<50 {
            if (25..<45).contains(n) {
                #expect(drawn.mean(frame: n, x: rect.x + 8, y: (rect.y & ~1) + 8, width: 144, height: 24) > 250, "banner on frame \(n)")
                #expect(drawn.frames[n] != plain.frames[n])
                #expect(Array(drawn.frames[n][0..<(320 * 120)]) == Array(plain.frames[n][0..<(320 * 120)]), "above the banner untouched, frame \(n)")
            } else {
                #expect(drawn.frames[n] == plain.frames[n], "frame \(n) as the content")
            }
        }
        // beacons: impression and creativeView at the cue, close when it ends (stream 1.8 s); errors for the others
        let beacons = result.beacons.filter { $0.adId == "img" }
        #expect(beacons.map(\.event) == ["impression", "creativeView", "close"])
        #expect(beacons.map(\.streamTime) == [MediaTime(value: 1, timescale: 1), MediaTime(value: 1, timescale: 1), MediaTime(value: 9, timescale: 5)])
        #expect(result.errors.map(\.code).sorted() == [502, 503], "\(result.errors.map(\.message))")
        #expect(result.errors.first { $0.code == 503 }?.message.contains("HTMLResource") == true)
        #expect(result.beacons.contains { $0.event == "error" && $0.url.contains("ad=html&code=503") })
        // the local file named by a network document was never read
        #expect(result.errors.first { $0.code == 502 }?.adId == "local")
    }
}
