import Foundation
import Serve
import TestSupport
import Testing
import Timing

/// Shared cuts: a cue between keyframes splits its segment into a head and a tail that decode to
/// the origin segment's frames, the tail starting at the first frame at or after the cue on a new
/// keyframe; every other segment stays the origin's; a cut is made once per key; strict clients
/// play the pieces around a discontinuity.
@Suite(.serialized) struct ServeStoreCutTests {
    /// 1.55 s: frame 46.5 → frame 47, inside the GOP of frames 30…59 of segment 0 (frames 0…59).
    static let cue = MediaTime(value: 155, timescale: 100)

    @Test func aCueBetweenKeyframesSplitsOneSegmentIntoHeadAndTail() async throws {
        let root = StoreFixture.folder("cut")
        defer { try? FileManager.default.removeItem(at: root) }
        let store = try StoreFixture.store(root)
        let origin = try await store.cut("c", rendition: "180p", at: []).runs[0]
        for (r, size) in [("180p", PixelSize(width: 320, height: 180)), ("90p", PixelSize(width: 160, height: 90))] {
            let before = store.encodeCounts()["cut"] ?? 0
            let cut = try await store.cut("c", rendition: r, at: [Self.cue])
            #expect(store.encodeCounts()["cut"] == before + 2, "a head and a tail")
            #expect(cut.cues == [MediaTime(value: 47, timescale: 30)])
            #expect(cut.runs.count == 2)
            let (head, tail) = (cut.runs[0], cut.runs[1])
            #expect(head.map(\.duration) == [MediaTime(value: 47, timescale: 30)])
            #expect(tail.map(\.duration) == [MediaTime(value: 13, timescale: 30), MediaTime(seconds: 2)])
            let whole = try await store.cut("c", rendition: r, at: []).runs[0]
            #expect(tail[1] == whole[1], "the segment after the cut is the origin's")
            if r == "180p" { #expect(whole == origin) }
            let joined = try StoreFixture.concatenate([head[0], tail[0]], store: store, into: root, name: "\(r)-split.ts")
            #expect(try StoreFixture.identities(joined, size: size).map { $0?.frameIndex } == (0..<60).map { Optional($0) },
                    "\(r): head + tail are the origin segment's frames")
            let tailFile = try StoreFixture.concatenate([tail[0]], store: store, into: root, name: "\(r)-tail.ts")
            let frames = try await MediaVerifier.videoFrames(tailFile, reader: IdentityReader(output: size, sources: []))
            #expect(frames.first?.identity?.frameIndex == 47)
            #expect(frames.first?.isKey == true, "the tail starts on a new keyframe")
            // the tail's clock is the content's: first frame at 47/30 s plus the muxer's constant offset
            #expect(try HLSPackageCheck.firstVideoFramePTS(tailFile) == 47 * 3000 + 126_000)
            let rest = try StoreFixture.concatenate(tail, store: store, into: root, name: "\(r)-rest.ts")
            #expect(try StoreFixture.identities(rest, size: size).map { $0?.frameIndex } == (47..<120).map { Optional($0) })
            #expect(try await MediaVerifier.ffmpegErrors(rest).isEmpty)
            // audio in sync after the cut: each second's flash with its beep (at 2 s and 3 s)
            let offsets = try await MediaVerifier.syncOffsets(rest)
            #expect(offsets.count == 2)
            #expect((MediaVerifier.maxAbsoluteOffset(offsets) ?? 1) < 0.002, "\(offsets)")
            // the same cut again is a lookup
            let again = try await store.cut("c", rendition: r, at: [Self.cue, Self.cue])
            #expect(again.runs == cut.runs.map { $0 })
            #expect(store.encodeCounts()["cut"] == before + 2)
            // a cue between the same two frames is the same cut
            _ = try await store.cut("c", rendition: r, at: [MediaTime(value: 47, timescale: 30)])
            #expect(store.encodeCounts()["cut"] == before + 2)
        }
        // a restart finds the cuts in the folder
        let reopened = try StoreFixture.store(root)
        let kept = try await reopened.cut("c", rendition: "90p", at: [Self.cue])
        #expect(kept.runs == (try await store.cut("c", rendition: "90p", at: [Self.cue])).runs)
        #expect(reopened.encodeCounts()["cut"] == nil)
    }

    @Test func strictClientsPlayHeadAdBreakAndTail() async throws {
        let root = StoreFixture.folder("cutplay")
        defer { try? FileManager.default.removeItem(at: root) }
        let store = try StoreFixture.store(root)
        let cut = try await store.cut("c", rendition: "180p", at: [Self.cue])
        // a playlist as a session's: head, DISCONTINUITY, tail and the rest
        let playlist = try StoreFixture.playlist(cut.runs, store: store, root: root, name: "play")
        #expect(try HLSPackageCheck.continuityProblems(playlist) == [])
        let problems = try await HLSPackageCheck.clientProblems(playlist)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    /// Two cues in one segment: the piece between them is the frames between them.
    @Test func twoCuesInOneSegmentMakeAMiddlePiece() async throws {
        let root = StoreFixture.folder("cut2")
        defer { try? FileManager.default.removeItem(at: root) }
        let store = try StoreFixture.store(root)
        let cut = try await store.cut("c", rendition: "90p", at: [MediaTime(value: 10, timescale: 30), Self.cue])
        #expect(cut.runs.map { $0.map(\.duration) } == [[MediaTime(value: 10, timescale: 30)], [MediaTime(value: 37, timescale: 30)],
                                                         [MediaTime(value: 13, timescale: 30), MediaTime(seconds: 2)]])
        let middle = try StoreFixture.concatenate(cut.runs[1], store: store, into: root, name: "middle.ts")
        #expect(try StoreFixture.identities(middle, size: PixelSize(width: 160, height: 90)).map { $0?.frameIndex } == (10..<47).map { Optional($0) })
        // a cue in a later segment (3.1 s: frame 93 of segment 1, frames 60…119): its head and tail
        for (r, size) in [("180p", PixelSize(width: 320, height: 180)), ("90p", PixelSize(width: 160, height: 90))] {
            let later = try await store.cut("c", rendition: r, at: [MediaTime(value: 31, timescale: 10)])
            #expect(later.runs.map { $0.map(\.duration) } == [[MediaTime(seconds: 2), MediaTime(value: 33, timescale: 30)],
                                                              [MediaTime(value: 27, timescale: 30)]])
            let joined = try StoreFixture.concatenate([later.runs[0][1], later.runs[1][0]], store: store, into: root, name: "\(r)-later.ts")
            #expect(try StoreFixture.identities(joined, size: size).map { $0?.frameIndex } == (60..<120).map { Optional($0) })
            let playlist = try StoreFixture.playlist(later.runs, store: store, root: root, name: "\(r)-later")
            #expect(try HLSPackageCheck.continuityProblems(playlist) == [], "the head continues segment 0's stream")
            let problems = try await HLSPackageCheck.clientProblems(playlist)
            #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        }
    }

    /// Two nodes sharing a store folder (the fleet's layout) cut the same content at the same cue
    /// at the same time: both make the pieces, the first to publish wins, and the other adopts
    /// its file, so that each node serves each piece (before, the second replaced the first's
    /// file with bytes of another size, and the first then refused to serve it: a 404 that
    /// nginx's cache turned into a second fetch from another node).
    @Test func twoNodesCuttingAtOnceServeTheSamePieces() async throws {
        let root = StoreFixture.folder("cut-race")
        defer { try? FileManager.default.removeItem(at: root) }
        let a = try StoreFixture.store(root)
        _ = try await a.cut("c", rendition: "180p", at: [])   // packaged once, as a fleet's first node does
        let b = try StoreFixture.store(root)
        let cues = [Self.cue, MediaTime(value: 275, timescale: 100)]
        async let x = a.cut("c", rendition: "180p", at: cues)
        async let y = b.cut("c", rendition: "180p", at: cues)
        let (cutA, cutB) = try await (x, y)
        #expect(cutA.runs.map { $0.map(\.path) } == cutB.runs.map { $0.map(\.path) })
        let pieces = cutA.runs.flatMap { $0 }.map(\.path).filter { $0.hasPrefix("cuts/") }
        #expect(pieces.count == 4, "a head and a tail at each cue: \(pieces)")
        for path in pieces {
            #expect(a.file(forSegment: path) != nil, "node a serves \(path)")
            #expect(b.file(forSegment: path) != nil, "node b serves \(path)")
        }
    }
}
