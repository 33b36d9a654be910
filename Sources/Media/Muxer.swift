import CFFmpeg
import Timing

/// An output container written to a file path or `pipe:1`. Owns its AVFormatContext and AVIO.
public final class Muxer {
    /// How far every MPEG-TS the project writes puts its PCR below its decode times, in µs (the
    /// mpegts muxer's `max_delay`): 0.7 s, as the ffmpeg CLI's default. One value for the
    /// engine's segments and for origin segments remuxed (`FragmentRemux`), so a decoder buffer
    /// fills alike and a player that re-estimates its clock at a discontinuity finds PCR and
    /// PTS in the same relation on both sides.
    public static let mpegTSMaxDelayMicroseconds: Int64 = 700_000

    let context: UnsafeMutablePointer<AVFormatContext>
    var encoderTimeBases: [AVRational] = []
    private var headerWritten = false
    var closed = false
    /// Where it writes (the latest file after `continueInNewFile(_:)`).
    public internal(set) var url: String

    /// Creates a muxer of format `formatName` (e.g. "mp4", "nut", "yuv4mpegpipe") writing to `url`.
    public init(url: String, formatName: String) throws {
        var ctx: UnsafeMutablePointer<AVFormatContext>?
        try check(avformat_alloc_output_context2(&ctx, nil, formatName, url), "cannot create \(formatName) output")
        guard let ctx else { throw MediaError.allocationFailed("AVFormatContext") }
        context = ctx
        self.url = url
        if (ctx.pointee.oformat.pointee.flags & AVFMT_NOFILE) == 0 {
            // On failure deinit frees the context (every property is set by now).
            try check(avio_open(&ctx.pointee.pb, url, AVIO_FLAG_WRITE), "cannot write \(url)")
        }
    }

    deinit {
        if !closed, context.pointee.pb != nil, (context.pointee.oformat.pointee.flags & AVFMT_NOFILE) == 0 {
            avio_closep(&context.pointee.pb)
        }
        avformat_free_context(context)
    }

    /// Whether the format wants codec extradata in a global header (MP4 does).
    public var wantsGlobalHeader: Bool { (context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER) != 0 }

    /// Adds a stream carrying `encoder`'s packets; returns its index.
    @discardableResult
    public func addStream(for encoder: Encoder) throws -> Int {
        guard let st = avformat_new_stream(context, nil) else { throw MediaError.allocationFailed("AVStream") }
        try check(avcodec_parameters_from_context(st.pointee.codecpar, encoder.context), "output stream parameters")
        st.pointee.time_base = encoder.timeBase.av
        if encoder.context.pointee.codec_type == AVMEDIA_TYPE_VIDEO {
            st.pointee.avg_frame_rate = encoder.context.pointee.framerate
            st.pointee.sample_aspect_ratio = AVRational(num: 1, den: 1)
        }
        encoderTimeBases.append(encoder.timeBase.av)
        return Int(st.pointee.index)
    }

    /// Adds a chapter. The MP4 muxer writes chapters added after the header with the trailer.
    public func addChapter(id: Int, title: String, start: MediaTime, end: MediaTime) throws {
        let tb = AVRational(num: 1, den: 1000)
        try check(interlude_add_chapter(context, Int64(id), tb, start.ticks(in: tb), end.ticks(in: tb), title), "adding a chapter")
    }

    /// Writes the header with muxer options such as `movflags=+faststart`.
    public func writeHeader(options: [String: String] = [:]) throws {
        var dict: OpaquePointer?
        for (k, v) in options { av_dict_set(&dict, k, v, 0) }
        defer { av_dict_free(&dict) }
        try check(avformat_write_header(context, &dict), "cannot write the header of \(url)")
        headerWritten = true
    }

    /// Writes an encoded packet of stream `index` (timestamps in its encoder's time base).
    public func write(_ packet: Packet, stream index: Int) throws {
        guard !closed else { throw MediaError.unsupported("writing \(url) after it was closed") }
        packet.pointer.pointee.stream_index = Int32(index)
        av_packet_rescale_ts(packet.pointer, encoderTimeBases[index], context.pointee.streams[index]!.pointee.time_base)
        try check(av_interleaved_write_frame(context, packet.pointer), "writing \(url)")
    }

    /// Writes the trailer and closes the output.
    public func finish() throws {
        guard headerWritten, !closed else { return }
        try check(av_write_trailer(context), "finishing \(url)")
        if (context.pointee.oformat.pointee.flags & AVFMT_NOFILE) == 0 {
            avio_closep(&context.pointee.pb)
        }
        closed = true
    }
}

extension Muxer {
    /// Ticks per second of stream `index` as the muxer writes it (after `writeHeader`: an mp4
    /// track's timescale).
    public func timescale(ofStream index: Int) -> Int64 {
        let tb = context.pointee.streams[index]!.pointee.time_base
        return tb.num == 1 ? Int64(tb.den) : Int64(tb.den) / Int64(max(1, tb.num))
    }
}
