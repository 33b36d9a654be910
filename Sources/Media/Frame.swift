import CFFmpeg
import Timing

/// An owned AVFrame (decoded picture or audio samples), reference-counted by FFmpeg underneath:
/// `clone()` shares the pixel buffers. Freed in deinit.
public final class Frame {
    let pointer: UnsafeMutablePointer<AVFrame>

    /// Allocates an empty frame.
    public init() throws {
        guard let p = av_frame_alloc() else { throw MediaError.allocationFailed("AVFrame") }
        pointer = p
    }

    deinit { var p: UnsafeMutablePointer<AVFrame>? = pointer; av_frame_free(&p) }

    /// A new frame referencing the same buffers.
    package func clone() throws -> Frame {
        let f = try Frame()
        try check(av_frame_ref(f.pointer, pointer), "referencing a frame")
        return f
    }

    /// Drops the buffers, keeping the frame for reuse.
    package func unref() { av_frame_unref(pointer) }

    /// Width in pixels (video).
    public var width: Int { Int(pointer.pointee.width) }
    /// Height in pixels (video).
    public var height: Int { Int(pointer.pointee.height) }
    /// Samples per channel (audio).
    public var sampleCount: Int { Int(pointer.pointee.nb_samples) }
    /// Channels (audio).
    public var channelCount: Int { Int(pointer.pointee.ch_layout.nb_channels) }
    /// The pixel format's FFmpeg name (video), e.g. "yuv420p".
    package var pixelFormatName: String {
        guard let n = av_get_pix_fmt_name(AVPixelFormat(rawValue: pointer.pointee.format)) else { return "none" }
        return String(cString: n)
    }
    var pixelFormat: AVPixelFormat { AVPixelFormat(rawValue: pointer.pointee.format) }

    /// The best-effort presentation timestamp in ticks of the producing stream's time base.
    package var bestEffortTicks: Int64? {
        let t = pointer.pointee.best_effort_timestamp != noPTS ? pointer.pointee.best_effort_timestamp : pointer.pointee.pts
        return t == noPTS ? nil : t
    }

    /// The presentation timestamp in ticks of the producing stream's time base (for decoded
    /// audio: after any samples the decoder discarded at the start, e.g. MP4's priming), when set.
    package var ptsTicks: Int64? {
        let t = pointer.pointee.pts
        return t == noPTS ? nil : t
    }

    /// The frame's duration in ticks of the producing stream's time base, when known.
    package var durationTicks: Int64? {
        let d = pointer.pointee.pkt_duration
        return d > 0 ? d : nil
    }

    /// Sets the presentation timestamp (ticks of whatever time base the consumer expects).
    package func setPTS(_ ticks: Int64) { pointer.pointee.pts = ticks }
}

extension Frame {
    /// The frame's own sample aspect ratio, when set.
    public var sampleAspectRatio: Rational? {
        let r = pointer.pointee.sample_aspect_ratio
        return r.num > 0 && r.den > 0 ? Rational(Int64(r.num), Int64(r.den)) : nil
    }
}

extension Frame {
    /// Samples per second (audio).
    public var sampleRate: Int { Int(pointer.pointee.sample_rate) }
}
