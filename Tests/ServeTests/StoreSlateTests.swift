import Foundation
import Serve
import TestSupport
import Testing
import Timing

/// The slate: pieces summing exactly to the asked duration, cached by whole seconds and one
/// remainder, one MPEG-TS stream (continuity counters joined, flagged only at its start) that
/// strict clients play.
@Suite(.serialized) struct ServeStoreSlateTests {
    @Test func aLiveRungsSlateIsAtItsFrameRate() async throws {
        let root = StoreFixture.folder("slate30")
        defer { try? FileManager.default.removeItem(at: root) }
        let store = try StoreFixture.store(root)
        try store.addRendition(Rendition(name: "live", width: 320, height: 180, videoBitrate: 400_000, audioBitrate: 96_000,
                                         frameRate: Rational(30, 1)))
        let slate = try await store.slate(rendition: store.rendition(named: "live")!, duration: MediaTime(value: 53, timescale: 30))
        #expect(slate.map(\.duration) == [MediaTime(seconds: 1), MediaTime(value: 23, timescale: 30)])
        #expect(slate.allSatisfy { $0.path.contains("/live-320x180-30_1-") }, "its own pieces, beside the 25 fps ones")
        let frames = try await MediaVerifier.videoFrames(try StoreFixture.concatenate(slate, store: store, into: root, name: "slate.ts"))
        #expect(frames.count == 53, "whole frames of the rung: nothing rounded up")
    }

    @Test func slateSegmentsSumExactlyAndArePlayableBetweenDiscontinuities() async throws {
        let root = StoreFixture.folder("slate")
        defer { try? FileManager.default.removeItem(at: root) }
        let store = try StoreFixture.store(root)
        let asked = MediaTime(value: 2_345, timescale: 1_000)
        let slate = try await store.slate(rendition: store.rendition(named: "180p")!, duration: asked)
        #expect(slate.map(\.duration) == [MediaTime(seconds: 1), MediaTime(seconds: 1), MediaTime(value: 345, timescale: 1_000)])
        #expect(slate.reduce(MediaTime.zero) { $0 + $1.duration } == asked)
        #expect(store.encodeCounts()["slate"] == 3)
        let joined = try StoreFixture.concatenate(slate, store: store, into: root, name: "slate.ts")
        let frames = try await MediaVerifier.videoFrames(joined)
        #expect(frames.count == 25 + 25 + 9, "25 frames a second, the remainder's 8.625 frames rounded up")
        #expect(frames.allSatisfy { $0.isBlack })
        let audio = try await MediaVerifier.packets(joined, kind: .audio)
        #expect(!audio.isEmpty)
        // reused: 1.5 s needs the first second again and a new remainder
        let shorter = try await store.slate(rendition: store.rendition(named: "180p")!, duration: MediaTime(value: 3, timescale: 2))
        #expect(shorter.first == slate.first)
        #expect(store.encodeCounts()["slate"] == 4)
        #expect(try await store.slate(rendition: store.rendition(named: "180p")!, duration: .zero).isEmpty)

        // content head, DISCONTINUITY, slate, DISCONTINUITY, content tail: one stream per run
        let cut = try await store.cut("c", rendition: "180p", at: [MediaTime(value: 155, timescale: 100)])
        let playlist = try StoreFixture.playlist([cut.runs[0], slate, cut.runs[1]], store: store, root: root, name: "play")
        let folder = playlist.deletingLastPathComponent()
        #expect(try HLSPackageCheck.continuityProblems(playlist) == [])
        // the slate's own clock starts at 0 (as an ad's): strict clients play it as a stream of its own
        var alone = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:1", "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:VOD"]
        for (j, s) in slate.enumerated() { alone += [String(format: "#EXTINF:%.6f,", s.duration.seconds), "r1s\(j).ts"] }
        alone.append("#EXT-X-ENDLIST")
        let slatePlaylist = folder.appendingPathComponent("slate.m3u8")
        try (alone.joined(separator: "\n") + "\n").write(to: slatePlaylist, atomically: true, encoding: .utf8)
        let problems = try await HLSPackageCheck.clientProblems(slatePlaylist)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test func aSlateFileShowsItsFirstFrameFitted() async throws {
        let root = StoreFixture.folder("slatefile")
        defer { try? FileManager.default.removeItem(at: root) }
        let file = try ServeStoreAdTests.adClip()
        let store = try StoreFixture.store(root) { $0.slateFile = file.path }
        let slate = try await store.slate(rendition: store.rendition(named: "180p")!, duration: MediaTime(seconds: 1))
        let joined = try StoreFixture.concatenate(slate, store: store, into: root, name: "slate.ts")
        let frames = try await MediaVerifier.videoFrames(joined, reader: IdentityReader(output: PixelSize(width: 320, height: 180),
                                                                                  sources: [PixelSize(width: 240, height: 180)]))
        #expect(frames.count == 25)
        #expect(frames.allSatisfy { $0.identity == FrameIdentity(sourceID: 7, frameIndex: 0) })
    }

    /// The slate picture goes through the engine's conform (`ConformFilter`): a file whose
    /// display matrix turns it upright (coded 640x360, shown 360x640) is shown upright and
    /// pillarboxed in a 320x180 rung, as the stitch shows the same file as an ad.
    @Test func aRotatedSlateFileIsShownUpright() async throws {
        let root = StoreFixture.folder("slaterotated")
        defer { try? FileManager.default.removeItem(at: root) }
        let store = try StoreFixture.store(root) { $0.slateFile = TestMedia.Sample.adRotated.url.path }
        let slate = try await store.slate(rendition: store.rendition(named: "180p")!, duration: MediaTime(seconds: 1))
        let joined = try StoreFixture.concatenate(slate, store: store, into: root, name: "slate.ts")
        let frames = try await MediaVerifier.videoFrames(joined, reader: IdentityReader(output: PixelSize(width: 320, height: 180),
                                                                                  sources: [PixelSize(width: 360, height: 640)]))
        #expect(frames.count == 25)
        #expect(frames.allSatisfy { $0.identity == FrameIdentity(sourceID: 6, frameIndex: 0) }, "\(frames.prefix(2).map { $0.identity.map { "\($0)" } ?? "none" })")
    }
}
