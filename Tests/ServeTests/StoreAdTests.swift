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
            let r = store.ad(mediaURL: url, rendition: store.rendition(named: rung)!)
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
        guard case .pending = store.ad(mediaURL: server.url("/ad.mp4"), rendition: store.rendition(named: "180p")!) else {
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
    }

    /// An ad is what the engine's stitch makes of it for the rung: the content's frame rate (a
    /// 25 fps and a 60 fps ad in a 30 fps rung hold 30 frames a second, each for its media
    /// duration), the profile and level of the variant's CODECS, no B-frames, its sound from its
    /// first picture (no priming before it) to the end of the AAC frame holding its last picture's
    /// end, a new MPEG-TS stream.
    @Test(arguments: [25, 60]) func anAdIsMadeAtTheRungsFrameRateProfileAndLevel(_ fps: Int) async throws {
        let root = StoreFixture.folder("ads-rate-\(fps)")
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try HTTPTestServer()
        let clip = try await TestMedia.clip(sourceID: 9, width: 320, height: 240, fps: fps, seconds: 2, gop: fps)
        server.route("/ad.mp4", HTTPTestServer.Response(headers: ["Content-Type": "video/mp4"], body: try Data(contentsOf: clip)))
        let store = try StoreFixture.store(root)
        // a Main 1.3 rung at 30 fps (what a 320x180 content at 30 fps would advertise)
        let rung = store.rendition(named: "180p")!.serving(frameRate: Rational(30, 1), codecs: "avc1.4d400d,mp4a.40.2")
        let deadline = Date().addingTimeInterval(60)
        var answer = store.ad(mediaURL: server.url("/ad.mp4"), rendition: rung)
        while case .pending = answer, Date() < deadline { try await Task.sleep(nanoseconds: 50_000_000); answer = store.ad(mediaURL: server.url("/ad.mp4"), rendition: rung) }
        guard case .ready(let segments, let duration) = answer else { Issue.record("not ready: \(answer)"); return }
        #expect(duration == MediaTime(seconds: 2), "its media duration, in whole frames of the rung")
        #expect(segments.allSatisfy { $0.path.contains("180p-320x180-30_1-avc1.4d400d-") }, "stored for this rung's rate and codec")
        let joined = try StoreFixture.concatenate(segments, store: store, into: root, name: "ad.ts")
        let video = try await MediaVerifier.packets(joined, kind: .video), audio = try await MediaVerifier.packets(joined, kind: .audio)
        #expect(video.count == 60, "2 s at 30 fps: \(video.count) frames")
        let probe = try await Tools.ffprobe(["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=profile,level,has_b_frames,r_frame_rate",
                                       "-of", "csv=p=0", joined.path])
        // (MPEG-TS: ffprobe lists the stream once under its program too)
        #expect(String(decoding: probe.stdout, as: UTF8.self).split(separator: "\n").first == "Main,0,13,30/1", "profile, B-frames, level, rate")
        let firstVideo = try #require(video.compactMap(\.pts).min()), lastVideo = try #require(video.compactMap(\.pts).max())
        let videoEnd = lastVideo + 1.0 / 30
        let firstAudio = try #require(audio.first?.pts), last = try #require(audio.last)
        #expect(abs(firstAudio - firstVideo) < 0.0001, "sound from the first picture, no priming before it: \(firstAudio) vs \(firstVideo)")
        let audioEnd = (last.pts ?? 0) + (last.duration ?? 0)
        #expect(audioEnd >= videoEnd - 0.0001 && audioEnd < videoEnd + 1024.0 / 48_000, "to the end of the AAC frame holding the last picture's end: \(audioEnd) vs \(videoEnd)")
        #expect(try await MediaVerifier.ffmpegErrors(joined).isEmpty)
    }
}
