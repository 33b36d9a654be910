import Media
import Timing

extension OutputFormat {
    /// The output format for a content: its display size (rotation and sample aspect ratio
    /// applied), its frame rate snapped to a standard rate and its audio format, unless `size` or
    /// `frameRate` say otherwise. A display size over the output picture budget
    /// (`PictureBudget.output`) is downscaled to fit, its shape kept (`isDownscaled`). Throws
    /// `StitchFailure.invalidOption` for an odd requested size, one over that budget, sizes
    /// outside 16–8192 or rates outside 1–240.
    package static func forContent(video: StreamInfo, audio: StreamInfo?, size: (width: Int, height: Int)? = nil,
                                  frameRate: Rational? = nil) throws -> OutputFormat {
        var s = PictureBudget.output.fitted(width: video.displaySize.width, height: video.displaySize.height)
        if let size {
            guard size.width % 2 == 0, size.height % 2 == 0 else {
                throw StitchFailure.invalidOption("output size \(size.width)x\(size.height) must be even (4:2:0 video)")
            }
            if let refusal = PictureBudget.output.refusal("output size", width: size.width, height: size.height) {
                throw StitchFailure.invalidOption(refusal.description)
            }
            s = size
        }
        guard s.width >= 16, s.height >= 16, s.width <= 8192, s.height <= 8192 else {
            throw StitchFailure.invalidOption("output size \(s.width)x\(s.height) is out of range (16–8192)")
        }
        let rate = frameRate ?? video.frameRate?.standardFrameRate ?? Rational(30, 1)
        guard rate.doubleValue >= 1, rate.doubleValue <= 240 else {
            throw StitchFailure.invalidOption("output frame rate \(rate) is out of range (1–240)")
        }
        return OutputFormat(width: s.width & ~1, height: s.height & ~1, frameRate: rate,
                            sampleRate: audio.map { $0.sampleRate > 0 ? $0.sampleRate : 48000 } ?? 48000,
                            channels: audio.map { min(max($0.channels, 1), 8) } ?? 2)
    }

    /// Whether the output format for `video` with no size asked for is smaller than its display
    /// size, because that is over the output picture budget: the warning the stitch gives then.
    package static func downscaleWarning(video: StreamInfo, output: OutputFormat) -> String? {
        let d = video.displaySize
        guard !PictureBudget.output.admits(width: d.width, height: d.height) else { return nil }
        return "content is \(d.width)x\(d.height), over the output picture budget (\(PictureBudget.output)): "
            + "written downscaled to \(output.width)x\(output.height) (--size sets another size within the budget)"
    }
}
