import Foundation
import Testing
import TestSupport

/// Native breaks and VAST breaks in one tag stitch, run as a user runs it: a VMAP mixing
/// `<vmap:CustomAdData templateType="openrtb-native">` breaks with VAST ones (file and http), and
/// `--ad-break` tags with `--native-break`. The output is decoded with the ffmpeg CLI.
@Suite struct NativeMixedCLITests {
    static func vast(_ media: String, id: String) -> String {
        """
        <VAST version="3.0"><Ad id="\(id)"><InLine><AdSystem>t</AdSystem><AdTitle>\(id)</AdTitle><Impression>http://i.invalid/\(id)</Impression>
        <Creatives><Creative><Linear><Duration>00:00:01</Duration><MediaFiles>
        <MediaFile delivery="progressive" type="video/mp4" width="320" height="180"><![CDATA[\(media)]]></MediaFile>
        </MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>
        """
    }

    /// VAST pre-roll, native full frame at 1 s, VAST mid-roll at 2 s, native L-bar at 3 s.
    static func vmap(pre: String, mid: String, response: String) -> String {
        func b(_ offset: String, _ id: String, _ type: String, _ source: String) -> String {
            "<vmap:AdBreak timeOffset=\"\(offset)\" breakType=\"\(type)\" breakId=\"\(id)\"><vmap:AdSource>\(source)</vmap:AdSource></vmap:AdBreak>\n"
        }
        let native = "<vmap:CustomAdData templateType=\"openrtb-native\"><![CDATA[\(response)]]></vmap:CustomAdData>"
        return "<vmap:VMAP xmlns:vmap=\"http://www.iab.net/videosuite/vmap\" version=\"1.0\">\n"
            + b("start", "pre", "linear", "<vmap:VASTAdData>\(vast(pre, id: "pre"))</vmap:VASTAdData>")
            + b("00:00:01.000", "n1", "linear", native)
            + b("00:00:02.000", "mid", "linear", "<vmap:VASTAdData>\(vast(mid, id: "mid"))</vmap:VASTAdData>")
            + b("00:00:03.000", "n2", "nonlinear", native)
            + "</vmap:VMAP>"
    }

    /// Whether output frame `n` shows the templates' background #203040 (in rgb24, by the ffmpeg
    /// CLI) in the band at (240, 150) that their views leave empty; content (gray) never does.
    static func showsBackground(_ p: DecodedPictures, _ n: Int) -> Bool {
        zip([0x20, 0x30, 0x40], 0..<3).allSatisfy { abs(p.mean(frame: n, x: 240, y: 150, width: 60, height: 20, channel: $1) - Double($0)) < 8 }
    }

    /// The decoded output of: VAST pre-roll (1 s), content 0–1 s, full-frame native break (2 s
    /// still), content 1–2 s, VAST mid-roll (1 s), content 2–4 s with an L-bar from 3 s (1 s).
    static func checkOutput(_ out: URL, stdout: String, report: URL, breaks: [String] = ["pre", "mid"]) throws {
        #expect(stdout.contains("native native-1 (full, format 10063170): stream 2.000 s – 3.960 s, 50 frames; impression at 2.000 s"), "\(stdout)")
        #expect(stdout.contains("native native-2 (lbar, format 10063170): stream 7.000 s – 7.960 s, 25 frames; impression at 7.000 s"), "\(stdout)")
        #expect(stdout.contains("break \(breaks[0]) at content 00:00:00.000") && stdout.contains("break \(breaks[1]) at content 00:00:02.000"), "\(stdout)")
        #expect(!stdout.contains("  error "), "\(stdout)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        #expect((json["natives"] as? [[String: Any]])?.compactMap { $0["impressionStreamTime"] as? Double } == [2.0, 7.0])
        #expect((json["breaks"] as? [[String: Any]])?.count == 2, "the VAST breaks only")
        let frames = try MediaVerifier.videoFrames(out)
        #expect(frames.count == 200)
        guard frames.count == 200 else { return }
        #expect(frames[0..<25].allSatisfy { $0.identity?.sourceID == 7 }, "the VAST pre-roll")
        #expect(frames[25..<50].map { $0.identity?.frameIndex } == Array(0..<25), "content up to the native cue")
        #expect(frames[50..<100].allSatisfy { $0.identity == nil }, "the native break")
        #expect(frames[100..<125].map { $0.identity?.frameIndex } == Array(25..<50), "content resumes at the cue frame")
        #expect(frames[125..<150].allSatisfy { $0.identity?.sourceID == 8 }, "the VAST mid-roll")
        #expect(frames[150..<175].map { $0.identity?.frameIndex } == Array(50..<75), "content up to the L-bar")
        let content = frames.compactMap { $0.identity?.sourceID == 1 ? $0.identity?.frameIndex : nil }
        #expect(content == Array(0..<content.count) && content.count >= 75, "content frames once and in order")
        let pictures = try DecodedPictures.decode(out, pixelFormat: "rgb24")
        for n in [50, 99, 175, 199] { #expect(showsBackground(pictures, n), "layout on frame \(n)") }
        for n in [49, 100, 150, 174] { #expect(!showsBackground(pictures, n), "no layout on frame \(n)") }
    }

    @Test func aVMAPFileMixingNativeAndVASTBreaksPlaysEachWhereItSays() async throws {
        let (dir, content) = try NativeCLITests.files(seconds: 4)
        let pre = try await TestMedia.clip(sourceID: 7, width: 320, height: 180, fps: 25, seconds: 1)
        let mid = try await TestMedia.clip(sourceID: 8, width: 320, height: 180, fps: 25, seconds: 1)
        let tag = dir.appendingPathComponent("mixed.xml")
        try Data(Self.vmap(pre: pre.path, mid: mid.path, response: NativeCLITests.response(image: dir.appendingPathComponent("main.png").path)).utf8).write(to: tag)
        let out = dir.appendingPathComponent("m.nut"), report = dir.appendingPathComponent("m.json")
        let r = try await CLI.run(["stitch", content.path, "-o", out.path, "-q", "--ads", tag.path, "--ad-ui", "none", "--report", report.path,
                                   "--native-format", dir.appendingPathComponent("format.json").path])
        #expect(r.status == 0, "\(r.stderr)")
        try Self.checkOutput(out, stdout: String(decoding: r.stdout, as: UTF8.self), report: report)
    }

    @Test func aNetworkVMAPMixingThemIsFetchedOnce() async throws {
        let (dir, content) = try NativeCLITests.files(seconds: 4)
        let server = try HTTPTestServer()
        defer { server.stop() }
        let pre = try await TestMedia.clip(sourceID: 7, width: 320, height: 180, fps: 25, seconds: 1)
        let mid = try await TestMedia.clip(sourceID: 8, width: 320, height: 180, fps: 25, seconds: 1)
        server.route("/pre.mp4", .init(status: 200, headers: ["Content-Type": "video/mp4"], body: try Data(contentsOf: pre)))
        server.route("/mid.mp4", .init(status: 200, headers: ["Content-Type": "video/mp4"], body: try Data(contentsOf: mid)))
        server.route("/main.png", .init(status: 200, headers: ["Content-Type": "image/png"], body: try Data(contentsOf: dir.appendingPathComponent("main.png"))))
        server.route("/vmap.xml", body: Self.vmap(pre: server.url("/pre.mp4"), mid: server.url("/mid.mp4"), response: NativeCLITests.response(image: server.url("/main.png"))))
        let out = dir.appendingPathComponent("n.nut"), report = dir.appendingPathComponent("n.json")
        let r = try await CLI.run(["stitch", content.path, "-o", out.path, "-q", "--ads", server.url("/vmap.xml"), "--ad-ui", "none",
                                   "--report", report.path, "--cache-dir", dir.appendingPathComponent("cache").path,
                                   "--native-format", dir.appendingPathComponent("format.json").path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(server.requestCount("/vmap.xml") == 1, "one fetch serves the native and the VAST breaks")
        try Self.checkOutput(out, stdout: String(decoding: r.stdout, as: UTF8.self), report: report)
    }

    @Test func adBreakTagsMixWithNativeBreaks() async throws {
        let (dir, content) = try NativeCLITests.files(seconds: 4)
        let pre = try await TestMedia.clip(sourceID: 7, width: 320, height: 180, fps: 25, seconds: 1)
        let mid = try await TestMedia.clip(sourceID: 8, width: 320, height: 180, fps: 25, seconds: 1)
        let preTag = dir.appendingPathComponent("pre.xml"), midTag = dir.appendingPathComponent("mid.xml")
        try Data(Self.vast(pre.path, id: "pre").utf8).write(to: preTag)
        try Data(Self.vast(mid.path, id: "mid").utf8).write(to: midTag)
        let response = dir.appendingPathComponent("response.json").path
        let out = dir.appendingPathComponent("a.nut"), report = dir.appendingPathComponent("a.json")
        let r = try await CLI.run(["stitch", content.path, "-o", out.path, "-q", "--ad-ui", "none", "--report", report.path,
                                   "--ad-break", "start=" + preTag.path, "--ad-break", "2=" + midTag.path,
                                   "--native-format", dir.appendingPathComponent("format.json").path,
                                   "--native-break", "1=" + response, "--native-break", "3=" + response + "@lbar"])
        #expect(r.status == 0, "\(r.stderr)")
        let text = String(decoding: r.stdout, as: UTF8.self)
        try Self.checkOutput(out, stdout: text, report: report, breaks: ["preroll", "midroll-1"])
    }

    @Test func smartRenderingCopiesContentAroundANativeCueThatSplitsAGOP() async throws {
        let (dir, content) = try NativeCLITests.files(seconds: 4)   // a keyframe every 2 s: the cue at 1 s splits a GOP
        let pre = try await TestMedia.clip(sourceID: 7, width: 320, height: 180, fps: 25, seconds: 1)
        let preTag = dir.appendingPathComponent("pre.xml")
        try Data(Self.vast(pre.path, id: "pre").utf8).write(to: preTag)
        let out = dir.appendingPathComponent("s.mp4"), report = dir.appendingPathComponent("s.json")
        let r = try await CLI.run(["stitch", content.path, "-o", out.path, "-q", "--ad-ui", "none", "--report", report.path, "--smart", "auto",
                                   "--ad-break", "start=" + preTag.path,
                                   "--native-format", dir.appendingPathComponent("format.json").path,
                                   "--native-break", "1=" + dir.appendingPathComponent("response.json").path])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        let smart = try #require(json["smartRendering"] as? [String: Any])
        #expect(smart["used"] as? Bool == true && (smart["copiedFrames"] as? Int ?? 0) >= 50, "\(smart)")
        let frames = try await MediaVerifier.videoFrames(out)
        #expect(frames.count == 175)
        guard frames.count == 175 else { return }
        #expect(frames[0..<25].allSatisfy { $0.identity?.sourceID == 7 })
        #expect(frames[25..<50].map { $0.identity?.frameIndex } == Array(0..<25), "content up to the cue frame")
        #expect(frames[50..<100].allSatisfy { $0.identity == nil }, "the native break")
        #expect(frames[100..<175].map { $0.identity?.frameIndex } == Array(25..<100), "content from the cue frame, once and in order")
    }
}
