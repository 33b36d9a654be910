import Foundation
import Testing
import TestSupport
@testable import Ads
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
        // each entry and its record (size and SHA-256, `<entry>.sum`); an evicted entry's record goes with it
        let all = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        let files = all.filter(AdMediaCache.isCacheFileName)
        let total = try files.reduce(0) { $0 + ((try FileManager.default.attributesOfItem(atPath: dir.appendingPathComponent($1).path)[.size] as? Int) ?? 0) }
        #expect(total <= 10_000 && files.count == 2, "\(files)")
        #expect(Set(all) == Set(files + files.map { $0 + ".sum" }), "\(all)")
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent((try AdMediaCache().key(server.url("/m4.mp4"))) + ".mp4").path))
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

/// Issue 18, item 7: the cache verifies what it reads. An entry is used only when, opened without
/// following symlinks, it matches the size and SHA-256 recorded when it was written; a folder
/// others may write is refused.
@Suite struct AdMediaCacheVerificationTests {
    let body = Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 * 7) })

    func setUp() throws -> (HTTPTestServer, AdMediaCache, String, URL) {
        let server = try HTTPTestServer()
        server.route("/ad.mp4", .init(status: 200, headers: ["Content-Type": "video/mp4"], body: body))
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-cache-verify-\(getpid())-\(UUID().uuidString.prefix(8))")
        let url = server.url("/ad.mp4")
        return (server, AdMediaCache(directory: dir), url, dir.appendingPathComponent((try AdMediaCache().key(url)) + ".mp4"))
    }

    @Test func aSymlinkPlantedAsAnEntryIsNeverUsed() async throws {
        let (server, cache, url, entry) = try setUp()
        defer { server.stop() }
        let victim = TestMedia.Sample.adRotated.url.path   // a local file an attacker wants spliced in
        let before = try Data(contentsOf: URL(fileURLWithPath: victim))
        try FileManager.default.createDirectory(at: entry.deletingLastPathComponent(), withIntermediateDirectories: true)
        try #require(symlink(victim, entry.path) == 0)
        let path = try await cache.localPath(for: url, timeout: 30, allowLocal: false)
        #expect(server.requestCount("/ad.mp4") == 1, "fetched from the network, not taken from the symlink")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == body)
        var st = stat()
        #expect(lstat(entry.path, &st) == 0 && st.st_mode & S_IFMT == S_IFREG, "the symlink was replaced by the download")
        #expect(try Data(contentsOf: URL(fileURLWithPath: victim)) == before, "the link's target is untouched")
    }

    @Test func aPlantedOrChangedEntryIsFetchedAgain() async throws {
        let (server, cache, url, entry) = try setUp()
        defer { server.stop() }
        // planted: a file under the entry's name that the cache never wrote (no record)
        try FileManager.default.createDirectory(at: entry.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(repeating: 1, count: 5000).write(to: entry)
        var path = try await cache.localPath(for: url, timeout: 30, allowLocal: false)
        #expect(server.requestCount("/ad.mp4") == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == body)
        // a hit now: the entry matches its record
        path = try await cache.localPath(for: url, timeout: 30, allowLocal: false)
        #expect(server.requestCount("/ad.mp4") == 1, "a verified entry is a hit")
        // changed in place, same size: the hash no longer matches
        var changed = body
        changed[100] ^= 0xff
        try changed.write(to: entry)
        path = try await cache.localPath(for: url, timeout: 30, allowLocal: false)
        #expect(server.requestCount("/ad.mp4") == 2)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == body)
        // truncated
        try body.prefix(10).write(to: entry)
        path = try await cache.localPath(for: url, timeout: 30, allowLocal: false)
        #expect(server.requestCount("/ad.mp4") == 3)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == body)
    }

    @Test func aKilledRunsDownloadIsRemovedByTheNextOne() async throws {
        let (server, cache, url, entry) = try setUp()
        defer { server.stop() }
        let dir = entry.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let dead = ".\(UUID().uuidString).\(gone.processIdentifier).interlude-tmp", alive = ".x.\(getpid()).interlude-tmp"
        for name in [dead, alive] { try Data(count: 100).write(to: dir.appendingPathComponent(name)) }
        _ = try await cache.localPath(for: url, timeout: 30, allowLocal: false)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(!names.contains(dead) && names.contains(alive), "\(names)")
    }

    @Test func aFolderOthersMayWriteIsRefused() async throws {
        let (server, cache, url, entry) = try setUp()
        defer { server.stop() }
        let dir = entry.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try #require(chmod(dir.path, 0o777) == 0)
        do {
            _ = try await cache.localPath(for: url, timeout: 30, allowLocal: false)
            Issue.record("a world-writable cache folder was used")
        } catch {
            #expect(error.code == 402 && error.message.contains("other users"), "\(error)")
        }
        #expect(server.requestCount("/ad.mp4") == 0)
        // a folder the cache makes itself is private
        let fresh = dir.appendingPathComponent("made")
        _ = try await AdMediaCache(directory: fresh).localPath(for: url, timeout: 30, allowLocal: false)
        var st = stat()
        #expect(stat(fresh.path, &st) == 0 && st.st_mode & 0o777 == 0o700)
    }
}
