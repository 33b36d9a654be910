import Foundation
import Timing

/// Decides each ad's gain from `--loudness` and attaches the gain + limiter chain to its audio.
/// Each media file and the content are measured once per stitch.
final class LoudnessNormalizer {
    let mode: LoudnessMode
    private let content: String
    private let format: OutputFormat
    private var contentLevel: Double??
    private var measured: [String: Double?] = [:]
    /// Gain is kept within these bounds (dB): near-silent ads are not blown up to noise.
    static let gainRange = -30.0...20.0
    /// Where `auto` aims when the content has no measurable audio.
    static let fallbackTarget = -23.0

    init(mode: LoudnessMode, content: String, format: OutputFormat) {
        self.mode = mode; self.content = content; self.format = format
    }

    /// The level ads are gained to; nil when off.
    func target() throws -> Double? {
        switch mode {
        case .off: return nil
        case .target(let v): return v
        case .auto:
            if contentLevel == nil {
                contentLevel = .some(try LoudnessMeter.integratedLoudness(of: content, sampleRate: format.sampleRate, channels: format.channels, policy: .trusted))
            }
            return (contentLevel ?? nil) ?? LoudnessNormalizer.fallbackTarget
        }
    }

    /// A pending normalisation of one ad: its processor, and the report once it has played.
    struct Applied {
        let processor: AudioProcessor
        let input: Double
        let target: Double
        let gain: Double
        var report: AdLoudness {
            AdLoudness(input: input, target: target, gain: gain, output: processor.integrated, outputTruePeak: processor.truePeak)
        }
    }

    /// Measures the ad at `url` and sets the gain + limiter on its audio track; nil when off or
    /// the ad has no measurable audio.
    func attach(to audio: AudioTrack, hasAudio: Bool, url: String) throws -> Applied? {
        guard hasAudio, let target = try target() else { return nil }
        if measured[url] == nil {
            measured[url] = .some(try LoudnessMeter.integratedLoudness(of: url, sampleRate: format.sampleRate, channels: format.channels))
        }
        guard let input = measured[url] ?? nil else { return nil }
        let gain = min(max(target - input, LoudnessNormalizer.gainRange.lowerBound), LoudnessNormalizer.gainRange.upperBound)
        let processor = try AudioProcessor(gain: gain, sampleRate: format.sampleRate, channels: format.channels)
        audio.processor = processor
        return Applied(processor: processor, input: input, target: target, gain: gain)
    }
}
