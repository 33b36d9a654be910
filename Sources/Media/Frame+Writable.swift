import CFFmpeg

extension Frame {
    /// A copy whose pixel buffers this frame does not share, safe to draw into.
    public func writableCopy() throws -> Frame {
        let f = try clone()
        try check(av_frame_make_writable(f.pointer), "making a frame writable")
        return f
    }
}
