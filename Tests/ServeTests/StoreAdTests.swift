import Foundation
import Serve
import TestSupport
import Testing
import Timing

/// Ads: transcoded once per (media bytes, rung) on the worker pool, never blocking the caller;
/// media that cannot be had fails with its VAST code.
@Suite(.serialized) struct ServeStoreAdTests {
    /// A 4:3 ad (source id 7, 2 s), pillarboxed into the 16:9 rungs.
    static func adClip() throws -> URL { try TestMedia.clip(sourceID: 7, width: 240, height: 180, fps: 30, seconds: 2, gop: 30) }

    /// Asks until the answer is no longer `.pending` (the worker pool finished), at most `seconds`.
    static func settled(_ store: MediaStore, _ url: String, _ rung: String, seconds: Double = 60) async throws -> AdReadiness {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            let r = store.ad(mediaURL: url, rendition: rung)
            if case .pending = r { try await Task.sleep(nanoseconds: 50_000_000); continue }
            return r
        }
        return .pending
    }

    @Test func anAdIsTranscodedOncePerMediaBytesAndRung() async throws {
        let root = StoreFixture.folder("ads")
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try HTTPTestServer()
        let bytes = try Data(contentsOf: try Self.adClip())
        server.route("/ad.mp4", HTTPTestServer.Response(headers: ["Content-Type": "video/mp4"], body: bytes))
        server.route("/other/name.mp4", HTTPTestServer.Response(headers: ["Content-Type": "video/mp4"], body: bytes))
        let store = try StoreFixture.store(root)
        guard case .pending = store.ad(mediaURL: server.url("/ad.mp4"), rendition: "180p") else {
            Issue.record("the first call answers .pending"); return
        }
        let first = try await Self.settled(store, server.url("/ad.mp4"), "180p")
        guard case .ready(let segments, let duration) = first else {
            Issue.record("the ad did not become ready: \(first)"); return
        }
        #expect(duration == MediaTime(seconds: 2))
        #expect(segments.reduce(MediaTime.zero) { $0 + $1.duration } == duration)
        let joined = try StoreFixture.concatenate(segments, store: store, into: root, name: "ad.ts")
        let ids = try await MediaVerifier.videoFrames(joined, reader: IdentityReader(output: PixelSize(width: 320, height: 180),
                                                                               sources: [PixelSize(width: 240, height: 180)]))
        #expect(ids.map { $0.identity?.frameIndex } == (0..<60).map { Optional($0) }, "every ad frame once, in order")
        #expect(ids.allSatisfy { $0.identity?.sourceID == 7 && $0.rect?.width == 240 }, "pillarboxed, not stretched")
        #expect(try await MediaVerifier.ffmpegErrors(joined).isEmpty)
        #expect(store.encodeCounts()["ad"] == 1)
        // the same bytes under another URL: fetched and hashed, no new encode
        guard case .ready(let again, _) = try await Self.settled(store, server.url("/other/name.mp4"), "180p") else {
            Issue.record("the same media under another URL did not become ready"); return
        }
        #expect(again == segments)
        #expect(store.encodeCounts()["ad"] == 1)
        // another rung is its own encode
        guard case .ready = try await Self.settled(store, server.url("/ad.mp4"), "90p") else { Issue.record("90p"); return }
        #expect(store.encodeCounts()["ad"] == 2)
        // a restart reuses the transcodes
        let reopened = try StoreFixture.store(root)
        guard case .ready(let kept, _) = try await Self.settled(reopened, server.url("/ad.mp4"), "180p") else { Issue.record("reopened"); return }
        #expect(kept == segments)
        #expect(reopened.encodeCounts()["ad"] == nil)
    }

    @Test func adMediaThatCannotBeHadFailsWithItsVASTCode() async throws {
        let root = StoreFixture.folder("badads")
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try HTTPTestServer()
        server.route("/missing.mp4", body: "not here", status: 404)
        server.route("/big.mp4", .generated(2 << 20))
        server.route("/page.mp4", HTTPTestServer.Response(body: "<html><body>an error page</body></html>", contentType: "text/html"))
        let store = try StoreFixture.store(root) { $0.maxAdBytes = 1 << 20 }
        func code(_ path: String) async throws -> Int? {
            if case .failed(let code, let reason) = try await Self.settled(store, server.url(path), "180p") {
                #expect(!reason.isEmpty && !reason.contains("\n"))
                return code
            }
            return nil
        }
        #expect(try await code("/missing.mp4") == 401)
        #expect(try await code("/big.mp4") == 403)
        let page = try await code("/page.mp4")
        #expect(page == 403 || page == 405, "not media: \(String(describing: page))")
        // a local file named by a network ad server never reaches the file system
        if case .failed(let code, _) = try await Self.settled(store, try Self.adClip().path, "180p") { #expect(code == 403) }
        else { Issue.record("a local path was accepted") }
        #expect(store.encodeCounts()["ad"] == nil || store.encodeCounts()["ad"] == 1, "at most the page was tried")
        if case .failed(let code, _) = store.ad(mediaURL: server.url("/x.mp4"), rendition: "4k") { #expect(code == 900) }
        else { Issue.record("an unknown rung") }
    }
}
