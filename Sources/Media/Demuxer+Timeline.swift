import CFFmpeg
import Timing

extension Demuxer {
    /// The earliest presentation time of any stream (FFmpeg's `start_time`: edit lists applied,
    /// so an MP4 whose every track starts with an empty edit of 2 s starts at 2 s), when known.
    public var startTime: MediaTime? {
        let s = context.pointee.start_time
        return s == noPTS ? nil : MediaTime(value: s, timescale: Int64(AV_TIME_BASE)).reduced
    }

    /// Whether the container is ISO BMFF / QuickTime (mov, mp4, m4a, 3gp), whose presentation
    /// timeline starts at 0 by definition: edit lists place each track's media on it.
    public var hasZeroBasedTimeline: Bool { formatName.split(separator: ",").contains { $0 == "mov" || $0 == "mp4" } }
}
