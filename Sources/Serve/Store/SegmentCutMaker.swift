import Foundation
import Media
import Playback
import Timing

/// Cuts one stored MPEG-TS segment (H.264 + AAC: a live origin's, an HLS origin's or one of the
/// store's own ad segments) at frames: the piece holds the frames whose PTS lie in `[start, end)`.
///
/// The segment's GOPs are taken in decode order (a keyframe and the packets up to the next one);
/// each covers the presentation range from its earliest PTS to the next GOP's earliest PTS (with
/// B-frames and open GOPs the keyframe need not be shown first). A GOP wholly inside the piece is
/// the origin's packets, unless it is an open GOP (frames shown before its keyframe, which refer to
/// the GOP before) whose predecessor is not the origin's in the piece: that one, like a GOP a bound
/// splits, is decoded (with the GOP before it, for those references) and its frames inside encoded
/// again as one closed GOP, an IDR first (`StoreEncoding.videoEncoder(…, splice: true)`: SPS/PPS
/// id 1 beside the origin's id 0, no B-frames). A re-encoded frame keeps its PTS and takes the
/// decode time of the same rank in its GOP (the k-th smallest DTS is never after the k-th smallest
/// PTS), so decode times keep increasing across the copied GOPs around it.
///
/// Sound before a cut is the origin's packets that start before it (the AAC frame across the cut
/// stays, reaching past it by under 1024 samples); after a cut, and at the segment's start after
/// a join where the origin's sound starts after the first picture (`Plan.resound`), the origin's
/// sound encoded again from the cut's frame on (`CutSound`; `CutMaker`'s join policy). Timestamps are the origin's: the muxer's constant offset is
/// taken off again. Only the video and the audio stream are kept (another PID, e.g. SCTE-35, is not
/// in the piece), under the origin's PIDs, program number and transport stream id
/// (`SegmentCutPIDs`).
///
/// Open GOPs: a piece's re-encoded GOP is followed by re-encoded GOPs up to the first closed one
/// (an open GOP's leading frames refer to the GOP before, which the piece no longer has as the
/// origin made it). An after-piece of an all-open-GOP stream is therefore encoded again to the
/// segment's end, and the next origin segment's leading frames, which refer to the origin's last
/// frames, do not decode after it (FFmpeg drops frames there). Origins whose segments start with
/// an IDR (Apple's HLS authoring rules) are cut cleanly.
///
/// Continuity: a piece that starts at the segment's first frame starts each PID's counter where
/// the origin segment did (it continues the origin's stream); one that starts at a cut is a new
/// stream (discontinuity indicator on each PID's first packet, after the playlist's
/// `EXT-X-DISCONTINUITY`); one that ends at the segment's end ends each counter where the origin
/// segment did, so the next origin segment follows it.
enum SegmentCutMaker {
    static let wrap: Int64 = 1 << 33

    /// The frames a cut keeps, in ticks of the segment's video time base (90 kHz for MPEG-TS), on
    /// the clock the segment's demuxer gives (unwrapped within the file).
    struct Plan: Sendable, Equatable {
        /// PTS of the piece's first frame.
        var start: Int64
        /// PTS of the first frame after the piece; nil: the piece runs to the segment's end.
        var end: Int64?
        /// The piece starts at the segment's first frame.
        var fromStart: Bool
        /// Exact duration (to the next frame after the piece or the segment's end).
        var duration: MediaTime
        /// The piece starts at the segment's first frame after a join and the segment's sound
        /// starts after that frame: its sound is encoded again from the frame (`CutSound`), so
        /// that no gap opens before it.
        var resound = false
        /// The piece is the whole segment, as it is.
        var isWhole: Bool { fromStart && end == nil && !resound }
        /// The piece starts a new stream (a cut, or a segment start whose sound was made again).
        var startsStream: Bool { !fromStart || resound }
    }

    /// One segment file's packets, read once.
    final class Segment {
        let demuxer: Demuxer
        let videoIndex: Int
        let audioIndex: Int?
        let videoTB: Rational
        let audioTB: Rational?
        /// Video packets in decode order; audio packets in file order.
        let video: [Packet]
        let audio: [Packet]
        /// Every video PTS, ascending.
        let sortedPTS: [Int64]
        /// Ticks per frame: the smallest step between presentation times.
        let period: Int64

        /// `probe`: libavformat probes the streams' parameters (decoding a little); false for a
        /// sample-encrypted segment, whose slices cannot be decoded.
        init(_ file: URL, probe: Bool = true) throws {
            let d = try Demuxer(url: file.path, probe: probe)
            guard let v = d.bestStream(.video), d.streams[v].codecName == "h264" else {
                throw StoreError.unsupported("\(file.lastPathComponent): no H.264 video to cut")
            }
            let a = d.bestStream(.audio)
            d.keepOnly(Set([v] + (a.map { [$0] } ?? [])))
            let vtb = d.timeBase(of: v)
            var video: [Packet] = [], audio: [Packet] = []
            let scratch = try Packet()
            while try d.read(into: scratch) == .packet {
                if scratch.streamIndex == v {
                    guard scratch.ptsTicks != nil else { throw StoreError.unsupported("\(file.lastPathComponent): a video packet without PTS") }
                    video.append(try scratch.take())
                } else if scratch.streamIndex == a {
                    audio.append(try scratch.take())
                } else {
                    scratch.unref()
                }
            }
            guard let first = video.first else { throw StoreError.unsupported("\(file.lastPathComponent): no video packets") }
            guard first.isKeyframe else { throw StoreError.unsupported("\(file.lastPathComponent) does not start with a keyframe") }
            let sorted = video.compactMap(\.ptsTicks).sorted()
            if let step = zip(sorted, sorted.dropFirst()).map({ $1 - $0 }).min() {
                guard step > 0 else { throw StoreError.unsupported("\(file.lastPathComponent): two frames with one PTS") }
                period = step
            } else if let r = d.streams[v].frameRate, r.numerator > 0 {
                // one frame: a period of the stream's frame rate, in ticks
                period = max(1, (vtb.denominator * r.denominator) / max(1, vtb.numerator * r.numerator))
            } else {
                throw StoreError.unsupported("\(file.lastPathComponent): no frame rate")
            }
            demuxer = d
            videoIndex = v
            audioIndex = a
            videoTB = vtb
            audioTB = a.map { d.timeBase(of: $0) }
            self.video = video
            self.audio = audio
            sortedPTS = sorted
        }

        /// The packets of the last GOP, in decode order.
        var lastGOP: [Packet] { Array(video[(video.lastIndex(where: \.isKeyframe) ?? 0)...]) }

        /// Where the segment's last frame ends.
        var endPTS: Int64 { sortedPTS[sortedPTS.count - 1] + period }

        /// The frame rate the PTS steps give.
        var frameRate: Rational { Rational(videoTB.denominator, videoTB.numerator * period) }

        /// `t` (90 kHz, unwrapped or modulo 2^33) on the demuxer's clock of this segment: the
        /// value equal to it modulo 2^33 nearest the first packet's PTS.
        func near(_ t: Int64) -> Int64 {
            let anchor = video[0].ptsTicks!
            let ticks = rescale(t, from: Rational(1, 90_000), to: videoTB)
            let scaledWrap = rescale(SegmentCutMaker.wrap, from: Rational(1, 90_000), to: videoTB)
            var d = (ticks - anchor) % scaledWrap
            if d < 0 { d += scaledWrap }
            if d >= scaledWrap / 2 { d -= scaledWrap }
            return anchor + d
        }

        /// A time in the video time base as a `MediaTime`.
        func time(_ ticks: Int64) -> MediaTime { MediaTime(value: ticks * videoTB.numerator, timescale: videoTB.denominator) }

        /// An audio packet's start and end as `MediaTime`s.
        func audioSpan(_ p: Packet) -> (start: MediaTime, end: MediaTime)? {
            guard let tb = audioTB, let t = p.ptsTicks ?? p.dtsTicks else { return nil }
            let start = MediaTime(value: t * tb.numerator, timescale: tb.denominator)
            return (start, start + MediaTime(value: p.durationTicks * tb.numerator, timescale: tb.denominator))
        }

        private func rescale(_ t: Int64, from a: Rational, to b: Rational) -> Int64 {
            a == b ? t : MediaTime(value: t * a.numerator * b.denominator, timescale: a.denominator * b.numerator).rescaled(to: 1).value
        }
    }

    /// The frames `[from, to)` of `segment` (nil bounds: its start, its end); nil when that range
    /// holds no frame. `afterJoin`: the piece follows a join (an ad, slate), so its sound must
    /// start at its first picture even where that is the segment's first.
    static func plan(_ s: Segment, from: Int64?, to: Int64?, afterJoin: Bool = false) -> Plan? {
        let lo = from.map(s.near), hi = to.map(s.near)
        guard let start = lo.map({ l in s.sortedPTS.first { $0 >= l } }) ?? s.sortedPTS.first else { return nil }
        let end = hi.flatMap { h in s.sortedPTS.first { $0 >= h } }
        if let end, end <= start { return nil }
        let fromStart = start == s.sortedPTS[0]
        var plan = Plan(start: start, end: end, fromStart: fromStart, duration: (s.time(end ?? s.endPTS) - s.time(start)).reduced)
        if afterJoin, fromStart, let a = s.audioIndex, CutSound.applies(to: s.demuxer, stream: a),
           let first = s.audio.first.flatMap(s.audioSpan)?.start, first > s.time(start) {
            plan.resound = true
        }
        return plan
    }

    /// Writes the piece `plan` of segment `s` to `output`, re-encoding at `rendition`. `previous`,
    /// the segment before (when the store still holds it), is decoded for the references of an
    /// open first GOP's leading frames when those are re-encoded.
    static func piece(_ s: Segment, plan: Plan, rendition: Rendition, previous: Segment?, output: URL) throws {
        // GOPs in decode order and the presentation range each covers
        let gops = SplitGOP.gops(s.video)
        let starts = gops.map { g in s.video[g].compactMap(\.ptsTicks).min()! }
        let ends = Array(starts.dropFirst()) + [s.endPTS]
        for (gi, g) in gops.enumerated() where !s.video[g].allSatisfy({ ($0.ptsTicks! >= starts[gi]) && $0.ptsTicks! < ends[gi] }) {
            throw StoreError.unsupported("cut: GOP \(gi) shows frames among the next GOP's")
        }
        let pieceEnd = plan.end ?? s.endPTS
        var packets: [(packet: Packet, source: Int)] = []
        var previousCopied = false
        for (gi, g) in gops.enumerated() {
            let lo = max(plan.start, starts[gi]), hi = min(pieceEnd, ends[gi])
            guard lo < hi else { previousCopied = false; continue }
            let whole = lo == starts[gi] && hi == ends[gi]
            let closed = s.video[g.lowerBound].ptsTicks! == starts[gi]
            if whole && (closed || previousCopied || (gi == 0 && plan.fromStart)) {
                for i in g { packets.append((s.video[i], 0)) }
                previousCopied = true
            } else {
                // an open GOP's leading frames refer to the GOP before it
                var before: [Packet] = []
                if !closed && lo < s.video[g.lowerBound].ptsTicks! {
                    if gi > 0 { before = Array(s.video[gops[gi - 1]]) } else if let previous { before = previous.lastGOP }
                }
                packets += try reencode(s, gop: g, before: before, frames: lo..<hi, rendition: rendition).map { ($0, 0) }
                previousCopied = false
            }
        }
        let cutIn = plan.startsStream ? s.time(plan.start) : nil, cutOut = plan.end.map { s.time($0) }
        var sources: [(demuxer: Demuxer, stream: Int)] = [(s.demuxer, s.videoIndex)]
        let soundFile = output.appendingPathExtension("sound.nut")
        defer { try? FileManager.default.removeItem(at: soundFile) }
        if let a = s.audioIndex {
            // the previous segment's last frame warms the decoder for sound made from the cut
            let sound = try CutSound.piece(s.audio, leading: previous.flatMap { $0.audio.last.map { [$0] } } ?? [], of: s.demuxer,
                                           stream: a, cutIn: cutIn, cutOut: cutOut, bitRate: rendition.audioBitrate, scratch: soundFile)
            sources.append(sound.source)
            packets += sound.packets.map { ($0, 1) }
        }
        let origin = [UInt8](try Data(contentsOf: URL(fileURLWithPath: s.demuxer.url)))
        // the piece's first picture as far above its first PCR as the origin segment's: a player
        // that maps the first PCR after a discontinuity to the playlist's time (GStreamer) puts it
        // where the origin's own segments would be (issue 22)
        let writer = TSRunWriter(sources: sources, firstRunDiscontinuous: plan.startsStream,
                                 pictureAbovePCR: TSRunClock.pictureAbovePCR(origin))
        try writer.writeSegment(output.path, packets: packets, newRun: true)
        try writer.finish()
        var data = [UInt8](TSTimestamps.shifted(try Data(contentsOf: output), by: -TSTimestamps.muxerOffset))
        if let ours = SegmentCutPIDs.layout(data), let theirs = SegmentCutPIDs.layout(origin) {
            SegmentCutPIDs.remap(&data, from: ours, to: theirs)
        }
        if !plan.startsStream {
            // each PID starts where the origin segment did: the stream before it goes on
            TSContinuity.continuing(&data, after: TSContinuity.firstCounters(origin).mapValues { $0 &- 1 })
        } else if plan.end == nil {
            TSContinuity.ending(&data, at: TSContinuity.lastCounters(origin))
        }
        try Data(data).write(to: output)
    }

    /// Decodes GOP `gop` (after the GOP `before`, for an open GOP's references; `SplitGOP`) and
    /// encodes its frames with PTS in `frames` as one closed GOP on the origin's clock
    /// (`StoreEncoding.closedGOP`).
    private static func reencode(_ s: Segment, gop: Range<Int>, before: [Packet], frames: Range<Int64>,
                                 rendition: Rendition) throws -> [Packet] {
        let ptsInGOP = s.video[gop].compactMap(\.ptsTicks).sorted()
        let dtsInGOP = s.video[gop].map { $0.dtsTicks ?? $0.ptsTicks! }.sorted()
        // the frames to encode, each with the decode time of its rank in the GOP
        let targets = ptsInGOP.enumerated().filter { frames.contains($0.element) }.map { (pts: $0.element, dts: dtsInGOP[$0.offset]) }
        let rankOf = Dictionary(uniqueKeysWithValues: targets.enumerated().map { ($0.element.pts, $0.offset) })
        return try StoreEncoding.closedGOP(count: targets.count, rendition: rendition, frameRate: s.frameRate, period: s.period,
                                           timestamps: { targets[$0] }) { body in
            try SplitGOP.decode(before + s.video[gop], demuxer: s.demuxer, streamIndex: s.videoIndex, count: targets.count,
                                rank: { rankOf[$0] }, body)
        }
    }
}
