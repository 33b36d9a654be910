import Foundation
import Media
import Timing

/// Writes one CMAF track of a package (its initialization section and fragmented-MP4 media
/// segments, for `EXT-X-MAP` and a DASH `SegmentTemplate`) in order with FFmpeg's mp4 muxer in
/// fragmented mode, as FFmpeg's hls muxer does for `hls_segment_type fmp4`: one muxer for the
/// whole track (one stream: CMAF keeps video and audio apart), its initialization section
/// (`ftyp` + `moov`, written once the track has a sample) in its own file, then one fragment per segment file (`sidx`, `moof` with
/// `tfdt` and `default-base-is-moof`, `mdat`; no `styp`, which CMAF and DASH leave optional),
/// each flushed on request (`frag_custom`). No box is written here.
///
/// Decode times (`tfdt`) run on one clock across the package, the stitched timeline's: a run
/// after an `EXT-X-DISCONTINUITY` goes on where the one before it ended, so a player that does
/// not reset at the tag places it right too.
final class CMAFSegmentWriter: PackageSegmentWriter {
    private let muxer: Muxer
    private let map: [Int]
    private let position: [Int: Int]
    private var segmentsStarted = 0
    private let initPath: String

    /// The file name extension of its media segments.
    static let fileExtension = "m4s"

    /// Writes the initialization section to `initPath`, for the packets of `stream` of `demuxer`
    /// (a CMAF track holds one stream).
    init(initPath: String, demuxer: Demuxer, stream: Int) throws {
        self.initPath = initPath
        let m = try Muxer(url: initPath, formatName: "mp4")
        map = [try m.addStream(copying: stream, of: demuxer)]
        position = [stream: 0]
        muxer = m
        // dash: a `sidx` per fragment; frag_custom: a fragment when asked; delay_moov: the
        // `moov` once the first samples are known; frag_discont: `tfdt` the first sample's own
        // decode time (the package's clock), not zero; skip_trailer: no `mfra` after the last
        // fragment. No edit list, and positive composition offsets (trun version 0): FFmpeg
        // 5.1's own `cmaf` flag writes negative ones, which its mov demuxer and GStreamer read
        // two frames apart across a join of B-frame content and an ad. The major brand is
        // `cmfc` (CMAF's). avoid_negative_ts: without edit lists the muxer would otherwise
        // move the track to start at zero on its own (make_zero), parting audio from video;
        // the packager gives it timestamps that are never negative.
        try m.writeHeader(options: ["movflags": "+dash+frag_custom+delay_moov+default_base_moof+skip_trailer+frag_discont",
                                    "use_editlist": "0", "brand": "cmfc", "avoid_negative_ts": "make_non_negative"])
        timescale = m.timescale(ofStream: map[0])
    }

    /// Ticks per second of the track (its `mdhd` timescale, what `tfdt` counts in).
    let timescale: Int64

    /// Writes `packets` (in file order, of the streams given at `init`) as the media segment `path`.
    /// The first call's packets also decide the initialization section, written out first.
    func writeSegment(_ path: String, packets: [Packet], newRun: Bool) throws {
        if segmentsStarted > 0 { try muxer.continueInNewFile(path) }   // the previous fragment goes out into its file
        for p in packets {
            guard let s = position[p.streamIndex] else { continue }
            try muxer.write(p, stream: map[s])
        }
        if segmentsStarted == 0 {
            // the first flush writes the `moov` (into the initialization file) and keeps the samples
            try muxer.continueInNewFile(path)
            // (the `moov` waits for a sample of every track: a first segment without one would put it in the wrong file)
            let written = (try? FileManager.default.attributesOfItem(atPath: initPath)[.size] as? Int) ?? 0
            guard written > 0 else { throw MediaError.unsupported("the first CMAF segment \(path) lacks a sample of some track") }
        }
        segmentsStarted += 1
    }

    /// Writes out the last fragment.
    func finish() throws { try muxer.finish() }
}

/// What writes an HLS package's media segments in order: MPEG-TS (`TSRunWriter`) or CMAF
/// (`CMAFSegmentWriter`).
protocol PackageSegmentWriter: AnyObject {
    /// Writes `packets` (in file order) as the segment file `path`; `newRun`: it starts a run
    /// (`EXT-X-DISCONTINUITY` before it).
    func writeSegment(_ path: String, packets: [Packet], newRun: Bool) throws
    /// Writes out the last segment.
    func finish() throws
}

extension TSRunWriter: PackageSegmentWriter {}
