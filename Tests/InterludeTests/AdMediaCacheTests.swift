import Foundation
import Testing
import TestSupport
@testable import Interlude

/// The ad media cache against a loopback server: fetched once, timeouts as 402, HTTP errors as
/// 401, bounded size, and no local files for network documents.
@Suite struct AdMediaCacheTests {
    func freshDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("interlude-cache-test-\(getpid())-\(UUID().uuidString.prefix(8))")
    }

    @Test func fetchesOncePerURLAndReusesTheFile() async throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        server.route("/a.mp4", .init(status: 200, headers: ["Content-Type": "video/mp4"], body: Data(repeating: 7, count: 1000)))
        let cache = AdMediaCache(directory: freshDirectory())
        let first = try await cache.localPath(for: server.url("/a.mp4"), timeout: 60, allowLocal: false)
        let second = try await cache.localPath(for: server.url("/a.mp4"), timeout: 60, allowLocal: false)
        #expect(first == second)
        #expect(server.requestCount("/a.mp4") == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: first)) == Data(repeating: 7, count: 1000))
    }

    @Test func slowMediaTimesOutWith402() async throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        // The server answers after 10 minutes, so a 402 means a deadline fired. No upper bound on the
        // elapsed time: other tests may keep the 2-thread concurrency pool busy (speed is for benchmarks).
        server.route("/slow.mp4", .init(status: 200, headers: ["Content-Type": "video/mp4"], body: Data(count: 10), delay: 600))
        let cache = AdMediaCache(directory: freshDirectory())
        let start = Date()
        do {
            _ = try await cache.localPath(for: server.url("/slow.mp4"), timeout: 0.5, allowLocal: false)
            Issue.record("expected a timeout")
        } catch {
            #expect(error.code == 402)
        }
        let elapsed = Date().timeIntervalSince(start)
        #expect(elapsed >= 0.45, "not early: \(elapsed) s")
    }

    @Test func httpErrorsAre401AndLocalFilesNeedALocalDocument() async throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        server.route("/gone.mp4", .init(status: 404, headers: [:], body: Data()))
        let cache = AdMediaCache(directory: freshDirectory())
        await #expect(throws: AdMediaCache.Failure.self) { _ = try await cache.localPath(for: server.url("/gone.mp4"), timeout: 60, allowLocal: false) }
        do { _ = try await cache.localPath(for: "/etc/hostname", timeout: 60, allowLocal: false); Issue.record("local file allowed") }
        catch { #expect(error.code == 403) }
        do { _ = try await cache.localPath(for: "ftp://example.invalid/a.mp4", timeout: 60, allowLocal: true); Issue.record("ftp allowed") }
        catch { #expect(error.code == 403) }
        let local = try await cache.localPath(for: TestMedia.Sample.adMatching.url.path, timeout: 60, allowLocal: true)
        #expect(local == TestMedia.Sample.adMatching.url.path)
    }

    @Test func staysWithinItsSizeBound() async throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        for i in 0..<5 { server.route("/m\(i).mp4", .init(status: 200, headers: [:], body: Data(repeating: UInt8(i), count: 4000))) }
        let dir = freshDirectory()
        let cache = AdMediaCache(directory: dir, maxBytes: 10_000)
        for i in 0..<5 {
            _ = try await cache.localPath(for: server.url("/m\(i).mp4"), timeout: 60, allowLocal: false)
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        let total = try files.reduce(0) { $0 + ((try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent($1).path)[.size] as? Int) ?? 0) }
        #expect(total <= 10_000 && files.count == 2, "\(files)")
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent(AdMediaCache.key(server.url("/m4.mp4")) + ".mp4").path))
    }

    @Test func evictionNeverTouchesFilesItDidNotWrite() async throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        for i in 0..<4 { server.route("/m\(i).mp4", .init(status: 200, headers: [:], body: Data(repeating: UInt8(i), count: 4000))) }
        let dir = freshDirectory()
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("transcoded"), withIntermediateDirectories: true)
        let mine = dir.appendingPathComponent("holiday.mp4"), nested = dir.appendingPathComponent("transcoded/x.iltc")
        try Data(repeating: 1, count: 50_000).write(to: mine)    // older and larger than anything cached
        try Data(repeating: 2, count: 100).write(to: nested)
        try FileManager.default.setAttributes([.modificationDate: Date.distantPast], ofItemAtPath: mine.path)
        let cache = AdMediaCache(directory: dir, maxBytes: 10_000)
        for i in 0..<4 {
            _ = try await cache.localPath(for: server.url("/m\(i).mp4"), timeout: 60, allowLocal: false)
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        #expect(try Data(contentsOf: mine) == Data(repeating: 1, count: 50_000), "the user's file is untouched")
        #expect(FileManager.default.fileExists(atPath: nested.path), "the folder beside the cache is untouched")
        let cached = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter(AdMediaCache.isCacheFileName)
        #expect(cached.count == 2, "the cache itself still keeps to its bound: \(cached)")
    }
}
