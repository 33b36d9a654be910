import Foundation
import Testing
import TestSupport

/// `interlude stitch --native-format … --native-break …` (and through a VMAP) and
/// `interlude inspect RESPONSE.json`, run as a user runs them.
@Suite struct NativeCLITests {
    static let format = """
        {"formatID": "10063170", "assets": [{"name": "Headline", "id": 1, "type": "text"}, {"name": "MainImage", "id": 2, "type": "image"},
                                           {"name": "Caption", "id": 3, "type": "text"}],
         "template": {"width": 320, "height": 180, "background": "#203040", "duration": 2,
           "views": [{"name": "MainImage", "kind": "image", "x": 16, "y": 36, "width": 192, "height": 108},
                     {"name": "Headline", "kind": "text", "x": 216, "y": 40, "width": 100, "height": 30, "size": 18}]},
         "lbar": {"width": 320, "height": 180, "background": "#203040", "duration": 1,
           "views": [{"name": "Content", "kind": "content", "x": 0, "y": 0, "width": 224, "height": 126},
                     {"name": "Headline", "kind": "text", "x": 8, "y": 134, "width": 300, "height": 36, "size": 24}]}}
        """

    static func response(image: String, impression: String? = nil) -> String {
        """
        {"native": {"assets": [{"id": 1, "title": {"text": "Fresh coffee"}}, {"id": 2, "img": {"url": "\(image)"}},
                               {"id": 3, "data": {"value": "Roasted"}}], "imptrackers": [\(impression.map { "\"\($0)\"" } ?? "")],
                    "link": {"url": "https://shop.example/"}, "privacy": "https://privacy.example/"}}
        """
    }

    /// A folder with the format, a response whose image sits beside it, and the content clip.
    static func files(seconds: Double = 4) throws -> (dir: URL, content: URL) {
        let dir = CLI.tempDir()
        _ = try Tools.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=red:s=160x90", "-frames:v", "1", dir.appendingPathComponent("main.png").path])
        try Data(format.utf8).write(to: dir.appendingPathComponent("format.json"))
        try Data(response(image: "main.png").utf8).write(to: dir.appendingPathComponent("response.json"))
        return (dir, try TestMedia.clip(sourceID: 1, width: 320, height: 180, fps: 25, seconds: seconds))
    }

    @Test func stitchPlacesAFullFrameBreakAndAnLBarAndReportsTheirImpressions() async throws {
        let (dir, content) = try Self.files()
        let out = dir.appendingPathComponent("out.mp4"), report = dir.appendingPathComponent("r.json")
        let r = try await CLI.run(["stitch", content.path, "-o", out.path, "-q", "--report", report.path,
                                   "--native-format", dir.appendingPathComponent("format.json").path,
                                   "--native-break", "1=" + dir.appendingPathComponent("response.json").path,
                                   "--native-break", "2.5@lbar=" + dir.appendingPathComponent("response.json").path])
        #expect(r.status == 0, "\(r.stderr)")
        let text = String(decoding: r.stdout, as: UTF8.self)
        #expect(text.contains("native native-1 (full, format 10063170): stream 1.000 s – 2.960 s, 50 frames; impression at 1.000 s"), "\(text)")
        #expect(text.contains("native native-2 (lbar, format 10063170): stream 4.520 s – 5.480 s, 25 frames; impression at 4.520 s"), "\(text)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        let natives = try #require(json["natives"] as? [[String: Any]])
        #expect(natives.map { $0["layout"] as? String } == ["full", "lbar"])
        #expect(natives.first?["media"] as? String == "generated still")
        // 4 s of content and the 2 s break: 150 frames, by the ffmpeg CLI
        let frames = try await MediaVerifier.videoFrames(out)
        #expect(frames.count == 150)
        #expect(frames[0..<25].map { $0.identity?.frameIndex } == Array(0..<25))
        #expect(frames[140..<150].map { $0.identity?.frameIndex } == Array(90..<100))
    }

    @Test func aVMAPCarriesNativeBreaksInCustomAdData() async throws {
        let (dir, content) = try Self.files()
        let png = dir.appendingPathComponent("main.png").path
        let vmap = """
            <vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">
            <vmap:AdBreak timeOffset="00:00:01.000" breakType="linear" breakId="n1"><vmap:AdSource>
              <vmap:CustomAdData templateType="openrtb-native"><![CDATA[\(Self.response(image: png))]]></vmap:CustomAdData></vmap:AdSource></vmap:AdBreak>
            <vmap:AdBreak timeOffset="00:00:02.000" breakType="nonlinear" breakId="n2"><vmap:AdSource>
              <vmap:CustomAdData templateType="openrtb-native"><![CDATA[\(Self.response(image: png))]]></vmap:CustomAdData></vmap:AdSource></vmap:AdBreak>
            </vmap:VMAP>
            """
        let tag = dir.appendingPathComponent("native-vmap.xml")
        try Data(vmap.utf8).write(to: tag)
        let out = dir.appendingPathComponent("v.mp4")
        let r = try await CLI.run(["stitch", content.path, "-o", out.path, "-q", "--ads", tag.path,
                                   "--native-format", dir.appendingPathComponent("format.json").path])
        #expect(r.status == 0, "\(r.stderr)")
        let text = String(decoding: r.stdout, as: UTF8.self)
        #expect(text.contains("native native-1 (full, format 10063170): stream 1.000 s"), "\(text)")
        #expect(text.contains("native native-2 (lbar, format 10063170): stream 4.000 s"), "\(text)")
        #expect(try await MediaVerifier.videoFrames(out).count == 150)
    }

    @Test func badNativeInputGivesOneLineAndNoOutput() async throws {
        let (dir, content) = try Self.files()
        let format = dir.appendingPathComponent("format.json").path
        try Data("{\"native\": {\"assets\": [".utf8).write(to: dir.appendingPathComponent("bad.json"))
        let cases: [([String], Int32, String)] = [
            (["--native-break", "1=" + dir.appendingPathComponent("response.json").path], 2, "--native-break needs --native-format FILE"),
            (["--native-format", format, "--native-break", "x=r.json"], 2, "malformed TIME 'x' in --native-break"),
            (["--native-format", dir.appendingPathComponent("bad.json").path, "--native-break", "1=r.json"], 1, "native format is not a JSON object"),
            (["--native-format", format], 1, "no native break"),
        ]
        for (args, status, message) in cases {
            let out = dir.appendingPathComponent("never.mp4")
            let r = try await CLI.run(["stitch", content.path, "-o", out.path, "-q"] + args)
            #expect(r.status == status, "\(args): \(r.stderr)")
            #expect(r.stderr.contains(message), "\(args): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
    }

    @Test func hostileResponsesAreLeftOutAndTheContentIsStitchedAnyway() async throws {
        let (dir, content) = try Self.files()
        try Data("{\"native\": {\"assets\": [".utf8).write(to: dir.appendingPathComponent("bad.json"))
        let server = try HTTPTestServer()
        server.route("/hostile.json", .init(status: 200, headers: ["Content-Type": "application/json"], body: Data(Self.response(image: "file:///etc/hostname").utf8)))
        server.route("/huge.json", .generated(1 << 20, contentType: "application/json"))
        server.route("/imp", .init(status: 200, headers: [:], body: Data("ok".utf8)))
        try Data(Self.response(image: "main.png", impression: server.url("/imp")).utf8).write(to: dir.appendingPathComponent("tracked.json"))
        let out = dir.appendingPathComponent("kept.mp4"), report = dir.appendingPathComponent("kept.json")
        let r = try await CLI.run(["stitch", content.path, "-o", out.path, "-q", "--report", report.path,
                                   "--native-format", dir.appendingPathComponent("format.json").path,
                                   "--native-break", "1=" + dir.appendingPathComponent("bad.json").path,
                                   "--native-break", "1.5=" + server.url("/hostile.json"),
                                   "--native-break", "2=" + server.url("/huge.json"),
                                   "--native-break", "3=" + dir.appendingPathComponent("tracked.json").path])
        #expect(r.status == 0, "\(r.stderr)")
        let text = String(decoding: r.stdout, as: UTF8.self)
        #expect(text.contains("error 100: native ad \(dir.appendingPathComponent("bad.json").path) left out: native response"), "\(text)")
        #expect(text.contains("native response is not valid JSON"))
        #expect(text.contains("MainImage image: file URL 'file:///etc/hostname' refused in a document fetched from http"))
        #expect(text.contains("response larger than 262144 bytes"))
        #expect(text.contains("native native-1 (full, format 10063170): stream 3.000 s"), "the good one still plays: \(text)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        #expect((json["errors"] as? [[String: Any]])?.count == 3)
        // the impression is in the report at its stream time, recorded, not sent: nobody watched yet
        let natives = try #require(json["natives"] as? [[String: Any]])
        #expect(natives.first?["impressionURLs"] as? [String] == [server.url("/imp")])
        #expect(natives.first?["impressionStreamTime"] as? Double == 3.0)
        #expect(server.requestCount("/imp") == 0)
        // the content is all there, with the one good 2 s break
        let frames = try await MediaVerifier.videoFrames(out)
        #expect(frames.count == 150)
        #expect(frames[0..<75].map { $0.identity?.frameIndex } == Array(0..<75))
        #expect(frames[125..<150].map { $0.identity?.frameIndex } == Array(75..<100))
    }

    @Test func inspectListsANativeResponsesAssets() async throws {
        let (dir, _) = try Self.files()
        let r = try await CLI.run(["inspect", dir.appendingPathComponent("response.json").path, "--native-format", dir.appendingPathComponent("format.json").path])
        #expect(r.status == 0, "\(r.stderr)")
        let text = String(decoding: r.stdout, as: UTF8.self)
        #expect(text.contains("asset 1 \"Headline\" title: Fresh coffee"), "\(text)")
        #expect(text.contains("asset 2 \"MainImage\" img: main.png"))
        #expect(text.contains("AdChoices (privacy): https://privacy.example/"))
        #expect(text.contains("format 10063170: every asset present"))
        let j = try await CLI.run(["inspect", "--json", dir.appendingPathComponent("response.json").path])
        let object = try #require(try JSONSerialization.jsonObject(with: j.stdout) as? [String: Any])
        #expect((object["assets"] as? [[String: Any]])?.count == 3)
        try Data("{\"native\": 3}".utf8).write(to: dir.appendingPathComponent("bad.json"))
        let bad = try await CLI.run(["inspect", dir.appendingPathComponent("bad.json").path])
        #expect(bad.status == 1 && bad.stderr.contains("native must be an object"), "\(bad.stderr)")
    }
}
