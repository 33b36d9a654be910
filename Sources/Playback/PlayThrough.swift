import Foundation
import Media
import Timing

/// Runs a file through the frame loop with nothing encoded: decode, frame selection, audio
/// resampling and splicing bookkeeping only. The decode benchmark's measure of the engine, and
/// a quick way to check that a file plays.
package enum PlayThrough {
    /// What a play-through did.
    public struct Stats: Sendable {
        /// Output video frames.
        public var frames: Int64
        /// Output audio samples per channel.
        public var samples: Int64
        /// Wall-clock seconds.
        public var seconds: Double
        /// The output format used (the file's own).
        public var format: OutputFormat
    }

    /// Plays `url` to the end at its own size, rate and audio format; `threads` for the decoder.
    public static func run(_ url: String, threads: Int = 0) throws -> Stats {
        let t0 = monotonicSeconds()
        let probe = try Demuxer(url: url)
        guard let v = probe.bestStream(.video) else { throw MediaError.missingStream("\(url) has no video stream") }
        let video = probe.streams[v]
        let audio = probe.bestStream(.audio).map { probe.streams[$0] }
        let size = video.displaySize
        let format = OutputFormat(width: size.width & ~1, height: size.height & ~1,
                                  frameRate: video.frameRate?.standardFrameRate ?? Rational(30, 1),
                                  sampleRate: audio?.sampleRate ?? 48000, channels: max(1, audio?.channels ?? 2))
        let source = try MediaSource(url: url, output: format, threads: threads)
        let surface = RenderSurface(format: format)
        surface.attach(DiscardingSink())
        _ = try DecodedFeed(source: source, output: format).play(until: nil, on: surface) { _ in true }
        return Stats(frames: surface.presentedFrames, samples: surface.presentedSamples, seconds: monotonicSeconds() - t0, format: format)
    }
}

/// A sink that drops everything (counts only).
final class DiscardingSink: SurfaceOutput {
    var isLive: Bool { false }
    func finish() throws {}
    private(set) var frames: Int64 = 0
    private(set) var samples: Int64 = 0
    func writeVideo(_ frame: Frame, index: Int64, keyframe: Bool) throws { frames += 1 }
    func writeAudio(_ channels: [[Float]], count: Int) throws { samples += Int64(count) }
}
