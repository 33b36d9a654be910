import Foundation
import Media

/// Gain, a true-peak limiter and a loudness meter over a source's decoded audio (planar float at
/// the output rate). The limiter runs at four times the rate so that peaks between samples are
/// caught (FFmpeg's `alimiter` at the output rate leaves +1 dB overs after AAC on clicks), with
/// its lookahead delay compensated (`latency=1`): sample *n* out is sample *n* in.
final class AudioProcessor {
    private let graph: AudioFilterGraph
    /// Integrated loudness of what came out so far (LUFS), from `ebur128` at the end of the chain.
    private(set) var integrated: Double?
    /// True peak of what came out so far (dBTP).
    private(set) var truePeak: Double?

    init(gain: Double, sampleRate: Int, channels: Int) throws {
        // Limit 1.5 dB under the ceiling: the resampling back and AAC add a few tenths.
        let limit = pow(10, (loudnessCeiling - 0.5) / 20)
        let description = String(format: "volume=%.3fdB:precision=float,aresample=%d,", gain, sampleRate * 4)
            + String(format: "alimiter=limit=%.4f:attack=5:release=50:level=0:latency=1,", limit)
            + "aresample=\(sampleRate),ebur128=peak=true:metadata=1"
        graph = try AudioFilterGraph(sampleRate: sampleRate, channels: channels, description: description)
    }

    /// Pushes `samples` (emptied) and appends what the chain gives back to `out`.
    func process(_ samples: inout [[Float]], appendingTo out: inout [[Float]]) throws {
        let n = samples.first?.count ?? 0
        if n > 0 { try graph.push(samples, count: n) }
        for c in 0..<samples.count { samples[c].removeAll(keepingCapacity: true) }
        try graph.pull(appendingTo: &out, metadata: read)
    }

    /// Ends the input and appends the chain's remaining samples to `out`.
    func finish(appendingTo out: inout [[Float]]) throws {
        try graph.finishInput()
        try graph.pull(appendingTo: &out, metadata: read)
    }

    private func read(_ frame: Frame) {
        if let i = frame.metadataValue("lavfi.r128.I").flatMap(Double.init), i.isFinite, i > -70 { integrated = i }
        if let p = frame.metadataValue("lavfi.r128.true_peak").flatMap(Double.init), p > 0 { truePeak = 20 * log10(p) }
    }
}
