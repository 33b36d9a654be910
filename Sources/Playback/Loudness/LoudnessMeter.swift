import Foundation
import Media

/// Measures the EBU R128 integrated loudness of a file's audio with libavfilter's `ebur128`,
/// decoding it once at the output's rate and channel count (what the stitch will splice).
enum LoudnessMeter {
    /// Integrated loudness in LUFS; nil when there is no audio stream or it is silent. Ad media is
    /// opened under `.adMedia` (the content, which the user named, under `.trusted`).
    static func integratedLoudness(of url: String, sampleRate: Int, channels: Int,
                                   policy: Demuxer.OpenPolicy = .adMedia) throws -> Double? {
        let reader = try SourceReader(url: url, wantAudio: true, wantVideo: false, policy: policy)
        guard reader.audio != nil else { return nil }
        let resampler = Resampler(outputRate: sampleRate, outputChannels: channels)
        let graph = try AudioFilterGraph(sampleRate: sampleRate, channels: channels, description: "ebur128=metadata=1")
        let frame = try Frame()
        var samples: [[Float]] = Array(repeating: [], count: channels)
        var discard: [[Float]] = Array(repeating: [], count: channels)
        var integrated: Double?
        func read(_ f: Frame) {
            if let i = f.metadataValue("lavfi.r128.I").flatMap(Double.init), i.isFinite, i > -70 { integrated = i }
        }
        func pump() throws {
            if let n = samples.first?.count, n > 0 { try graph.push(samples, count: n) }
            for c in 0..<channels { samples[c].removeAll(keepingCapacity: true) }
            try graph.pull(appendingTo: &discard, metadata: read)
            for c in 0..<channels { discard[c].removeAll(keepingCapacity: true) }
        }
        while try reader.nextAudioFrame(into: frame) {
            try resampler.convert(frame, appendingTo: &samples)
            try pump()
        }
        try resampler.convert(nil, appendingTo: &samples)
        try pump()
        try graph.finishInput()
        try graph.pull(appendingTo: &discard, metadata: read)
        return integrated
    }
}
