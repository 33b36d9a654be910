import Timing

/// The format every spliced frame is conformed to: picture size, constant frame rate, audio rate
/// and channel count. Pixels are square and the pixel format is yuv420p.
public struct OutputFormat: Sendable, Equatable, CustomStringConvertible {
    /// Width in pixels (even).
    public var width: Int
    /// Height in pixels (even).
    public var height: Int
    /// Constant output frame rate.
    public var frameRate: Rational
    /// Audio samples per second.
    public var sampleRate: Int
    /// Audio channels.
    public var channels: Int

    /// Makes an output format.
    public init(width: Int, height: Int, frameRate: Rational, sampleRate: Int, channels: Int) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.sampleRate = sampleRate
        self.channels = channels
    }

    /// The duration of one output frame.
    package var frameDuration: MediaTime { frameRate.period }

    /// Stream time of the start of output frame `index`.
    public func time(ofFrame index: Int64) -> MediaTime { frameDuration * index }

    /// The audio sample index (rounded to nearest) at stream time `t`.
    package func sampleIndex(at t: MediaTime) -> Int64 { t.rescaled(to: Int64(sampleRate), rounding: .nearest).value }

    /// `640x360 @ 30 fps, 48000 Hz, 2 ch`.
    public var description: String { "\(width)x\(height) @ \(frameRate) fps, \(sampleRate) Hz, \(channels) ch" }
}
