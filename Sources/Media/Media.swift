import CFFmpeg
/// FFmpeg version string, proving the link.
public func ffmpegVersion() -> String { String(cString: av_version_info()) }
