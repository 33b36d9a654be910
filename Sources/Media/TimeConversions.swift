import CFFmpeg
import Timing

extension Rational {
    /// From an FFmpeg rational; nil when either part is zero or negative.
    init?(_ r: AVRational) {
        guard r.num > 0, r.den > 0 else { return nil }
        self.init(Int64(r.num), Int64(r.den))
    }

    /// As an FFmpeg rational (parts must fit in 32 bits).
    var av: AVRational { AVRational(num: Int32(clamping: numerator), den: Int32(clamping: denominator)) }
}

extension MediaTime {
    /// `ticks` of a stream time base as exact media time; nil for AV_NOPTS_VALUE.
    init?(ticks: Int64, timeBase: AVRational) {
        guard ticks != noPTS, timeBase.den > 0, timeBase.num > 0 else { return nil }
        self = (MediaTime(value: ticks, timescale: Int64(timeBase.den)) * Int64(timeBase.num)).reduced
    }

    /// Ticks of a time base, rounded to nearest.
    func ticks(in timeBase: AVRational) -> Int64 {
        count(of: MediaTime(value: Int64(timeBase.num), timescale: Int64(timeBase.den)), rounding: .nearest)
    }
}

/// The FFmpeg library version (e.g. "5.1.9-0+deb12u1"), for reports and benchmarks.
public func ffmpegVersion() -> String { String(cString: av_version_info()) }

/// Sets FFmpeg's own log level: quiet by default so that Interlude's one-line errors stand alone.
public func setFFmpegLogLevel(verbose: Bool) {
    av_log_set_level(verbose ? AV_LOG_WARNING : AV_LOG_QUIET)
}
