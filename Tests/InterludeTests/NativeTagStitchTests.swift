import Ads
import Foundation
import Interlude
import Testing
import TestSupport

/// Native breaks in a tag stitch (`TagStitcher.nativeBreaks`) beside the tag's VAST breaks: the
/// VAST ads play through AdsLoader/AdsManager, the native ones are drawn by their template, each
/// where its cue puts it; the output is decoded with the ffmpeg CLI.
@MainActor @Suite(.serialized) struct NativeTagStitchTests {
    static func vast(_ media: String, id: String) -> String {
        """
        <VAST version="3.0"><Ad id="\(id)"><InLine><AdSystem>t</AdSystem><AdTitle>\(id)</AdTitle><Impression>http://i.invalid/\(id)</Impression>
        <Creatives><Creative><Linear><Duration>00:00:01</Duration><MediaFiles>
        <MediaFile delivery="progressive" type="video/mp4" width="320" height="180"><![CDATA[\(media)]]></MediaFile>
        </MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>
        """
    }

    /// A tag stitch (no ad UI, NUT output) of `contentSeconds` of content (source 1) with `vmap`'s
    /// VAST pre-roll (source 7, 1 s) and mid-roll at `midOffset` (source 8, 1 s): the stitcher,
    /// the content and the output.
    static func stitcher(contentSeconds: Double, midOffset: String) throws -> (TagStitcher, URL, URL) {
        let content = try TestMedia.clip(sourceID: 1, width: 320, height: 180, fps: 25, seconds: contentSeconds)
        let pre = try TestMedia.clip(sourceID: 7, width: 320, height: 180, fps: 25, seconds: 1)
        let mid = try TestMedia.clip(sourceID: 8, width: 320, height: 180, fps: 25, seconds: 1)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-native-tag-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let out = dir.appendingPathComponent("o.nut")
        let stitcher = TagStitcher(output: StitchRequest(content: content.path, breaks: [], output: out.path, container: .nut),
                                   adsResponse: Self.vmap(pre: pre.path, mid: mid.path, midOffset: midOffset))
        stitcher.drawsDefaultAdUI = false
        return (stitcher, content, out)
    }

    static func vmap(pre: String, mid: String, midOffset: String = "00:00:02.000", extra: String = "") -> String {
        """
        <vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">
        <vmap:AdBreak timeOffset="start" breakType="linear" breakId="pre"><vmap:AdSource><vmap:VASTAdData>\(vast(pre, id: "pre"))</vmap:VASTAdData></vmap:AdSource></vmap:AdBreak>
        <vmap:AdBreak timeOffset="\(midOffset)" breakType="linear" breakId="mid"><vmap:AdSource><vmap:VASTAdData>\(vast(mid, id: "mid"))</vmap:VASTAdData></vmap:AdSource></vmap:AdBreak>
        \(extra)</vmap:VMAP>
        """
    }

    @Test func vastAndNativeBreaksEachPlayAtTheirCueWithContentOnceAndInOrder() async throws {
        let f = try NativeAdServer()
        let ad = try await NativeRenderTests.ad(f), lbarAd = try await NativeRenderTests.ad(f)
        let (stitcher, content, out) = try Self.stitcher(contentSeconds: 5, midOffset: "00:00:02.000")
        stitcher.nativeBreaks = [
            NativeBreak(position: .time(MediaTime(seconds: 1)), ad: ad, layout: .fullFrame, template: try NativeRenderTests.template("template")),
            NativeBreak(position: .time(MediaTime(seconds: 3)), ad: lbarAd, layout: .lBar, template: try NativeRenderTests.template("lbar")),
        ]
        let r = try await stitcher.run()
        #expect(r.errors.isEmpty, "\(r.errors)")
        #expect(r.playedBreaks.map(\.id) == ["pre", "mid"], "the VAST breaks, through the manager")
        #expect(r.beacons.contains { $0.url.contains("i.invalid/mid") })
        // pre-roll 1 s | content 0–1 s | native 2 s | content 1–2 s | mid-roll 1 s | content 2–5 s (L-bar 3–5 s)
        #expect(r.videoFrames == 225)
        #expect(r.natives.map(\.layout) == ["full", "lbar"])
        #expect(r.natives[0].firstFrame == 2.0 && r.natives[0].lastFrame == 3.96 && r.natives[0].frames == 50)
        #expect(r.natives[0].impressionStreamTime == 2.0 && r.natives[0].media == "generated still")
        #expect(r.natives[1].firstFrame == 7.0 && r.natives[1].lastFrame == 8.96 && r.natives[1].frames == 50)
        #expect(await f.waitForHits("/imp", count: 2) == 2, "each native ad's impression once")
        let frames = try await MediaVerifier.videoFrames(out)
        #expect(frames.count == 225)
        guard frames.count == 225 else { return }
        #expect(frames[0..<25].allSatisfy { $0.identity?.sourceID == 7 }, "the VAST pre-roll")
        #expect(frames[25..<50].map { $0.identity?.frameIndex } == Array(0..<25), "content up to the native cue")
        #expect(frames[50..<100].allSatisfy { $0.identity == nil }, "the native break covers the frame")
        #expect(frames[100..<125].map { $0.identity?.frameIndex } == Array(25..<50), "content resumes at the cue frame")
        #expect(frames[125..<150].allSatisfy { $0.identity?.sourceID == 8 }, "the VAST mid-roll")
        #expect(frames[150..<175].map { $0.identity?.frameIndex } == Array(50..<75), "content up to the L-bar")
        let pictures = try await DecodedPictures.decode(out, pixelFormat: "rgb24")
        for n in [50, 99] {
            #expect(NativeRenderTests.ink(pictures, frame: n, x: 216, y: 40, width: 100, height: 30) > 60, "headline on native frame \(n)")
        }
        // the template's background #203040 below its text: on native frames and L-bar frames only
        func background(_ n: Int) -> Bool {
            zip([0x20, 0x30, 0x40], 0..<3).allSatisfy { abs(pictures.mean(frame: n, x: 240, y: 140, width: 60, height: 30, channel: $1) - Double($0)) < 6 }
        }
        for n in [50, 99, 175, 224] { #expect(background(n), "layout on \(n)") }
        for n in [24, 25, 49, 100, 149, 150, 174] { #expect(!background(n), "no layout on \(n)") }
        // in the L-bar the window holds content frame n - 100 scaled (not its neighbours): every content frame once, in order
        let window = try NativeRenderTests.reference(content, name: "native-content-s1-5s-224x126.nut", filter: "scale=224:126")
        for n in stride(from: 176, to: 224, by: 5) {
            let c = n - 100
            let here = NativeRenderTests.meanDifference(pictures, frame: n, x: 0, y: 0, window, frame: c)
            let before = NativeRenderTests.meanDifference(pictures, frame: n, x: 0, y: 0, window, frame: c - 1)
            let after = NativeRenderTests.meanDifference(pictures, frame: n, x: 0, y: 0, window, frame: c + 1)
            #expect(here < 8 && here < before && here < after, "frame \(n): \(here) vs \(before) / \(after)")
            #expect(NativeRenderTests.ink(pictures, frame: n, x: 8, y: 134, width: 220, height: 36) > 100, "headline under the window on \(n)")
        }
    }

    @Test func aNativeBreakAtAVASTCuePlaysAfterItAndANativePostrollAfterTheVASTPostrolls() async throws {
        let f = try NativeAdServer()
        let ad = try await NativeRenderTests.ad(f), post = try await NativeRenderTests.ad(f)
        let (stitcher, _, out) = try Self.stitcher(contentSeconds: 2, midOffset: "end")
        stitcher.nativeBreaks = [
            NativeBreak(position: .start, ad: ad, layout: .fullFrame, template: try NativeRenderTests.template("template")),
            NativeBreak(position: .end, ad: post, layout: .fullFrame, template: try NativeRenderTests.template("template")),
        ]
        let r = try await stitcher.run()
        #expect(r.errors.isEmpty, "\(r.errors)")
        // VAST pre-roll 1 s | native 2 s | content 2 s | VAST post-roll 1 s | native 2 s
        #expect(r.videoFrames == 200)
        #expect(r.natives.map(\.firstFrame) == [1.0, 6.0])
        let frames = try await MediaVerifier.videoFrames(out)
        #expect(frames.count == 200)
        guard frames.count == 200 else { return }
        #expect(frames[0..<25].allSatisfy { $0.identity?.sourceID == 7 })
        #expect(frames[25..<75].allSatisfy { $0.identity == nil })
        #expect(frames[75..<125].map { $0.identity?.frameIndex } == Array(0..<50))
        #expect(frames[125..<150].allSatisfy { $0.identity?.sourceID == 8 })
        #expect(frames[150..<200].allSatisfy { $0.identity == nil })
    }
}
