import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 13, item 6: FIFO inputs, `inspect --json` on a refused document, selection refusing a
/// network document's local media, errors naming the ad's URL, and pictures as ads.
@Suite struct SmallHardeningTests {
    @Test func aFIFOInputIsRefusedInsteadOfHanging() async throws {
        let dir = CLI.tempDir()
        let fifo = dir.appendingPathComponent("content.mp4").path
        try #require(mkfifo(fifo, 0o644) == 0)
        let run = try await offPool {
            try HostileBodies.measure(CLI.binary, ["stitch", fifo, "-o", dir.appendingPathComponent("o.mp4").path, "-q"], limit: 60)
        }
        #expect(run.status == 1, "exit 1, not killed after hanging: \(run.status) \(run.stderr)")
        #expect(run.stderr.contains("FIFO") && run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        let tag = dir.appendingPathComponent("tag.xml").path
        try #require(mkfifo(tag, 0o644) == 0)
        let inspect = try await offPool { try HostileBodies.measure(CLI.binary, ["inspect", tag], limit: 60) }
        #expect(inspect.status == 1 && inspect.stderr.contains("not a regular file"), "\(inspect.stderr)")
    }

    @Test func inspectJSONAnswersWithJSONWhenTheDocumentIsRefused() async throws {
        let dir = CLI.tempDir()
        let tag = dir.appendingPathComponent("xxe.xml")
        try #"<!DOCTYPE a [<!ENTITY x SYSTEM "file:///etc/passwd">]><VAST version="4.2">&x;</VAST>"#.write(to: tag, atomically: true, encoding: .utf8)
        let r = try await CLI.run(["inspect", tag.path, "--json"])
        #expect(r.status == 1)
        let json = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any], "stdout: \(String(decoding: r.stdout, as: UTF8.self))")
        let errors = try #require(json["errors"] as? [[String: Any]])
        #expect(errors.count == 1 && errors[0]["code"] as? Int == 100 && (errors[0]["message"] as? String ?? "").contains("DOCTYPE"))
        #expect((json["breaks"] as? [Any])?.isEmpty == true)
    }

    @Test func inspectAndStitchAgreeOnANetworkDocumentsLocalMedia() async throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        server.route("/local.xml", body: HostileMediaTests.vast("file:///etc/hostname"))
        let r = try await CLI.run(["inspect", server.url("/local.xml"), "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let text = String(decoding: r.stdout, as: UTF8.self)
        #expect(text.contains("local file named by a network document"), "\(text)")
        #expect(text.contains("403"), "\(text)")
    }

    @Test func mediaErrorsNameTheAdsURLAndPicturesAreNotAds() async throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        server.route("/garbage.mp4", .init(status: 200, headers: ["Content-Type": "video/mp4"], body: try Data(contentsOf: TestMedia.Sample.badGarbage.url)))
        let png = try await TestMedia.derived(from: TestMedia.Sample.adMatching.url, name: "policy-frame.png", arguments: ["-frames:v", "1"])
        server.route("/picture.mp4", .init(status: 200, headers: ["Content-Type": "video/mp4"], body: try Data(contentsOf: png)))
        server.route("/pod.xml", body: "<VAST version=\"3.0\">" + [("g", "/garbage.mp4"), ("p", "/picture.mp4")].enumerated().map { i, a in
            """
            <Ad id="\(a.0)" sequence="\(i + 1)"><InLine><AdSystem>x</AdSystem><AdTitle>\(a.0)</AdTitle><Impression>http://i.invalid/</Impression>
            <Creatives><Creative><Linear><Duration>00:00:04</Duration><MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="640" height="360"><![CDATA[\(server.url(a.1))]]></MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad>
            """
        }.joined() + "</VAST>")
        let dir = CLI.tempDir()
        let cache = dir.appendingPathComponent("cache").path, report = dir.appendingPathComponent("r.json")
        let r = try await CLI.run(["stitch", try TestMedia.clip(sourceID: 1, seconds: 2).path, "--ads", server.url("/pod.xml"), "-q",
                                   "-o", dir.appendingPathComponent("o.nut").path, "--report", report.path, "--cache-dir", cache])
        #expect(r.status == 0, "\(r.stderr)")
        let errors = (try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as! [String: Any])["errors"] as! [[String: Any]]
        let messages = errors.compactMap { $0["message"] as? String }
        #expect(messages.count == 2, "\(messages)")
        #expect(messages.allSatisfy { $0.contains(server.baseURL) && !$0.contains(cache) }, "\(messages)")
        #expect(errors.contains { $0["code"] as? Int == 403 && ($0["message"] as? String ?? "").contains("picture.mp4") }, "a PNG is no ad: \(errors)")
    }
}
