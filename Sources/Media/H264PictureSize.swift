import CFFmpeg

/// The picture size an H.264 access unit's sequence parameter set declares, read by libavcodec's
/// H.264 parser (no decoding): for a stream whose slices cannot be decoded here (sample-encrypted
/// MPEG-TS, whose parameter sets are clear).
public enum H264PictureSize {
    /// The width and height (cropping applied) of the first SPS in `annexB` (one or more access
    /// units with start codes); nil when it holds none the parser reads.
    public static func of(annexB: [UInt8]) -> (width: Int, height: Int)? {
        guard !annexB.isEmpty, annexB.count < Int(Int32.max) else { return nil }
        // one owner: the parser and its codec context live in this call only
        guard let parser = av_parser_init(Int32(AV_CODEC_ID_H264.rawValue)) else { return nil }
        defer { av_parser_close(parser) }
        var context: UnsafeMutablePointer<AVCodecContext>? = avcodec_alloc_context3(nil)
        guard context != nil else { return nil }
        defer { avcodec_free_context(&context) }
        var out: UnsafeMutablePointer<UInt8>?
        var outSize: Int32 = 0
        // the access unit, then an empty buffer: the parser reads a frame once it knows its end
        annexB.withUnsafeBufferPointer { b in
            _ = av_parser_parse2(parser, context, &out, &outSize, b.baseAddress, Int32(b.count), noPTS, noPTS, 0)
        }
        _ = av_parser_parse2(parser, context, &out, &outSize, nil, 0, noPTS, noPTS, 0)
        let w = Int(parser.pointee.width), h = Int(parser.pointee.height)
        return w > 0 && h > 0 ? (w, h) : nil
    }
}
