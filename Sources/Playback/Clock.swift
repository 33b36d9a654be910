import Media

/// Shows FFmpeg's own warnings on standard error (`verbose`) or keeps it quiet (the default),
/// so that Interlude's one-line errors stand alone.
package func setMediaLogging(verbose: Bool) { setFFmpegLogLevel(verbose: verbose) }
