import Foundation
import Media
import Playback
import Timing

/// Makes a shared cut's piece: the frames `[from, to)` of one origin segment of one rung, where a
/// cue falls inside that segment. GOPs wholly inside the piece are the origin's packets; the GOP
/// a cue splits is decoded and its frames inside the piece encoded again (an IDR first, the
/// rung's bitrate, SPS/PPS id 1 beside the content's id 0). Sound before a cue is the origin's
/// packets that start before it; after a cue (and at a segment's start after a join) the
/// origin's sound encoded again from the cue's frame on (`CutSound`), on the content's clock.
///
/// The join policy for sound, at every join of the service's pieces (a cut, an ad, slate): a
/// piece's sound starts at its first picture, to the sample (so audio timestamps never run back
/// at a join, and no gap opens before it), and runs to the end of the AAC frame holding its last
/// picture's end (under 1024 samples, 21 ms at 48 kHz, past it). MPEG-TS cannot end a sound
/// inside an AAC frame, so there is an overlap under one frame at the end of a piece, which
/// players that place sound by timestamp trim; never a gap, which a player that counts decoded
/// samples (Chromium's native HLS) takes as time and drifts by at every join. Exact joins (no
/// overlap either) would need each ad's sound encoded again per join, as the stitch does.
///
/// Timestamps are the origin's (content clock + the muxer's constant offset). A piece that starts
/// at its segment's start continues the origin's MPEG-TS stream (its continuity counters go on
/// from the segment before); one that starts at a cue starts a new stream (discontinuity
/// indicator, after the playlist's `EXT-X-DISCONTINUITY`); one that ends at its segment's end
/// ends its counters where the origin segment did, so the next origin segment follows it.
enum CutMaker {
    /// Writes the piece to `output`. `soundFromFirstPicture`: a piece at its segment's start
    /// after a join has its sound made from its first picture too, and starts a new stream.
    static func piece(content p: PackagedContent, rung: PackagedRendition, segment k: Int, from a: Int, to b: Int,
                      soundFromFirstPicture: Bool = false, root: URL, output: URL) throws {
        let spans = rung.segments
        let whole = spans[k]
        precondition(whole.startFrame <= a && a < b && b <= whole.endFrame, "a piece inside its segment")
        let videoPath: String
        let reader: SegmentPackets
        // frames and times below are counted from frame `base`
        let base: Int
        if rung.hlsOrigin {
            // an HLS origin's rung: the segment's own file (its packets as the origin cut them), on
            // the origin's clock
            videoPath = root.appendingPathComponent(whole.path).path
            reader = try SegmentPackets(videoPath: videoPath, audioPath: videoPath, audioIndex: rung.mediaAudioIndex,
                                        frameRate: p.frameRate, originFrames: nil)
            base = whole.startFrame
        } else {
            videoPath = rung.copied ? p.source : root.appendingPathComponent(rung.video).path
            // an encoded rung keeps the pace its segments were packaged at
            reader = try SegmentPackets(videoPath: videoPath, audioPath: p.source, audioIndex: p.audioIndex,
                                        frameRate: p.frameRate, originFrames: p.originFrames,
                                        decodeDelayTicks: rung.copied ? 0 : rung.decodeDelayTicks ?? 0)
            try reader.skip(to: whole.startFrame)
            base = 0
        }
        let (a, b) = (a - base, b - base)
        let span = SegmentSpan(startFrame: whole.startFrame - base, endFrame: whole.endFrame - base, path: whole.path)
        let (video, audio) = try reader.next(endFrame: k + 1 < spans.count && base == 0 ? span.endFrame : nil)
        guard video.first?.frame == span.startFrame else {
            throw StoreError.unsupported("\(videoPath): segment \(k) does not start at frame \(span.startFrame)")
        }
        let annexB = AVCAnnexB(avcC: reader.video.videoCodecParameters(of: reader.videoIndex).extradata)
        // GOPs: a keyframe and the packets up to the next one
        let gops = SplitGOP.gops(video.map(\.packet)).map { Array(video[$0]) }
        var packets: [(packet: Packet, source: Int)] = []
        for (gi, gop) in gops.enumerated() {
            let g0 = gop[0].frame, g1 = gi + 1 < gops.count ? gops[gi + 1][0].frame : span.endFrame
            let lo = max(a, g0), hi = min(b, g1)
            guard lo < hi else { continue }
            if lo == g0 && hi == g1 {
                for v in gop { try annexB?.convert(v.packet); packets.append((v.packet, 0)) }
            } else {
                packets += try reencode(gop, frames: lo..<hi, reader: reader, content: p, rung: rung).map { ($0, 0) }
            }
        }
        let cueStart = reader.time(ofFrame: a), cueEnd = reader.time(ofFrame: b)
        var sources: [(demuxer: Demuxer, stream: Int)] = [(reader.video, reader.videoIndex)]
        let soundFile = output.appendingPathExtension("sound.nut")
        defer { try? FileManager.default.removeItem(at: soundFile) }
        let startsStream = a != span.startFrame || soundFromFirstPicture
        if let ad = reader.audio, let ai = reader.audioIndex {
            let sound = try CutSound.piece(audio, of: ad, stream: ai, cutIn: startsStream ? reader.streamTime(cueStart) : nil,
                                           cutOut: b == span.endFrame ? nil : reader.streamTime(cueEnd),
                                           bitRate: rung.rendition.audioBitrate, scratch: soundFile)
            sources.append(sound.source)
            packets += sound.packets.map { ($0, 1) }
        }
        let writer = TSRunWriter(sources: sources, firstRunDiscontinuous: startsStream)
        try writer.writeSegment(output.path, packets: packets, newRun: true)
        try writer.finish()
        // an origin's segments carry their own clock offset already; the muxer added its own again
        var data = [UInt8](!rung.hlsOrigin ? try Data(contentsOf: output)
                                             : TSTimestamps.shifted(try Data(contentsOf: output), by: -TSTimestamps.muxerOffset))
        if rung.hlsOrigin, let ours = SegmentCutPIDs.layout(data),
           let theirs = SegmentCutPIDs.layout([UInt8](try Data(contentsOf: URL(fileURLWithPath: videoPath)))) {
            // an origin's own PIDs (a live encoder's are not FFmpeg's), so its segments join the piece
            SegmentCutPIDs.remap(&data, from: ours, to: theirs)
        }
        if !startsStream, k > 0 {
            TSContinuity.continuing(&data, after: try counters(through: k - 1, spans: spans, root: root))
        } else if b == span.endFrame {
            TSContinuity.ending(&data, at: try counters(through: k, spans: spans, root: root))
        }
        try Data(data).write(to: output)
    }

    /// Per PID, the last continuity counter a client saw after origin segments `0...k`.
    static func counters(through k: Int, spans: [SegmentSpan], root: URL) throws -> [Int: UInt8] {
        var out: [Int: UInt8] = [:]
        for i in stride(from: k, through: 0, by: -1) {
            let last = TSContinuity.lastCounters([UInt8](try Data(contentsOf: root.appendingPathComponent(spans[i].path))))
            for (pid, c) in last where out[pid] == nil { out[pid] = c }
            if i < k && !last.keys.contains(where: { out[$0] == nil }) { break }
        }
        return out
    }

    /// Decodes `gop` (`SplitGOP`) and encodes its frames `frames` as one closed GOP
    /// (`StoreEncoding.closedGOP`), stamped on the origin's clock (decode time = presentation
    /// time − the origin's decode delay, so the copied GOPs around it keep increasing decode times).
    private static func reencode(_ gop: [SegmentPackets.VideoPacket], frames: Range<Int>, reader: SegmentPackets,
                                 content p: PackagedContent, rung: PackagedRendition) throws -> [Packet] {
        try StoreEncoding.closedGOP(count: frames.count, rendition: rung.rendition, frameRate: p.frameRate, period: reader.periodTicks,
                                    timestamps: { k in
                                        let pts = reader.ticks(ofFrame: frames.lowerBound + k)
                                        return (pts, pts - reader.reorderDelay * reader.periodTicks)
                                    }) { body in
            try SplitGOP.decode(gop.map(\.packet), demuxer: reader.video, streamIndex: reader.videoIndex, count: frames.count,
                                rank: SplitGOP.rank(keeping: frames, originTicks: reader.originTicks, periodTicks: reader.periodTicks), body)
        }
    }
}
