import Foundation
import Media
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 18, item 6: opening media never waits for ever. A FIFO or device is refused before
/// FFmpeg's `open` (which blocks until a writer comes); content from an http(s) URL gets ad media's
/// read deadline and a network-only protocol whitelist instead of FFmpeg's defaults. (The
/// whitelist is defence in depth: FFmpeg 5.1's own hls and concat demuxers already refuse a
/// `file:` segment of an http playlist, so no test here could fail without it.)
@Suite struct ContentOpenPolicyTests {
    @Test func aFIFOIsRefusedUnderEveryPolicy() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-fifo-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let fifo = dir.appendingPathComponent("ad.mp4").path
        try #require(mkfifo(fifo, 0o644) == 0)
        for url in [fifo, "file://" + fifo, "file:" + fifo] {
            for policy in [Demuxer.OpenPolicy.trusted, .adMedia] {
                do { _ = try Demuxer(url: url, policy: policy); Issue.record("opened a FIFO") } catch {
                    #expect("\(error)".contains("FIFO"), "\(error)")
                }
            }
        }
    }

    @Test func contentFromAStalledServerFailsWithinTheReadDeadline() throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        server.route("/stall.mp4", .init(status: 200, headers: ["Content-Type": "video/mp4"], body: Data(count: 10), delay: 600))
        let start = Date()
        #expect(throws: MediaError.self) { _ = try Demuxer(url: server.url("/stall.mp4")) }
        let waited = Date().timeIntervalSince(start)
        // a deadline bounds the wait (8 s per read); without it this waits the server's 600 s
        #expect(waited < 60, "waited \(waited) s")
    }
}
