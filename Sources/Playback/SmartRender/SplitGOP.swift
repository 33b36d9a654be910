import Media

/// The part of smart rendering that every splicer of this package shares — the stitch's
/// `SmartContent` and the service's cut makers: a GOP is a keyframe and the packets after it up
/// to the next one (decode order); the GOP a cue splits is decoded and only the frames on the
/// kept side of the cue are handed on, in presentation order, to be encoded again as one closed
/// GOP (an IDR first) whose parameter sets are numbered `parameterSetID`, beside the content's.
package enum SplitGOP {
    /// The id of the SPS and PPS of a GOP encoded again inside copied content: the content's own
    /// are id 0 (libx264's and most encoders' default), so both sets can live in one stream.
    public static let parameterSetID = 1

    /// The GOPs of `packets` (decode order) as index ranges: each starts at a keyframe (the first
    /// one also when the stream does not start with one) and runs to the next.
    public static func gops(_ packets: [Packet]) -> [Range<Int>] {
        var out: [Range<Int>] = []
        for (i, p) in packets.enumerated() {
            if p.isKeyframe || out.isEmpty { out.append(i..<(i + 1)) } else { out[out.count - 1] = out[out.count - 1].lowerBound..<(i + 1) }
        }
        return out
    }

    /// The `rank` for `decode` when frames sit at a constant rate — frame `i` at
    /// `originTicks + i·periodTicks` — and the splice keeps `frames`: a frame's place among them.
    public static func rank(keeping frames: Range<Int>, originTicks: Int64, periodTicks: Int64) -> (Int64) -> Int? {
        { t in
            let i = Int((t - originTicks) / periodTicks)
            return frames.contains(i) ? i - frames.lowerBound : nil
        }
    }

    /// Decodes `packets` (a GOP, after any packets its frames refer to) with a new decoder of
    /// stream `streamIndex` and hands over the `count` frames the splice keeps, in presentation
    /// order: `rank` maps a decoded frame's best-effort timestamp (stream ticks) to its place
    /// among them, nil for a frame on the other side of the cue. Nothing is held beyond the
    /// decoder's own delay. Throws when a kept frame comes out of order or is missing: a GOP that
    /// does not decode to what its timestamps promise is not spliced.
    public static func decode(_ packets: [Packet], demuxer: Demuxer, streamIndex: Int, threads: Int = 0,
                              count: Int, rank: (Int64) -> Int?, _ body: (Int, Frame) throws -> Void) throws {
        let decoder = try Decoder(demuxer: demuxer, streamIndex: streamIndex, threads: threads)
        var next = 0
        func drain() throws {
            while true {
                let f = try Frame()
                guard try decoder.receive(into: f) == .produced else { return }
                guard let t = f.bestEffortTicks, let k = rank(t) else { continue }
                guard k == next, k < count else {
                    throw MediaError.unsupported("splicing a GOP: decoding gave kept frame \(k) (at \(t)) where \(next) was due")
                }
                try body(k, f)
                next += 1
            }
        }
        for p in packets { try decoder.send(p); try drain() }
        try decoder.send(nil)
        try drain()
        guard next == count else {
            throw MediaError.unsupported("splicing a GOP: \(next) of \(count) frames decoded")
        }
    }
}
