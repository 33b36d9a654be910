import Foundation
import Testing
import TestSupport

/// Issue 13, item 1 end to end: an ad server's MediaFile is an HLS playlist (or a concat list)
/// naming a local file. The stitch leaves the ad out with 403 and never opens the local file.
@Suite struct HostileMediaTests {
    static func vast(_ media: String) -> String {
        """
        <VAST version="3.0"><Ad id="evil"><InLine><AdSystem>x</AdSystem><AdTitle>evil</AdTitle><Impression>http://i.invalid/e</Impression>
        <Creatives><Creative><Linear><Duration>00:00:04</Duration><MediaFiles>
        <MediaFile delivery="progressive" type="video/mp4" width="640" height="360"><![CDATA[\(media)]]></MediaFile>
        </MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>
        """
    }

    @Test func aRemotePlaylistCannotSpliceInALocalFile() async throws {
        let secret = try await TestMedia.clip(sourceID: 9, seconds: 1).path   // the local file an attacker wants
        let server = try HTTPTestServer()
        defer { server.stop() }
        let hls = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:1.0,\nfile://\(secret)\n#EXTINF:1.0,\n\(secret)\n#EXT-X-ENDLIST\n"
        server.route("/ad.mp4", .init(status: 200, headers: ["Content-Type": "video/mp4"], body: Data(hls.utf8)))
        server.route("/ad2.mp4", .init(status: 200, headers: ["Content-Type": "video/mp4"], body: Data("ffconcat version 1.0\nfile '\(secret)'\n".utf8)))
        server.route("/vast.xml", body: Self.vast(server.url("/ad.mp4")))
        server.route("/vast2.xml", body: Self.vast(server.url("/ad2.mp4")))
        let dir = CLI.tempDir()
        let content = try await TestMedia.clip(sourceID: 1, seconds: 2).path
        for tag in ["/vast.xml", "/vast2.xml"] {
            let out = dir.appendingPathComponent("o\(tag.count).nut"), report = dir.appendingPathComponent("r\(tag.count).json")
            var args = ["stitch", content, "--ads", server.url(tag), "-o", out.path, "--report", report.path, "-q",
                        "--cache-dir", dir.appendingPathComponent("cache").path]
            // With strace at hand, prove it directly: no process of the stitch opens the local file.
            let trace = dir.appendingPathComponent("trace\(tag.count).txt")
            let strace = FileManager.default.isExecutableFile(atPath: "/usr/bin/strace")
            let r: CLI.Output
            if strace {
                args = ["-f", "-qq", "-e", "trace=open,openat,openat2", "-o", trace.path, CLI.binary.path] + args
                r = try await CLI.run(args, executable: URL(fileURLWithPath: "/usr/bin/strace"))
            } else {
                r = try await CLI.run(args)
            }
            #expect(r.status == 0, "\(r.stderr)")
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as! [String: Any]
            let errors = json["errors"] as! [[String: Any]]
            #expect(errors.contains { $0["code"] as? Int == 403 }, "\(errors)")
            let frames = try await MediaVerifier.videoFrames(out)
            #expect(MediaVerifier.segments(frames).map(\.sourceID) == [1], "content only, no frame of the local file")
            if strace {
                let log = try String(contentsOf: trace, encoding: .utf8)
                #expect(log.contains(content), "the trace sees the content being opened")
                #expect(!log.contains(secret), "the local file is never opened")
            }
        }
    }
}
