import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 18, item 6: every wait has a deadline. FIFOs are refused wherever a file is read; content
/// from a stalled http server fails within the read deadline; a held pause ends at the script's end
/// as fast as possible; a seek back fires once. Each run is bounded (killed after 60 s: a hang
/// fails the test instead of hanging it).
@Suite struct WaitDeadlineTests {
    var short: String { get throws { try TestMedia.clip(sourceID: 1, seconds: 2).path } }

    func run(_ args: [String], limit: Double = 60) async throws -> HostileBodies.Run {
        try await offPool { try HostileBodies.measure(CLI.binary, args, limit: limit) }
    }

    func events(_ path: URL) throws -> [[String: Any]] {
        try String(contentsOf: path, encoding: .utf8).split(separator: "\n").compactMap {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    @Test func aFIFOIsRefusedWhereverAFileIsRead() async throws {
        let f = try AdUICLITests.fixture()
        let fifo = { (name: String) throws -> String in
            let p = f.dir.appendingPathComponent(name).path
            try #require(mkfifo(p, 0o644) == 0)
            return p
        }
        let media = try fifo("ad.mp4"), tag = try fifo("fifo-tag.xml"), session = try fifo("session.json")
        let layout = try fifo("ui.json"), format = try fifo("format.json"), response = try fifo("native.json")
        let out = f.dir.appendingPathComponent("o.mp4").path
        let cases: [[String]] = [
            ["stitch", f.content, "-o", out, "--ad-break", "1=\(media)"],
            ["stitch", f.content, "-o", out, "--ad-break", "1=file://\(media)"],
            ["stitch", f.content, "-o", out, "--ad-break", "1=\(tag)"],
            ["stitch", f.content, "-o", out, "--ads", tag],
            ["stitch", f.content, "-o", out, "--ads", f.tag, "--ad-ui", layout],
            ["stitch", f.content, "-o", out, "--native-format", format, "--native-break", "1=\(response)"],
            ["play", f.content, "--fast", "--null", "--session", session],
            ["play", f.content, "--fast", "--null", "--ads", tag],
            ["play", f.content, "--fast", "--null", "--ads", f.tag, "--ad-ui", layout],
            ["play", media, "--fast", "--null"],
        ]
        for args in cases {
            let r = try await run(args + ["-q"])
            #expect(r.status == 1 || r.status == 2, "refused, not killed after hanging: \(args.suffix(2)) \(r.status) \(r.stderr)")
            #expect(r.stderr.contains("FIFO") && r.stderr.split(separator: "\n").count == 1, "\(args.suffix(2)): \(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func contentFromAStalledServerFailsWithinTheDeadline() async throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        // the first 64 KiB, then nothing for 10 minutes: FFmpeg's defaults wait for ever
        var stalled = HTTPTestServer.Response(status: 200, headers: ["Content-Type": "video/mp4"],
                                              body: try Data(contentsOf: TestMedia.Sample.content.url))
        stalled.chunkDelay = 600
        server.route("/content.mp4", stalled)
        let dir = CLI.tempDir()
        let out = dir.appendingPathComponent("o.mp4").path
        let r = try await run(["stitch", server.url("/content.mp4"), "-o", out, "-q"], limit: 60)
        #expect(r.status == 1, "a one-line error, not killed after 60 s: \(r.status) \(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains("content"), "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty, "nothing written")
    }

    @Test func aPauseOrBackgroundWithNoForEndsAtTheScriptsEndAsFastAsPossible() async throws {
        let dir = CLI.tempDir()
        for (i, action) in [#"{"at":1,"do":"pause"}"#, #"{"at":1,"do":"background on"}"#].enumerated() {
            let script = dir.appendingPathComponent("s\(i).json"), log = dir.appendingPathComponent("e\(i).jsonl")
            try Data(#"{"actions":[\#(action)]}"#.utf8).write(to: script)
            let r = try await run(["play", try short, "--fast", "--null", "--session", script.path, "--events", log.path, "-q"])
            #expect(r.status == 0, "\(action): \(r.status) \(r.stderr)")
            let names = try events(log).compactMap { $0["event"] as? String }
            #expect(names.suffix(2) == ["scriptEnded", "end"], "\(action): \(names)")
            let end = try events(log).last { $0["event"] as? String == "end" }
            #expect((end?["contentTime"] as? Double).map { abs($0 - 1) < 0.05 } == true, "held at 1 s: \(String(describing: end))")
        }
        // a pause with `for` resumes and plays on to the end
        let script = dir.appendingPathComponent("resumed.json"), log = dir.appendingPathComponent("resumed.jsonl")
        try Data(#"{"actions":[{"at":1,"do":"pause","for":3}]}"#.utf8).write(to: script)
        let r = try await run(["play", try short, "--fast", "--null", "--session", script.path, "--events", log.path, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let names = try events(log).compactMap { $0["event"] as? String }
        #expect(!names.contains("scriptEnded") && names.last == "end", "\(names)")
        let end = try events(log).last { $0["event"] as? String == "end" }
        #expect((end?["contentTime"] as? Double).map { $0 > 1.9 } == true, "played to the end: \(String(describing: end))")
    }

    @Test func aSeekBackFiresOnce() async throws {
        let dir = CLI.tempDir()
        let script = dir.appendingPathComponent("seek.json"), log = dir.appendingPathComponent("seek.jsonl")
        try Data(#"{"actions":[{"at":1.5,"do":"seek","to":0.5}]}"#.utf8).write(to: script)
        let r = try await run(["play", try short, "--fast", "--null", "--session", script.path, "--events", log.path])
        #expect(r.status == 0, "\(r.status) \(r.stderr)")
        let all = try events(log)
        #expect(all.filter { $0["event"] as? String == "seeked" }.count == 1, "\(all.compactMap { $0["event"] })")
        let end = all.last { $0["event"] as? String == "end" }
        #expect((end?["contentTime"] as? Double).map { $0 > 1.9 } == true, "played on to the end: \(String(describing: end))")
    }
}
