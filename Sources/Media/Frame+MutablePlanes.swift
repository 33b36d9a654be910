import CFFmpeg

/// Write access to one plane of a video frame, for drawing into it.
public struct MutableFramePlane {
    /// The first byte of the plane.
    public let base: UnsafeMutablePointer<UInt8>
    /// Bytes from one row to the next.
    public let stride: Int
    /// Bytes of pixel data in one row.
    public let width: Int
    /// Rows.
    public let height: Int
}

extension Frame {
    /// The planes (Y, U, V) of a yuv420p frame for writing, for the duration of `body`; nil for any
    /// other pixel format. The frame must be writable (see `writableCopy()`): its buffers are not
    /// shared with another frame.
    public func withMutableYUV420Planes<R>(_ body: ([MutableFramePlane]) throws -> R) rethrows -> R? {
        guard pixelFormat == AV_PIX_FMT_YUV420P else { return nil }
        let w = width, h = height
        let sizes = [(w, h), ((w + 1) / 2, (h + 1) / 2), ((w + 1) / 2, (h + 1) / 2)]
        let data = pointer.pointee.data, lines = pointer.pointee.linesize
        let ptrs = [data.0, data.1, data.2], strides = [lines.0, lines.1, lines.2]
        var planes: [MutableFramePlane] = []
        for i in 0..<3 {
            guard let p = ptrs[i] else { return nil }
            planes.append(MutableFramePlane(base: p, stride: Int(strides[i]), width: sizes[i].0, height: sizes[i].1))
        }
        return try body(planes)
    }
}
