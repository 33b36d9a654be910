import Foundation
import Media
import Testing
import TestSupport
@testable import Ads
@testable import Interlude

/// Issue 13, items 2–3 and 6 at the media cache: a hostile media server cannot make the cache hold
/// a huge body, expand a compression bomb, hang it, or steer it with redirects; keys are SHA-256.
@Suite struct HostileMediaServerTests {
    func freshDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("interlude-hostile-\(getpid())-\(UUID().uuidString.prefix(8))")
    }

    func leftovers(_ dir: URL) -> [String] { (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [] }

    @Test func anUndeclaredEndlessBodyStopsAtTheCap() async throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        // unthrottled: the fetcher reads no faster than the cache file takes the data
        server.route("/endless.mp4", .generated(2 << 30, declaresLength: false))
        let dir = freshDirectory()
        let cache = AdMediaCache(directory: dir, maxFileBytes: 8 << 20)
        do {
            _ = try await cache.localPath(for: server.url("/endless.mp4"), timeout: 60, allowLocal: false)
            Issue.record("a 2 GB body was accepted")
        } catch {
            #expect(error.code == 403 && error.message.contains("larger than"), "\(error)")
        }
        #expect(leftovers(dir).isEmpty, "no partial file stays: \(leftovers(dir))")
    }

    @Test func aDeclaredHugeBodyIsRefusedBeforeItsBody() async throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        server.route("/huge.mp4", .generated(2 << 30))
        let dir = freshDirectory()
        do {
            _ = try await AdMediaCache(directory: dir).localPath(for: server.url("/huge.mp4"), timeout: 60, allowLocal: false)
            Issue.record("accepted")
        } catch {
            #expect(error.code == 403 && error.message.contains("larger than"), "\(error)")
        }
        #expect(leftovers(dir).isEmpty)
    }

    @Test func aGzipBombIsRefusedBeforeItExpands() async throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        let bomb = try await HostileBodies.gzipBomb()   // ~1 MB on the wire, 1 GiB decoded
        server.route("/bomb.mp4", .init(status: 200, headers: ["Content-Type": "video/mp4", "Content-Encoding": "gzip"], body: bomb))
        let dir = freshDirectory()
        do {
            _ = try await AdMediaCache(directory: dir).localPath(for: server.url("/bomb.mp4"), timeout: 60, allowLocal: false)
            Issue.record("accepted")
        } catch {
            #expect(error.code == 403 && error.message.contains("Content-Encoding 'gzip' refused"), "\(error)")
        }
        #expect(server.requests.last?.headers["accept-encoding"] == "identity")
        #expect(leftovers(dir).isEmpty)
    }

    @Test func aDeadlineWhileStreamingNeverHangs() async throws {
        // A slow body (about 13 MB/s, 2 GB declared under a 4 GB cap) outlives the timeout: every
        // run must end with 402 (the old cache deadlocked in some runs here).
        let server = try HTTPTestServer()
        defer { server.stop() }
        var slow = HTTPTestServer.Response.generated(2 << 30)
        slow.chunkDelay = 0.005
        server.route("/slow.mp4", slow)
        let dir = freshDirectory()
        let cache = AdMediaCache(directory: dir, maxFileBytes: 4 << 30)
        for _ in 0..<5 {
            do {
                _ = try await cache.localPath(for: server.url("/slow.mp4"), timeout: 0.5, allowLocal: false)
                Issue.record("accepted")
            } catch {
                #expect(error.code == 402, "\(error)")
            }
        }
        #expect(leftovers(dir).isEmpty)
    }

    @Test func aRedirectToAFileIsReportedAsSuch() async throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        server.route("/r.mp4", .redirect(to: "file:///etc/passwd"))
        do {
            _ = try await AdMediaCache(directory: freshDirectory()).localPath(for: server.url("/r.mp4"), timeout: 60, allowLocal: false)
            Issue.record("accepted")
        } catch {
            #expect(error.code == 403 && error.message.contains("redirect to file:///etc/passwd refused"), "\(error)")
        }
    }

    /// Cache keys are SHA-256 through libavutil (`ContentHash`), checked against FIPS 180-4's
    /// test vectors and `sha256sum`'s answer for the URL.
    @Test func cacheKeysAreSHA256() throws {
        #expect(try ContentHash.sha256("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(try ContentHash.sha256("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(try ContentHash.sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(try ContentHash.sha256(String(repeating: "a", count: 1_000_000)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(try AdMediaCache().key("http://a.example/x.mp4") == "7200b9d06bd9facd1d928297fabac15e3a17c56cb79a71b8158c1a32395fecfa")
    }
}
