import Foundation
import Media
import Timing

/// Writes the MPEG-TS segments of an HLS package in order, one mpegts muxer per run (the segments
/// between two `EXT-X-DISCONTINUITY` tags), as FFmpeg's hls muxer does within a run: the muxer goes
/// on in the next segment's file, so every PID's continuity counter and the clock carry on
/// across the segments of a run, with PAT and PMT again at each segment's start. A run after the
/// first starts a new stream whose first packet of every PID (PAT, PMT, SDT, audio, video) has
/// the discontinuity indicator set, the TS form of the playlist's `EXT-X-DISCONTINUITY`.
///
/// Timestamps stay those of the stitched timeline in every run, plus the muxer's constant offset
/// (`HLSPackager.timestampOffset`), so the segments join without gaps.
final class TSRunWriter {
    private let demuxer: Demuxer
    private let streams: [Int]
    private var muxer: Muxer?
    private var map: [Int: Int] = [:]

    /// For the packets of `streams` of `demuxer`.
    init(demuxer: Demuxer, streams: [Int]) {
        self.demuxer = demuxer
        self.streams = streams
    }

    /// Writes `packets` (in file order) as the segment file `path`; `newRun`: it starts a run.
    func writeSegment(_ path: String, packets: [Packet], newRun: Bool) throws {
        if newRun || muxer == nil {
            let first = muxer == nil
            try muxer?.finish()
            let m = try Muxer(url: path, formatName: "mpegts")
            map = [:]
            for s in streams { map[s] = try m.addStream(copying: s, of: demuxer) }
            var options = ["max_delay": String(HLSPackager.maxDelayMicroseconds), "avoid_negative_ts": "disabled"]
            if !first { options["mpegts_flags"] = "+initial_discontinuity" }
            muxer = m
            try m.writeHeader(options: options)
        } else {
            try muxer!.continueInNewFile(path, privateOptions: ["mpegts_flags": "+resend_headers"])
        }
        for p in packets { try muxer!.write(p, stream: map[p.streamIndex]!) }
    }

    /// Writes out the last segment.
    func finish() throws {
        try muxer?.finish()
        muxer = nil
    }
}
