import Media
import Timing

/// The audio of one source as a sample-addressable signal at the output rate and channel count.
///
/// Sample `n` is at source time `n / sampleRate` relative to the source's origin (its first video
/// frame), so cutting video and audio at the same source time keeps them in sync. Positions where
/// the source has no audio (before it starts, in gaps, after it ends, or no audio stream) read as
/// exact silence. Reads move forward; a small history is kept so a join may step back a sample.
final class AudioTrack {
    private let reader: SourceReader
    private let resampler: Resampler
    private let sampleRate: Int
    private let channels: Int
    private let frame: Frame
    private var buffer: [[Float]]
    private var bufferStart: Int64 = 0
    private var started = false
    private var ended = false
    private var expectedNextPTS: MediaTime?
    /// The first decoded frame's timestamp (ticks of the decoder's time base), its rate and
    /// channels, and the sample index it was put at; whether a gap was filled since.
    private var start: (ticks: Int64?, rate: Int, channels: Int, index: Int64)?
    private var filledGap = false
    private static let history = 4096
    private static let gapTolerance = MediaTime(value: 1, timescale: 10)
    /// The origin of the source's timeline, set from its first video frame before reading.
    var origin: MediaTime = .zero
    /// What the samples are, for keeping their encoding (`AudioRunCache`): the source and its
    /// timeline origin, set by whoever opens the track; nil: not to be kept.
    var runIdentity: String?
    /// `runIdentity` while the samples are the source's as decoded (no `processor`).
    var reusableIdentity: String? { processor == nil ? runIdentity : nil }
    /// A filter every decoded sample passes through before it can be read (loudness gain and
    /// limiting); it must keep samples where they are (no delay). Set before the first read.
    var processor: AudioProcessor?
    private var staging: [[Float]] = []

    init(reader: SourceReader, output: OutputFormat) throws {
        self.reader = reader
        sampleRate = output.sampleRate
        channels = output.channels
        resampler = Resampler(outputRate: output.sampleRate, outputChannels: output.channels)
        frame = try Frame()
        buffer = Array(repeating: [], count: output.channels)
        ended = reader.audio == nil
    }

    private var bufferEnd: Int64 { bufferStart + Int64(buffer[0].count) }

    /// Appends samples `[position, position + count)` to `out` (one array per channel).
    func read(from position: Int64, count: Int, into out: inout [[Float]]) throws {
        let end = position + Int64(count)
        try fill(upTo: end)
        for c in 0..<channels {
            var written = 0
            // silence before the buffer
            let lead = Int(max(0, min(Int64(count), bufferStart - position)))
            if lead > 0 { out[c].append(contentsOf: repeatElement(0, count: lead)); written = lead }
            let from = max(position, bufferStart), to = min(end, bufferEnd)
            if from < to {
                let lo = Int(from - bufferStart), hi = Int(to - bufferStart)
                out[c].append(contentsOf: buffer[c][lo..<hi])
                written += hi - lo
            }
            if written < count { out[c].append(contentsOf: repeatElement(0, count: count - written)) }
        }
        // keep a little history, drop the rest
        let keepFrom = end - Int64(AudioTrack.history)
        if keepFrom > bufferStart {
            let drop = Int(min(keepFrom - bufferStart, Int64(buffer[0].count)))
            for c in 0..<channels { buffer[c].removeFirst(drop) }
            bufferStart += Int64(drop)
        }
    }

    /// For copying the source's own audio packets (smart rendering): `k` such that the source's
    /// audio sample at tick `t` of its stream (time base 1/output rate) is read at sample index
    /// `t + k`. nil unless the source's decoded audio reaches the track unchanged: at the output's
    /// rate and channel count, in that time base, no loudness processing, no gap filled so far
    /// (the caller checks that the source's packets have none either). Decodes the first frame
    /// when none was yet.
    func sourceTickShift() throws -> Int64? {
        if !started && !ended { try fill(upTo: bufferStart) }
        guard processor == nil, !filledGap, let decoder = reader.audio,
              decoder.timeBase == Rational(1, Int64(sampleRate)),
              let start, let ticks = start.ticks, start.rate == sampleRate, start.channels == channels else { return nil }
        return start.index - ticks
    }

    private func fill(upTo end: Int64) throws {
        while !ended && (!started || bufferEnd < end) {
            guard try reader.nextAudioFrame(into: frame) else {
                if started, let processor {
                    if staging.count != channels { staging = Array(repeating: [], count: channels) }
                    try resampler.convert(nil, appendingTo: &staging)
                    try processor.process(&staging, appendingTo: &buffer)
                    try processor.finish(appendingTo: &buffer)
                } else if started {
                    try resampler.convert(nil, appendingTo: &buffer)
                }
                ended = true
                return
            }
            guard let decoder = reader.audio else { return }
            let tb = decoder.timeBase
            let pts = frame.bestEffortTicks.map { MediaTime(value: $0 * tb.numerator, timescale: tb.denominator) - origin }
            let inRate = Int64(max(1, frame.sampleRate))
            if !started {
                let at = pts ?? .zero
                bufferStart = at.rescaled(to: Int64(sampleRate), rounding: .nearest).value
                started = true
                start = (frame.bestEffortTicks, frame.sampleRate, frame.channelCount, bufferStart)
            } else if let pts, let expected = expectedNextPTS, pts - expected > AudioTrack.gapTolerance {
                filledGap = true
                // a hole in the source's audio: keep later samples at their true time
                let gap = Int((pts - expected).rescaled(to: Int64(sampleRate), rounding: .nearest).value)
                if let processor {
                    staging = Array(repeating: Array(repeating: 0, count: gap), count: channels)
                    try processor.process(&staging, appendingTo: &buffer)
                } else {
                    for c in 0..<channels { buffer[c].append(contentsOf: repeatElement(0, count: gap)) }
                }
            }
            let base = pts ?? expectedNextPTS ?? .zero
            expectedNextPTS = base + MediaTime(value: Int64(frame.sampleCount), timescale: inRate)
            if let processor {
                if staging.count != channels { staging = Array(repeating: [], count: channels) }
                try resampler.convert(frame, appendingTo: &staging)
                try processor.process(&staging, appendingTo: &buffer)
            } else {
                try resampler.convert(frame, appendingTo: &buffer)
            }
        }
    }
}
