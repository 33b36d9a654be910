import CFFmpeg

extension Frame {
    /// A new yuv420p video frame of `width`×`height` filled with one colour: luma `y` and chroma
    /// `u`, `v` (8-bit, as stored). Useful for test patterns and blank frames.
    public static func solidYUV420(width: Int, height: Int, y: UInt8, u: UInt8, v: UInt8) throws -> Frame {
        guard width > 0, height > 0 else { throw MediaError.unsupported("a solid frame of \(width)x\(height)") }
        let frame = try Frame()
        let f = frame.pointer
        f.pointee.width = Int32(width)
        f.pointee.height = Int32(height)
        f.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        try check(av_frame_get_buffer(f, 0), "allocating a video frame")
        let rows = [height, (height + 1) / 2, (height + 1) / 2]
        let values = [y, u, v]
        let data = [f.pointee.data.0, f.pointee.data.1, f.pointee.data.2]
        let lines = [f.pointee.linesize.0, f.pointee.linesize.1, f.pointee.linesize.2]
        for i in 0..<3 {
            guard let plane = data[i] else { throw MediaError.allocationFailed("a yuv420p plane") }
            // Fill whole lines, padding included: every byte av_frame_get_buffer gave is defined.
            plane.initialize(repeating: values[i], count: Int(lines[i]) * rows[i])
        }
        return frame
    }
}
