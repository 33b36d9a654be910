import CFFmpeg
import Timing

/// An encoder (libx264, rawvideo, aac, pcm_s16le, or any FFmpeg encoder by name). Owns its
/// AVCodecContext. Frames are sent with pts in `timeBase` ticks.
public final class Encoder {
    let context: UnsafeMutablePointer<AVCodecContext>
    /// The encoder's name, e.g. "libx264".
    public let name: String
    /// Time base of the frames sent and packets received.
    public let timeBase: Rational

    /// A video encoder for `width`x`height` yuv420p frames at `frameRate`, with encoder private
    /// options such as `preset`/`crf` (libx264). `globalHeader` when the muxer wants extradata.
    public init(video name: String, width: Int, height: Int, frameRate: Rational,
                options: [String: String], globalHeader: Bool, threads: Int = 0) throws {
        guard let codec = avcodec_find_encoder_by_name(name) else { throw MediaError.unsupported("encoder \(name) is not available in this FFmpeg build") }
        guard let ctx = avcodec_alloc_context3(codec) else { throw MediaError.allocationFailed("AVCodecContext") }
        context = ctx
        self.name = name
        timeBase = Rational(frameRate.denominator, frameRate.numerator)
        ctx.pointee.width = Int32(width)
        ctx.pointee.height = Int32(height)
        ctx.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        ctx.pointee.time_base = timeBase.av
        ctx.pointee.framerate = frameRate.av
        ctx.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        // a large picture: fewer threads, so the pictures in flight stay bounded
        let bytes = av_image_get_buffer_size(AV_PIX_FMT_YUV420P, Int32(width), Int32(height), 1)
        ctx.pointee.thread_count = Int32(PictureBudget.encoderThreads(requested: threads, pictureBytes: Int(max(bytes, 0))))
        if globalHeader { ctx.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        try open(codec, options)
    }

    /// An audio encoder at `sampleRate` with `channels` channels (default layout) and `bitRate`
    /// bits/s (ignored by PCM). It takes planar float for aac, interleaved s16 for pcm_s16le.
    public init(audio name: String, sampleRate: Int, channels: Int, bitRate: Int, globalHeader: Bool) throws {
        guard let codec = avcodec_find_encoder_by_name(name) else { throw MediaError.unsupported("encoder \(name) is not available in this FFmpeg build") }
        guard let ctx = avcodec_alloc_context3(codec) else { throw MediaError.allocationFailed("AVCodecContext") }
        context = ctx
        self.name = name
        timeBase = Rational(1, Int64(sampleRate))
        ctx.pointee.sample_rate = Int32(sampleRate)
        av_channel_layout_default(&ctx.pointee.ch_layout, Int32(channels))
        ctx.pointee.sample_fmt = name.hasPrefix("pcm_s16") ? AV_SAMPLE_FMT_S16 : AV_SAMPLE_FMT_FLTP
        ctx.pointee.bit_rate = Int64(bitRate)
        ctx.pointee.time_base = timeBase.av
        if globalHeader { ctx.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        try open(codec, [:])
    }

    private func open(_ codec: UnsafePointer<AVCodec>, _ options: [String: String]) throws {
        var dict: OpaquePointer?
        for (k, v) in options { av_dict_set(&dict, k, v, 0) }
        defer { av_dict_free(&dict) }
        try check(avcodec_open2(context, codec, &dict), "cannot open encoder \(name)")
        if let leftover = av_dict_get(dict, "", nil, AV_DICT_IGNORE_SUFFIX) {
            throw MediaError.unsupported("encoder \(name) does not know option '\(String(cString: leftover.pointee.key))'")
        }
    }

    deinit { var c: UnsafeMutablePointer<AVCodecContext>? = context; avcodec_free_context(&c) }

    /// Samples per frame the encoder wants (audio); 0 when any size will do.
    public var frameSize: Int { Int(context.pointee.frame_size) }

    /// Whether frames are interleaved 16-bit (PCM) rather than planar float.
    public var wantsInterleavedS16: Bool { context.pointee.sample_fmt == AV_SAMPLE_FMT_S16 }

    /// Sends a frame (nil to flush at the end).
    public func send(_ frame: Frame?) throws {
        let r = avcodec_send_frame(context, frame?.pointer)
        if r == averrorEOF { return }
        try check(r, "encoding with \(name)")
    }

    /// Receives the next packet into `packet`.
    public func receive(into packet: Packet) throws -> CodecState {
        packet.unref()
        let r = avcodec_receive_packet(context, packet.pointer)
        if r == averrorEAGAIN { return .needsInput }
        if r == averrorEOF { return .drained }
        try check(r, "encoding with \(name)")
        return .produced
    }
}

extension Frame {
    /// An audio frame holding `count` samples from `channels` starting at `offset`, as planar
    /// float or (when `interleavedS16`) interleaved signed 16-bit, stamped with `pts`.
    public static func audio(from channels: [[Float]], offset: Int, count: Int, sampleRate: Int,
                             interleavedS16: Bool, pts: Int64) throws -> Frame {
        let frame = try Frame()
        let f = frame.pointer
        f.pointee.nb_samples = Int32(count)
        f.pointee.sample_rate = Int32(sampleRate)
        f.pointee.format = (interleavedS16 ? AV_SAMPLE_FMT_S16 : AV_SAMPLE_FMT_FLTP).rawValue
        av_channel_layout_default(&f.pointee.ch_layout, Int32(channels.count))
        try check(av_frame_get_buffer(f, 0), "allocating an audio frame")
        if interleavedS16 {
            let out = UnsafeMutableRawPointer(f.pointee.data.0!).assumingMemoryBound(to: Int16.self)
            let n = channels.count
            for c in 0..<n {
                channels[c].withUnsafeBufferPointer { src in
                    for i in 0..<count {
                        let v = max(-1, min(1, src[offset + i]))
                        out[i * n + c] = Int16((v * 32767).rounded())
                    }
                }
            }
        } else {
            for c in 0..<channels.count {
                let plane = UnsafeMutableRawPointer(f.pointee.extended_data[c]!).assumingMemoryBound(to: Float.self)
                channels[c].withUnsafeBufferPointer { src in
                    plane.update(from: src.baseAddress! + offset, count: count)
                }
            }
        }
        f.pointee.pts = pts
        return frame
    }

    /// Marks a video frame to be coded as a keyframe (used at every splice point).
    public func forceKeyframe(_ on: Bool) {
        pointer.pointee.pict_type = on ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
    }
}
