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
/// (`HLSPackager.timestampOffset`), so the segments join without gaps. Each run's PCRs are moved
/// so that its first picture is `max_delay` (or the given distance) above its first PCR, B-frames
/// or not (`TSRunClock`).
///
/// The serve store writes its shared segments with it too (content ladders, cuts, ads, slate).
package final class TSRunWriter {
    private let sources: [(demuxer: Demuxer, stream: Int)]
    private var muxer: Muxer?
    private var map: [Int] = []
    /// Whether the first run too starts with the discontinuity indicator set (a piece that
    /// follows an `EXT-X-DISCONTINUITY`, as a shared cut's tail).
    private let firstRunDiscontinuous: Bool
    /// The file being written, complete once the muxer goes on elsewhere or finishes.
    private var current: String?
    /// How far the PCRs of the current run move (`TSRunClock`); nil before its first file is complete.
    private var runPCRShift: Int64?
    /// Where each run's first picture sits above its first PCR (90 kHz).
    private let pictureAbovePCR: Int64

    /// For the packets of `streams` of `demuxer`.
    convenience init(demuxer: Demuxer, streams: [Int]) {
        self.init(sources: streams.map { (demuxer, $0) })
    }

    /// For packets of the given streams, each of its own demuxer (e.g. video from a rendition's
    /// encode, audio from the content); `firstRunDiscontinuous`: the first run too is marked as
    /// a new stream; `pictureAbovePCR` (90 kHz): where each run's first picture sits above its
    /// first PCR (nil: `max_delay`, `TSRunClock`), e.g. the distance of the segment a piece is cut from.
    public init(sources: [(demuxer: Demuxer, stream: Int)], firstRunDiscontinuous: Bool = false, pictureAbovePCR: Int64? = nil) {
        self.sources = sources
        self.firstRunDiscontinuous = firstRunDiscontinuous
        self.pictureAbovePCR = pictureAbovePCR ?? TSRunClock.firstPictureAbovePCR
    }

    /// What the mpegts muxer adds to every timestamp (`HLSPackager.timestampOffset`).
    public static var timestampOffset: MediaTime { HLSPackager.timestampOffset }

    /// Writes `packets` (in file order) as the segment file `path`; `newRun`: it starts a run.
    /// Packets are of the single demuxer's streams (`init(demuxer:streams:)`).
    func writeSegment(_ path: String, packets: [Packet], newRun: Bool) throws {
        let position = Dictionary(uniqueKeysWithValues: sources.enumerated().map { ($0.element.stream, $0.offset) })
        try writeSegment(path, packets: packets.map { ($0, position[$0.streamIndex]!) }, newRun: newRun)
    }

    /// Writes `packets` (in file order) as the segment file `path`, each for the source at the
    /// given position of `sources` (timestamps in that stream's time base).
    public func writeSegment(_ path: String, packets: [(packet: Packet, source: Int)], newRun: Bool) throws {
        if newRun || muxer == nil {
            let first = muxer == nil && !firstRunDiscontinuous
            try muxer?.finish()
            try completed()
            runPCRShift = nil
            let m = try Muxer(url: path, formatName: "mpegts")
            map = try sources.map { try m.addStream(copying: $0.stream, of: $0.demuxer) }
            var options = ["max_delay": String(Muxer.mpegTSMaxDelayMicroseconds), "avoid_negative_ts": "disabled"]
            if !first { options["mpegts_flags"] = "+initial_discontinuity" }
            muxer = m
            try m.writeHeader(options: options)
        } else {
            try muxer!.continueInNewFile(path, privateOptions: ["mpegts_flags": "+resend_headers"])
            try completed()
        }
        current = path
        for (p, s) in packets { try muxer!.write(p, stream: map[s]) }
    }

    /// Writes out the last segment.
    public func finish() throws {
        try muxer?.finish()
        muxer = nil
        try completed()
    }

    /// The file `current` is complete: its PCRs move by the run's shift, measured on the run's first file.
    private func completed() throws {
        guard let path = current else { return }
        current = nil
        if runPCRShift == nil {
            runPCRShift = TSRunClock.pcrShift(firstSegment: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))),
                                              target: pictureAbovePCR)
        }
        try TSRunClock.shiftPCRs(ofFile: path, by: runPCRShift ?? 0)
    }
}
