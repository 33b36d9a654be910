import CFFmpeg
import Timing

/// The state of a decoder, encoder or filter after asking it for output.
public enum CodecState: Equatable {
    /// A frame or packet was produced.
    case produced
    /// It needs more input before it can produce anything.
    case needsInput
    /// It was flushed and has nothing more to give.
    case drained
}

/// A decoder for one stream of a `Demuxer`, using FFmpeg's own threading. Owns its AVCodecContext.
public final class Decoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    /// The stream's time base: frame timestamps come in its ticks.
    public let timeBase: Rational
    /// The stream decoded.
    public let stream: StreamInfo
    /// How many packets were rejected as corrupt (decoding goes on past them).
    public private(set) var corruptPackets = 0
    /// The picture budget its input's demuxer carries (video), else nil.
    public private(set) var pictureBudget: PictureBudget?

    /// Opens a decoder for stream `index` of `demuxer`; `threads` 0 lets FFmpeg choose.
    public init(demuxer: Demuxer, streamIndex index: Int, threads: Int = 0) throws {
        let st = demuxer.stream(index)
        let par = st.pointee.codecpar
        guard let codec = avcodec_find_decoder(par!.pointee.codec_id) else {
            throw MediaError.unsupported("no decoder for codec \(demuxer.streams[index].codecName)")
        }
        guard let ctx = avcodec_alloc_context3(codec) else { throw MediaError.allocationFailed("AVCodecContext") }
        context = ctx
        stream = demuxer.streams[index]
        timeBase = demuxer.timeBase(of: index)
        try check(avcodec_parameters_to_context(ctx, par), "decoder parameters")
        ctx.pointee.pkt_timebase = st.pointee.time_base
        ctx.pointee.thread_count = Int32(threads)
        if par!.pointee.codec_type == AVMEDIA_TYPE_VIDEO {
            ctx.pointee.thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE
            // a large picture: fewer threads, so the pictures in flight stay bounded
            let format = AVPixelFormat(rawValue: par!.pointee.format)
            let bytes = av_image_get_buffer_size(format.rawValue < 0 ? AV_PIX_FMT_YUV420P : format, par!.pointee.width, par!.pointee.height, 1)
            ctx.pointee.thread_count = Int32(PictureBudget.decoderThreads(requested: threads, pictureBytes: Int(max(bytes, 0))))
            // FFmpeg refuses a larger picture before allocating it; `receive` checks the sides.
            let budget = demuxer.pictureBudget
            ctx.pointee.max_pixels = Int64(budget.maxPixels)
            pictureBudget = budget
        }
        try check(avcodec_open2(ctx, codec, nil), "cannot open \(stream.codecName) decoder")
    }

    /// A decoder for H.264 packets (4-byte NAL lengths) described by an `avcC` record, not read
    /// from a container: `timeBase` is the packets' time base.
    public convenience init(h264avcC extradata: [UInt8], width: Int, height: Int, timeBase: Rational, threads: Int = 0) throws {
        try self.init(codec: "h264", extradata: extradata, width: width, height: height, timeBase: timeBase, threads: threads)
    }

    /// A decoder for the video codec `name` (FFmpeg's decoder name, e.g. `h264`, `hevc`) whose
    /// packets are described by `extradata` (an `avcC`/`hvcC` record), not read from a container:
    /// `timeBase` is the packets' time base.
    public init(codec name: String, extradata: [UInt8], width: Int, height: Int, timeBase: Rational, threads: Int = 0) throws {
        guard let codec = avcodec_find_decoder_by_name(name) else { throw MediaError.unsupported("no \(name) decoder") }
        guard let ctx = avcodec_alloc_context3(codec) else { throw MediaError.allocationFailed("AVCodecContext") }
        context = ctx
        self.timeBase = timeBase
        stream = StreamInfo(index: 0, kind: .video, codecName: name, width: width, height: height,
                            sampleAspectRatio: Rational(1, 1), rotation: 0, mirrored: false, frameRate: nil, sampleRate: 0,
                            channels: 0, duration: nil, startTime: nil, isAttachedPicture: false, codecTag: "", language: nil)
        guard let buffer = av_mallocz(extradata.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)) else { throw MediaError.allocationFailed("extradata") }
        extradata.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: extradata.count) }
        ctx.pointee.extradata = buffer.assumingMemoryBound(to: UInt8.self)
        ctx.pointee.extradata_size = Int32(extradata.count)
        ctx.pointee.width = Int32(width)
        ctx.pointee.height = Int32(height)
        ctx.pointee.pkt_timebase = timeBase.av
        // smart rendering's decoders: 8-bit 4:2:0 pictures
        let bytes = av_image_get_buffer_size(AV_PIX_FMT_YUV420P, Int32(width), Int32(height), 1)
        ctx.pointee.thread_count = Int32(PictureBudget.decoderThreads(requested: threads, pictureBytes: Int(max(bytes, 0))))
        try check(avcodec_open2(ctx, codec, nil), "cannot open \(name) decoder")
    }

    deinit { var c: UnsafeMutablePointer<AVCodecContext>? = context; avcodec_free_context(&c) }

    /// Sends a packet (nil to flush at end of stream). A corrupt packet is counted and skipped.
    public func send(_ packet: Packet?) throws {
        let r = avcodec_send_packet(context, packet?.pointer)
        if r == averrorEOF || r == averrorEAGAIN { return }
        if r == interlude_averror_invaliddata() { corruptPackets += 1; return }
        try checkBudget(r)
        try check(r, "decoding \(stream.codecName)")
    }

    /// Discards the frames and packets the decoder holds, as a player does after a seek (or to
    /// decode again after the end of stream). Its configuration and the parameter sets it has
    /// seen, in band or in the extradata, stay.
    public func flush() { avcodec_flush_buffers(context) }

    /// A decoder held to a budget fails with EINVAL when the bitstream declares a picture over
    /// it (`max_pixels`), and FFmpeg then leaves the size 0×0 (`ff_set_dimensions`): said as such.
    /// Another EINVAL (a size it kept, within the budget) stays FFmpeg's error.
    private func checkBudget(_ r: Int32) throws {
        guard let pictureBudget, r == interlude_averror_einval() else { return }
        let w = Int(context.pointee.coded_width), h = Int(context.pointee.coded_height)
        if let refusal = pictureBudget.refusal("a decoded picture", width: w, height: h) { throw refusal }
        if w == 0 || h == 0 {
            throw MediaError.unsupported("the \(stream.codecName) bitstream declares a picture over the \(pictureBudget.name) picture budget (\(pictureBudget)); the decoder refused it")
        }
    }

    /// Receives the next decoded frame into `frame`.
    public func receive(into frame: Frame) throws -> CodecState {
        frame.unref()
        let r = avcodec_receive_frame(context, frame.pointer)
        if r == averrorEAGAIN { return .needsInput }
        if r == averrorEOF { return .drained }
        if r == interlude_averror_invaliddata() { corruptPackets += 1; return .needsInput }
        try checkBudget(r)
        try check(r, "decoding \(stream.codecName)")
        if let pictureBudget, let refusal = pictureBudget.refusal("a decoded picture", width: frame.width, height: frame.height) {
            frame.unref()
            throw refusal
        }
        return .produced
    }
}
