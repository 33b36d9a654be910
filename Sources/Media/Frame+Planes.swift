import CFFmpeg

/// Read access to a video frame's pixels, for outputs that copy them out (a window, a checksum).
public struct FramePlane {
    /// The first byte of the plane.
    public let base: UnsafePointer<UInt8>
    /// Bytes from one row to the next.
    public let stride: Int
    /// Bytes of pixel data in one row.
    public let width: Int
    /// Rows.
    public let height: Int
}

extension Frame {
    /// The planes of a planar yuv420p frame (Y, U, V) for the duration of `body`; nil for any
    /// other pixel format. The pointers are valid only inside `body`.
    public func withYUV420Planes<R>(_ body: ([FramePlane]) throws -> R) rethrows -> R? {
        guard pixelFormat == AV_PIX_FMT_YUV420P else { return nil }
        let w = width, h = height
        let sizes = [(w, h), ((w + 1) / 2, (h + 1) / 2), ((w + 1) / 2, (h + 1) / 2)]
        var planes: [FramePlane] = []
        let data = pointer.pointee.data, lines = pointer.pointee.linesize
        let ptrs = [data.0, data.1, data.2], strides = [lines.0, lines.1, lines.2]
        for i in 0..<3 {
            guard let p = ptrs[i] else { return nil }
            planes.append(FramePlane(base: UnsafePointer(p), stride: Int(strides[i]), width: sizes[i].0, height: sizes[i].1))
        }
        return try body(planes)
    }
}
