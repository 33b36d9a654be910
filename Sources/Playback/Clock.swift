import Foundation

/// Seconds on a monotonic clock, for stage timings and progress.
public func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

import Media

/// Shows FFmpeg's own warnings on standard error (`verbose`) or keeps it quiet (the default),
/// so that Interlude's one-line errors stand alone.
public func setMediaLogging(verbose: Bool) { setFFmpegLogLevel(verbose: verbose) }
