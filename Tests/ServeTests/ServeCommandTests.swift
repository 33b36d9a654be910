import Foundation
import Serve
import TestSupport
import Testing

/// `interlude serve` as a process: bad usage is one line and exit 2; a started service prints
/// its URL, serves a playable master playlist, and SIGTERM stops it gracefully with exit 0.
@Suite(.serialized) struct ServeCommandTests {
    static var binary: URL {
        let candidates = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("interlude"),
                          TestMedia.packageRoot.appendingPathComponent(".build/debug/interlude")]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[1]
    }

    @Test func badUsageIsOneLineAndExit2() async throws {
        // the scanner every command uses: an option given twice, a stray positional, a value
        // after `=`, an option with no value
        for (args, says) in [(["serve"], "needs at least one"), (["serve", "--content", "a=x.mp4"], "needs --ads"),
                             (["serve", "--content", "a=x.mp4", "--ads", "t", "--listen", "nope"], "--listen takes HOST:PORT, not 'nope'"),
                             (["serve", "--content", "a=x.mp4", "--ads", "t", "--listen=nope"], "--listen takes HOST:PORT, not 'nope'"),
                             (["serve", "--content", "a=x.mp4", "--ads", "t", "--frobnicate"], "unknown option '--frobnicate'"),
                             (["serve", "--content", "a=x.mp4", "--ads", "t", "--listen", ":1", "--listen", ":2"], "option --listen given twice"),
                             (["serve", "--content", "a=x.mp4", "--ads", "t", "extra.mp4"], "unexpected argument 'extra.mp4'"),
                             (["serve", "--content", "a=x.mp4", "--ads"], "option --ads needs a value")] {
            let r = try await runOffPool(Self.binary.path, args)
            #expect(r.status == 2, "\(args)")
            #expect(r.stderr.hasPrefix("interlude serve: ") && r.stderr.split(separator: "\n").count == 1, "\(args): \(r.stderr)")
            #expect(r.stderr.contains(says), "\(args): \(r.stderr)")
        }
        let missing = try await runOffPool(Self.binary.path, ["serve", "--content", "a=/nonexistent.mp4", "--ads", "t", "--store",
                                                              FileManager.default.temporaryDirectory.appendingPathComponent("serve-cli-\(UUID().uuidString)").path])
        #expect(missing.status == 1)
        // a live channel that cannot be read: said at start, one line, exit 1
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("serve-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: store) }
        let dead = try await runOffPool(Self.binary.path, ["serve", "--live", "ch=/nonexistent/live.m3u8", "--ads", "t", "--store", store.path,
                                                           "--listen", "127.0.0.1:0"])
        #expect(dead.status == 1)
        #expect(dead.stderr.hasPrefix("interlude serve: live channel 'ch': ") && dead.stderr.split(separator: "\n").count == 1, "\(dead.stderr)")
        let help = try await runOffPool(Self.binary.path, ["serve", "--help"])
        let helpText = String(decoding: help.stdout, as: UTF8.self)
        #expect(help.status == 0 && helpText.contains("usage: interlude serve"))
        for name in ServeConfig.optionNames { #expect(helpText.contains("  \(name) "), "--help names \(name)") }
    }

    /// `--config` read at start and again at SIGHUP: a content's ad server changes while the
    /// process runs; a broken file is refused (logged) and the process goes on with what it had.
    @Test func aHangupReadsTheConfigurationsAgain() async throws {
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("serve-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: store) }
        let a = try HTTPTestServer(), b = try HTTPTestServer()
        defer { a.stop(); b.stop() }
        for server in [a, b] { server.setHandler { _ in HTTPTestServer.Response(body: #"<VAST version="4.1"/>"#) } }
        let file = store.appendingPathExtension("json")
        defer { try? FileManager.default.removeItem(at: file) }
        func write(_ server: HTTPTestServer) throws {
            try Data((#"{"configurations": {"one": {"content": ["c"], "options": {"ads": ""# + server.url("/vast") + #""}}}}"#).utf8).write(to: file)
        }
        try write(a)
        let clip = try await TestMedia.clip(sourceID: 3, width: 320, height: 180, fps: 30, seconds: 4, gop: 30)
        let serve = try ServeProcess(["serve", "--listen", "127.0.0.1:0", "--content", "c=\(clip.path)", "--ads", "/nonexistent/tag.xml",
                                      "--config", file.path, "--store", store.path, "--renditions", "180p:320x180:400k"])
        let (p, lines, log) = (serve.process, serve.lines, serve.log)
        #expect(await eventually(60) { !lines.all.isEmpty })
        let base = try #require(lines.all.first?.components(separatedBy: "/v1/master/").first)
        func session() async throws -> Int { try await curl(base + "/v1/session/c", method: "POST", body: "{}").status }
        #expect(try await session() == 200 && a.requests.count == 1 && b.requests.isEmpty)
        try write(b)
        kill(p.processIdentifier, SIGHUP)
        var moved = false
        for _ in 0..<50 where !moved {
            _ = try await session()
            moved = !b.requests.isEmpty
            if !moved { try await Task.sleep(nanoseconds: 200_000_000) }
        }
        #expect(moved, "after SIGHUP the new ad server is asked")
        let asked = b.requests.count
        try Data("{broken".utf8).write(to: file)
        kill(p.processIdentifier, SIGHUP)
        try await Task.sleep(nanoseconds: 500_000_000)
        let status = try await session()
        #expect(p.isRunning && status == 200 && b.requests.count == asked + 1, "a broken file changes nothing")
        kill(p.processIdentifier, SIGTERM)
        #expect(await eventually(20) { !p.isRunning })
        #expect(p.terminationStatus == 0)
        #expect(await eventually(30) { log.all.joined().contains("\"event\":\"stopped\"") })
        let text = log.all.joined()
        #expect(text.contains("\"event\":\"config_reloaded\"") && text.contains("\"event\":\"config_refused\""), "\(text.suffix(600))")
    }

    @Test func aServicePrintsItsURLServesAndStopsOnSIGTERM() async throws {
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("serve-cli-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: store) }
        let clip = try await TestMedia.clip(sourceID: 3, width: 320, height: 180, fps: 30, seconds: 4, gop: 30)
        let serve = try ServeProcess(["serve", "--listen", "127.0.0.1:0", "--content", "c=\(clip.path)", "--ads", "/nonexistent/tag.xml",
                                      "--store", store.path, "--renditions", "180p:320x180:400k"])
        let (p, lines, log) = (serve.process, serve.lines, serve.log)
        #expect(await eventually(60) { !lines.all.isEmpty })
        let url = try #require(lines.all.first)
        #expect(url.hasPrefix("http://127.0.0.1:") && url.hasSuffix("/v1/master/c/index.m3u8"))
        let master = try await curl(url)
        #expect(master.status == 200 && master.text.contains("#EXT-X-STREAM-INF:"))
        let ff = try await runOffPool(try Tools.ffmpegPath(), ["-nostdin", "-v", "error", "-xerror", "-i", url, "-f", "null", "-"])
        #expect(ff.status == 0, "\(ff.stderr)")
        kill(p.processIdentifier, SIGTERM)
        #expect(await eventually(20) { !p.isRunning })
        #expect(p.terminationStatus == 0)
        #expect(await eventually(30) { log.all.joined().contains("\"event\":\"stopped\"") })
    }
}
