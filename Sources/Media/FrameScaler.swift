import CFFmpeg

/// Resizes yuv420p video frames (for a picture drawn smaller inside another: a PiP window, an
/// L-bar). Owns one swscale context, rebuilt only when the sizes change, so that scaling every
/// frame of a break costs no setup. One thread at a time.
public final class FrameScaler {
    private var context: OpaquePointer?
    private var key: (Int, Int, Int, Int) = (0, 0, 0, 0)

    /// A scaler with no context yet.
    public init() {}

    deinit { sws_freeContext(context) }

    /// `frame` (yuv420p) resampled to `width`×`height` (bilinear), as a new frame.
    public func scale(_ frame: Frame, width: Int, height: Int) throws -> Frame {
        guard frame.pixelFormat == AV_PIX_FMT_YUV420P, width > 0, height > 0 else {
            throw MediaError.unsupported("scaling a \(frame.pixelFormatName) frame to \(width)x\(height)")
        }
        let k = (frame.width, frame.height, width, height)
        if context == nil || k != key {
            sws_freeContext(context)
            context = sws_getContext(Int32(frame.width), Int32(frame.height), AV_PIX_FMT_YUV420P, Int32(width), Int32(height),
                                     AV_PIX_FMT_YUV420P, SWS_BILINEAR, nil, nil, nil)
            key = k
        }
        guard let context else { throw MediaError.unsupported("cannot scale to \(width)x\(height)") }
        let out = try Frame.solidYUV420(width: width, height: height, y: 16, u: 128, v: 128)
        let s = frame.pointer.pointee, d = out.pointer.pointee
        let src: [UnsafePointer<UInt8>?] = [s.data.0, s.data.1, s.data.2, nil].map { $0.map { UnsafePointer($0) } }
        let srcStride: [Int32] = [s.linesize.0, s.linesize.1, s.linesize.2, 0]
        var dst: [UnsafeMutablePointer<UInt8>?] = [d.data.0, d.data.1, d.data.2, nil]
        var dstStride: [Int32] = [d.linesize.0, d.linesize.1, d.linesize.2, 0]
        try check(sws_scale(context, src, srcStride, 0, s.height, &dst, &dstStride), "scaling a frame")
        return out
    }
}
