import Foundation
import Media
import Serve
import TestSupport
import Testing
import Timing

/// The program clock of what the store writes: every segment's first picture 0.7 s above its first
/// PCR, as the ffmpeg CLI's origin without B-frames, whether the store's encode has B-frames (slate,
/// ads) or not (a re-encoded content piece). GStreamer 1.22 maps the first PCR after an
/// `EXT-X-DISCONTINUITY` to the segment's playlist time, so a slate run whose first picture was
/// 0.78 s above its PCR overlapped the content piece after it by 0.08 s and the decoder warned
/// "decreasing timestamp" (issue 22).
@Suite(.serialized) struct ServeTSRunClockTests {
    /// The first PCR base (90 kHz) in `data`.
    static func firstPCR(_ data: Data) -> Int64? {
        let b = [UInt8](data)
        var i = 0
        while i + 188 <= b.count {
            if b[i] == 0x47, (b[i + 3] >> 4) & 0x02 != 0, b[i + 4] > 0, b[i + 5] & 0x10 != 0 {
                let q = i + 6
                return Int64(b[q]) << 25 | Int64(b[q + 1]) << 17 | Int64(b[q + 2]) << 9 | Int64(b[q + 3]) << 1 | Int64(b[q + 4] >> 7)
            }
            i += 188
        }
        return nil
    }

    /// How far (90 kHz) the first picture of `data` is above its first PCR.
    static func pictureAbovePCR(_ data: Data) throws -> Int64 {
        let pts = try #require(TSTimestamps.firstVideoPTS(data)).rescaled(to: 90_000).value
        let pcr = try #require(firstPCR(data))
        return pts - pcr
    }

    @Test
    func slateThenDiscontinuityThenAContentPiecePlaysCleanInGStreamer() async throws {
        let root = StoreFixture.folder("tsrunclock")
        defer { try? FileManager.default.removeItem(at: root) }
        let store = try MediaStore(options: StoreOptions(root: root, contents: [:]))
        try store.addRendition(ServeStoreLiveCutTests.rung)
        // an origin as the ffmpeg CLI writes one (30 fps, no B-frames: 0.7 s), 4 s segments
        let paths = try await offPool { try ServeStoreLiveCutTests.segments(.init(bFrames: 0, openGOP: false), root: root) }
        let origin1 = ServeStoreLiveCutTests.url(root, paths[1]), origin2 = ServeStoreLiveCutTests.url(root, paths[2])
        #expect(try Self.pictureAbovePCR(Data(contentsOf: origin1)) == 63_000)
        // content resumes inside segment 1 (a re-encoded GOP head), after 2 s of slate (25 fps, B-frames)
        let pts = try ServeStoreLiveCutTests.packets(origin1, "v").map(\.pts).sorted()
        let piece = try #require(try await store.segmentPiece(paths[1], rendition: ServeStoreLiveCutTests.rung, from: pts[17], to: nil))
        let slate = try await store.slate(rendition: store.rendition(named: "live180")!, duration: MediaTime(seconds: 2))
        let pieceData = try Data(contentsOf: ServeStoreLiveCutTests.url(root, piece.path))
        #expect(try Self.pictureAbovePCR(pieceData) == 63_000, "the content piece")
        var slateData: [Data] = []
        for s in slate {
            let d = try Data(contentsOf: ServeStoreLiveCutTests.url(root, s.path))
            #expect(try Self.pictureAbovePCR(d) == 63_000, "slate \(s.path)")
            slateData.append(d)
        }
        // a viewer's playlist: the slate moved to end where the piece starts (as a live session
        // sends it), a discontinuity, the piece, the next whole origin segment
        let slateTotal = slate.reduce(MediaTime.zero) { $0 + $1.duration }
        let pieceStart = try #require(TSTimestamps.firstVideoPTS(pieceData))
        let slateStart = try #require(TSTimestamps.firstVideoPTS(slateData[0]))
        let shift = pieceStart - slateTotal - slateStart
        let folder = root.appendingPathComponent("viewer")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:4", "#EXT-X-PLAYLIST-TYPE:VOD"]
        for (n, (s, d)) in zip(slate, slateData).enumerated() {
            try TSTimestamps.shifted(d, by: shift).write(to: folder.appendingPathComponent("slate\(n).ts"))
            lines += [String(format: "#EXTINF:%.3f,", s.duration.seconds), "slate\(n).ts"]
        }
        try pieceData.write(to: folder.appendingPathComponent("piece.ts"))
        try Data(contentsOf: origin2).write(to: folder.appendingPathComponent("next.ts"))
        lines += ["#EXT-X-DISCONTINUITY", String(format: "#EXTINF:%.3f,", piece.duration.seconds), "piece.ts",
                  "#EXTINF:4.000,", "next.ts", "#EXT-X-ENDLIST"]
        let playlist = folder.appendingPathComponent("index.m3u8")
        try (lines.joined(separator: "\n") + "\n").write(to: playlist, atomically: true, encoding: .utf8)
        let gst = try await offPool { try FieldCheck.check(playlist, with: .gstreamer) }
        #expect(gst.clean, "\(gst.report)")
    }

    /// A CMAF origin's segment remuxed to MPEG-TS (`FragmentRemux`, what the store keeps of CMAF
    /// and DASH origins) has the same program clock: its first picture 0.7 s above its first PCR
    /// (it had none: its PCR was its first decode time, so after an engine-made piece and an
    /// `EXT-X-DISCONTINUITY` GStreamer found its timestamps 0.67 s back); a segment whose first
    /// decode time is nearer zero than that has its PCR at zero, never below.
    @Test func aRemuxedCMAFSegmentHasTheSameProgramClock() async throws {
        let root = StoreFixture.folder("tsrunclock-cmaf")
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let made = try await Tools.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=160x90:r=30:d=4", "-f", "lavfi", "-i", "sine=d=4",
                                           "-c:v", "libx264", "-bf", "0", "-g", "60", "-c:a", "aac", "-f", "hls", "-hls_time", "2",
                                           "-hls_segment_type", "fmp4", "-hls_playlist_type", "vod",
                                           "-hls_segment_filename", root.appendingPathComponent("s%d.m4s").path, root.appendingPathComponent("index.m3u8").path])
        #expect(made.status == 0, "\(made.stderr)")
        for (n, above) in [(1, Int64(63_000)), (0, nil)] {
            let ts = root.appendingPathComponent("s\(n).ts")
            try FragmentRemux.mpegTS(initialization: root.appendingPathComponent("init.mp4"), segment: root.appendingPathComponent("s\(n).m4s"), to: ts)
            let data = try Data(contentsOf: ts)
            let pcr = try #require(Self.firstPCR(data))
            if let above { #expect(try Self.pictureAbovePCR(data) == above, "segment \(n)") }
            else {
                let first = try Self.pictureAbovePCR(data)
                #expect(pcr == 0 && first < 63_000, "segment \(n): PCR \(pcr), first picture \(first) above it")
            }
        }
    }
}
