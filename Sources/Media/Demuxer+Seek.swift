import CFFmpeg
import Timing

extension Demuxer {
    /// Moves reading to the last keyframe at or before `time` (absolute container time, the
    /// streams' own start included). Decoders reading from it must be recreated or flushed.
    public func seek(toKeyframeAtOrBefore time: MediaTime) throws {
        let ts = time.rescaled(to: Int64(AV_TIME_BASE), rounding: .down).value
        try check(avformat_seek_file(context, -1, Int64.min, ts, ts, 0), "cannot seek \(url)")
    }
}
