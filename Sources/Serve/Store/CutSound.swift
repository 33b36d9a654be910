import Foundation
import Media
import Timing

/// The sound of a piece that starts at a cut: the origin's AAC decoded and encoded again so that
/// its first frame starts at the cut itself, to the sample, rather than at the first origin frame
/// after it. Made once with the piece and shared like it.
///
/// Why: every join the service makes has the sound of the piece after it start at that piece's
/// first picture (`CutMaker`'s join policy). An origin's AAC frames fall where its encoder put
/// them, up to one frame (21 ms at 48 kHz) after a cut; kept as they were, each join where
/// content resumes left a gap of that much before its sound, and a player that counts decoded
/// samples (Chromium) drifted by it at every break: past 50 ms, after a few breaks of a live
/// channel, it logs "Large timestamp gap detected". The sound is the origin's samples from the
/// cut on (A/V exact), its frames on the cut's grid; the last one, padded with silence, reaches
/// past the origin's last sound by under one frame, an overlap the next segment's first frame
/// covers (players that place sound by timestamp trim it; none counts it as time).
enum CutSound {
    /// The re-encoded sound, ready to mux: its packets (timestamps in `stream`'s time base of
    /// `demuxer`, the intermediate file they were written to, which the caller removes).
    struct Encoded {
        var demuxer: Demuxer
        var stream: Int
        var packets: [Packet]
    }

    /// A piece's sound, ready to mux: the stream its packets belong to and the packets.
    struct Piece {
        var source: (demuxer: Demuxer, stream: Int)
        var packets: [Packet]
    }

    /// The sound of a piece of stream `stream` of `demuxer`, as both cut makers make it (the join
    /// policy `CutMaker` states): a piece that starts a stream at `cutIn` has its sound encoded
    /// again from `cutIn` on (`encode`, AAC), up to the last frame starting before `cutOut`; any
    /// other piece keeps the origin's `packets` that start in `[cutIn, cutOut)` (nil: unbounded),
    /// a packet without a timestamp only when neither bound is set. Times are on the stream's own
    /// clock. `leading`, `bitRate` and `scratch` as for `encode`.
    static func piece(_ packets: [Packet], leading: [Packet] = [], of demuxer: Demuxer, stream: Int,
                      cutIn: MediaTime?, cutOut: MediaTime?, bitRate: Int, scratch: URL) throws -> Piece {
        if let cutIn, !packets.isEmpty, applies(to: demuxer, stream: stream) {
            let sound = try encode(packets, leading: leading, of: demuxer, stream: stream, from: cutIn, to: cutOut,
                                   bitRate: bitRate, scratch: scratch)
            return Piece(source: (sound.demuxer, sound.stream), packets: sound.packets)
        }
        let tb = demuxer.timeBase(of: stream)
        let kept = packets.filter { p in
            guard let t = p.ptsTicks ?? p.dtsTicks else { return cutIn == nil && cutOut == nil }
            let start = MediaTime(value: t * tb.numerator, timescale: tb.denominator)
            return (cutIn.map { start >= $0 } ?? true) && (cutOut.map { start < $0 } ?? true)
        }
        return Piece(source: (demuxer, stream), packets: kept)
    }

    /// Whether a stream's sound is re-encoded at a cut (AAC: what the service's ads and slate
    /// carry too); other codecs keep the origin's packets.
    static func applies(to demuxer: Demuxer, stream: Int) -> Bool {
        demuxer.streams[stream].codecName == "aac"
    }

    /// Decodes `packets` (stream `stream` of `demuxer`, in order; `leading`: packets just before
    /// them, decoded first only so that the decoder is warm at the cut) and encodes the sound from
    /// `start` on, in frames whose first starts at `start`, as long as a frame starts before `end`
    /// (nil: before the decoded sound ends). `start` and `end` are on the stream's own clock
    /// (its packets' timestamps as times). Written through `scratch` (a NUT file).
    static func encode(_ packets: [Packet], leading: [Packet] = [], of demuxer: Demuxer, stream: Int, from start: MediaTime,
                       to end: MediaTime?, bitRate: Int, scratch: URL) throws -> Encoded {
        let tb = demuxer.timeBase(of: stream)
        let info = demuxer.streams[stream]
        let rate = info.sampleRate, channels = max(1, info.channels)
        guard rate > 0 else { throw StoreError.unsupported("cut: the sound has no sample rate") }
        let decoder = try Decoder(demuxer: demuxer, streamIndex: stream, threads: 1)
        let resampler = Resampler(outputRate: rate, outputChannels: channels)
        var pcm = [[Float]](repeating: [], count: channels)
        // decoded samples, each frame at its own timestamp (after what the decoder discarded,
        // e.g. an MP4's priming): `origin` is the sample index of pcm[c][0] on the stream's clock
        var origin: Int64?
        let frame = try Frame()
        func drain(keep: Bool) throws {
            while try decoder.receive(into: frame) == .produced {
                var out = [[Float]](repeating: [], count: channels)
                try resampler.convert(frame, appendingTo: &out)
                if keep, let t = frame.ptsTicks {
                    let at = MediaTime(value: t * tb.numerator, timescale: tb.denominator).rescaled(to: Int64(rate), rounding: .nearest).value
                    if origin == nil { origin = at }
                    // a jump of more than rounding (a hole or an overlap in the origin's sound): placed at its time
                    let position = Int(at - origin!), filled = pcm[0].count
                    if position >= 0 && abs(position - filled) > 2 {
                        for c in 0..<channels {
                            if position > filled { pcm[c] += [Float](repeating: 0, count: position - filled) } else { pcm[c].removeLast(filled - position) }
                        }
                    }
                    for c in 0..<channels { pcm[c] += out[c] }
                }
                frame.unref()
            }
        }
        for p in leading { try decoder.send(p); try drain(keep: false) }
        for p in packets { try decoder.send(p); try drain(keep: true) }
        try decoder.send(nil)
        try drain(keep: true)
        guard let origin else { throw StoreError.unsupported("cut: no sound decoded after the cut") }
        guard !pcm[0].isEmpty else { throw StoreError.unsupported("cut: no sound decoded after the cut") }
        let first = start.rescaled(to: Int64(rate), rounding: .nearest).value
        let decodedEnd = origin + Int64(pcm[0].count)
        let limit = end.map { $0.rescaled(to: Int64(rate), rounding: .up).value } ?? decodedEnd
        // samples from one frame before the cut (the encoder's warm-up, dropped after), as far as
        // the last frame that starts before the limit reaches, silence where nothing was decoded
        let size = 1024
        let frames = max(1, Int((limit - first + Int64(size) - 1) / Int64(size)))
        let from = first - Int64(size)
        let total = (frames + 1) * size
        var samples = [[Float]](repeating: [Float](repeating: 0, count: total), count: channels)
        let lo = max(from, origin), hi = min(from + Int64(total), decodedEnd)
        if lo < hi {
            for c in 0..<channels {
                let src = Int(lo - origin), dst = Int(lo - from), n = Int(hi - lo)
                samples[c].withUnsafeMutableBufferPointer { d in
                    pcm[c].withUnsafeBufferPointer { s in d.baseAddress!.advanced(by: dst).update(from: s.baseAddress!.advanced(by: src), count: n) }
                }
            }
        }
        let encoder = try Encoder(audio: "aac", sampleRate: rate, channels: channels, bitRate: bitRate, globalHeader: true)
        guard encoder.frameSize == size else { throw StoreError.unsupported("cut: an AAC frame of \(encoder.frameSize) samples") }
        try? FileManager.default.removeItem(at: scratch)
        let muxer = try Muxer(url: scratch.path, formatName: "nut")
        let out = try muxer.addStream(for: encoder)
        try muxer.writeHeader()
        let packet = try Packet()
        func write() throws {
            while try encoder.receive(into: packet) == .produced {
                // the warm-up frame and the encoder's priming start before the cut: left out
                if let t = packet.ptsTicks, t >= first { try muxer.write(try packet.take(), stream: out) } else { packet.unref() }
            }
        }
        for k in 0...frames {
            try encoder.send(try Frame.audio(from: samples, offset: k * size, count: size, sampleRate: rate, interleavedS16: false,
                                             pts: from + Int64(k * size)))
            try write()
        }
        try encoder.send(nil)
        try write()
        try muxer.finish()
        let reader = try Demuxer(url: scratch.path)
        let scratchPacket = try Packet()
        var encoded: [Packet] = []
        while try reader.read(into: scratchPacket) == .packet { encoded.append(try scratchPacket.take()) }
        guard encoded.count >= frames else { throw StoreError.unsupported("cut: \(encoded.count) of \(frames) sound frames encoded") }
        return Encoded(demuxer: reader, stream: 0, packets: Array(encoded.prefix(frames)))
    }
}
