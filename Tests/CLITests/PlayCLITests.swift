import Foundation
import Testing
import TestSupport

/// `interlude play` as a user runs it: the demo ad rules as fast as possible into a frame stream
/// with a session script and live events, twice with the same result; bad usage.
@Suite struct PlayCLITests {
    @Test func aScriptedSessionPlaysTheSameTwice() async throws {
        let dir = CLI.tempDir()
        let script = dir.appendingPathComponent("session.json")
        try """
        {"actions": [{"at": 2, "clock": "stream", "do": "pause", "for": 1},
                     {"at": 3.0, "do": "seek", "to": 25},
                     {"on": "MIDPOINT", "occurrence": 2, "do": "click"}]}
        """.write(to: script, atomically: true, encoding: .utf8)
        var runs: [(events: [String], frames: Int)] = []
        for name in ["a", "b"] {
            let out = dir.appendingPathComponent("\(name).nut"), events = dir.appendingPathComponent("\(name).jsonl")
            let r = try await CLI.run(["play", TestMedia.Sample.content.url.path, "--ads", TestMedia.url("demo-vmap.xml").path,
                                       "--fast", "-o", out.path, "--format", "nut", "--session", script.path,
                                       "--events", events.path])
            #expect(r.status == 0, "\(r.stderr)")
            let lines = try String(contentsOf: events, encoding: .utf8).split(separator: "\n").map(String.init)
            let frames = try await MediaVerifier.videoFrames(out).count
            runs.append((lines, frames))
        }
        #expect(runs[0].events == runs[1].events)
        #expect(runs[0].frames == runs[1].frames)
        let names = runs[0].events.compactMap { line -> String? in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["event"] as? String
        }
        #expect(names.first == "CUEPOINTS_CHANGED")
        #expect(names.contains("PAUSE") && names.contains("RESUME") && names.contains("CLICKED"))
        #expect(names.suffix(2) == ["ALL_ADS_COMPLETED", "end"] || names.last == "end")
        #expect(names.contains("ALL_ADS_COMPLETED"))
    }

    @Test func badUsageAndUnsafeOutputsAreOneLineErrors() async throws {
        let dir = CLI.tempDir()
        let content = TestMedia.Sample.content.url.path
        for (args, status) in [(["play"], Int32(2)), (["play", content, "--bogus"], 2), (["play", content, "--fast", "-o", dir.path], 1),
                               (["play", content, "-o", "-", "--fast"], 2), (["play", dir.appendingPathComponent("missing.mp4").path, "--null"], 1)] {
            let r = try await CLI.run(args)
            #expect(r.status == status, "\(args): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(args): \(r.stderr)")
        }
        var isDir: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: dir.path, isDirectory: &isDir) && isDir.boolValue, "the directory is intact")
    }
}
