import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif
import Timing

/// An opened input container (file path or URL FFmpeg can read). Owns its AVFormatContext.
public final class Demuxer {
    /// What an input may make FFmpeg open.
    public enum OpenPolicy: Sendable {
        /// Input the user named (content): FFmpeg's defaults, every demuxer and protocol.
        case trusted
        /// Ad media (from an ad server, or cached from one): only the containers an ad can be
        /// (`adFormats`: no playlists, concat lists or image sequences, which name further files)
        /// read through the `file` protocol only.
        case adMedia
    }

    /// The demuxers ad media may be opened with: MP4/MOV/3GP, Matroska/WebM, MPEG-TS, MPEG-PS,
    /// AVI, FLV, Ogg and ASF/WMV. Nothing that reads a list of other files or URLs.
    public static let adFormats = "mov,matroska,webm,mpegts,mpeg,avi,flv,ogg,asf"
    /// The protocols ad media may be read through: the local (cached) copy only.
    public static let adProtocols = "file"
    /// The protocols content named by an http(s) URL may be read through (an HLS playlist served
    /// as content cannot make FFmpeg read `file:` or `pipe:` segments).
    public static let networkProtocols = "http,https,tcp,tls"
    /// Microseconds one network read (or connect) of content may wait before it fails: the same
    /// 8 s a single ad media download gets by default (`loadVideoTimeout`).
    public static let networkReadTimeout: Int64 = 8_000_000

    let context: UnsafeMutablePointer<AVFormatContext>
    /// Where the input was opened from.
    public let url: String
    /// Snapshots of every stream.
    public let streams: [StreamInfo]

    /// Opens and probes `url` under `policy`; throws with FFmpeg's reason when it cannot be read
    /// as media, and says so when an ad is not one of the allowed containers. `probe` false
    /// skips finding the stream information (which decodes a few frames): for a container that
    /// declares its streams whole (MP4's sample entries) whose pictures are not to be decoded
    /// (an encrypted CMAF segment, read for its timing only).
    public init(url: String, policy: OpenPolicy = .trusted, probe: Bool = true) throws {
        MemoryLimit.install()
        var ctx: UnsafeMutablePointer<AVFormatContext>?
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        try Demuxer.refuseBlockingFile(url)
        if policy == .trusted, let scheme = Demuxer.scheme(of: url), scheme == "http" || scheme == "https" {
            // content from a network: ad media's deadlines and protocol rules, never FFmpeg's
            // defaults (no timeout at all: a stalled server hung the stitch)
            av_dict_set(&options, "protocol_whitelist", Demuxer.networkProtocols, 0)
            av_dict_set(&options, "rw_timeout", "\(Demuxer.networkReadTimeout)", 0)
            av_dict_set(&options, "timeout", "\(Demuxer.networkReadTimeout)", 0)
        }
        if policy == .adMedia {
            av_dict_set(&options, "format_whitelist", Demuxer.adFormats, 0)
            av_dict_set(&options, "protocol_whitelist", Demuxer.adProtocols, 0)
            // Never follow a MOV/MP4 data reference to another file.
            av_dict_set(&options, "enable_drefs", "0", 0)
        }
        let opened = avformat_open_input(&ctx, url, nil, &options)
        if opened == interlude_averror_einval(), policy == .adMedia {
            throw MediaError.unsupported("\(url) is not an allowed ad container (MP4/MOV, WebM/Matroska, MPEG-TS/PS, AVI, FLV, Ogg, ASF; no playlists, lists of files or URLs)")
        }
        try check(opened, "cannot open \(url)")
        guard let ctx else { throw MediaError.allocationFailed("AVFormatContext") }
        let budget: PictureBudget = policy == .adMedia ? .ad : .content
        func close() { var c: UnsafeMutablePointer<AVFormatContext>? = ctx; avformat_close_input(&c) }
        // The container's declared picture size, before anything is decoded (finding the stream
        // information decodes a few frames).
        if let refusal = Demuxer.overBudget(ctx, budget) { close(); throw refusal }
        let found = probe ? Demuxer.findStreamInfo(ctx, budget: budget) : 0
        if found < 0 {
            close()
            try check(found, "cannot read stream information of \(url)")
        }
        // Again with what the bitstream said (its parser may correct the container).
        if let refusal = Demuxer.overBudget(ctx, budget) { close(); throw refusal }
        context = ctx
        self.url = url
        pictureBudget = budget
        streams = (0..<Int(ctx.pointee.nb_streams)).map { StreamInfo(ctx, ctx.pointee.streams[$0]!) }
    }

    /// The URL scheme of `url` (lowercased), or nil for a plain path.
    static func scheme(of url: String) -> String? {
        guard let colon = url.firstIndex(of: ":"), url[colon...].hasPrefix("://") else { return nil }
        let s = url[..<colon]
        guard !s.isEmpty, s.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }) else { return nil }
        return s.lowercased()
    }

    /// Throws for a local path (or `file:` URL) that is a FIFO or a device: FFmpeg's `open` would
    /// wait for a writer for ever, or read a device that never ends.
    static func refuseBlockingFile(_ url: String) throws {
        let path: String
        if url.hasPrefix("file:") {
            path = url.hasPrefix("file://") ? String(url.dropFirst(7)) : String(url.dropFirst(5))
        } else if scheme(of: url) == nil {
            path = url
        } else {
            return
        }
        var st = stat()
        guard stat(path, &st) == 0 else { return }   // FFmpeg says why it cannot be opened
        switch st.st_mode & S_IFMT {
        case S_IFIFO: throw MediaError.unsupported("\(url) is a FIFO; refused (media must be a regular file or a URL)")
        case S_IFCHR, S_IFBLK: throw MediaError.unsupported("\(url) is a device; refused (media must be a regular file or a URL)")
        default: return
        }
    }

    /// The budget every decoder of this input's video keeps to: `PictureBudget.ad` for ad media,
    /// `PictureBudget.content` for anything a user named.
    public let pictureBudget: PictureBudget

    /// The refusal for the first video stream whose declared size is over `budget`, if any.
    private static func overBudget(_ ctx: UnsafeMutablePointer<AVFormatContext>, _ budget: PictureBudget) -> MediaError? {
        for i in 0..<Int(ctx.pointee.nb_streams) {
            guard let par = ctx.pointee.streams[i]?.pointee.codecpar, par.pointee.codec_type == AVMEDIA_TYPE_VIDEO,
                  ctx.pointee.streams[i]!.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC == 0 else { continue }
            if let r = budget.refusal("the video picture", width: Int(par.pointee.width), height: Int(par.pointee.height)) { return r }
        }
        return nil
    }

    /// `avformat_find_stream_info`, with each stream's probing decoder held to `budget` (its
    /// `max_pixels`) so a picture over it fails there before it is allocated.
    private static func findStreamInfo(_ ctx: UnsafeMutablePointer<AVFormatContext>, budget: PictureBudget?) -> Int32 {
        guard let budget else { return avformat_find_stream_info(ctx, nil) }
        let n = Int(ctx.pointee.nb_streams)
        var options = [OpaquePointer?](repeating: nil, count: max(n, 1))
        defer { for i in options.indices { av_dict_free(&options[i]) } }
        for i in 0..<n { av_dict_set(&options[i], "max_pixels", String(budget.maxPixels), 0) }
        return options.withUnsafeMutableBufferPointer { avformat_find_stream_info(ctx, $0.baseAddress) }
    }

    deinit { var c: UnsafeMutablePointer<AVFormatContext>? = context; avformat_close_input(&c) }

    /// The container's duration, when it declares one.
    public var duration: MediaTime? {
        let d = context.pointee.duration
        return d > 0 ? MediaTime(value: d, timescale: Int64(AV_TIME_BASE)).reduced : nil
    }

    /// Whether the container's duration is only a guess from its bit rate (no index, no timestamps).
    public var durationIsGuessed: Bool { context.pointee.duration_estimation_method == AVFMT_DURATION_FROM_BITRATE }

    /// The container format's short name, e.g. "mov,mp4,m4a,3gp,3g2,mj2".
    public var formatName: String { String(cString: context.pointee.iformat.pointee.name) }

    /// The index of FFmpeg's preferred stream of a kind (ignoring cover pictures), or nil.
    public func bestStream(_ kind: StreamInfo.Kind) -> Int? {
        let type: AVMediaType = kind == .video ? AVMEDIA_TYPE_VIDEO : AVMEDIA_TYPE_AUDIO
        let i = av_find_best_stream(context, type, -1, -1, nil, 0)
        if i >= 0, !streams[Int(i)].isAttachedPicture { return Int(i) }
        return streams.first { $0.kind == kind && !$0.isAttachedPicture }?.index
    }

    /// Tells the demuxer to drop every stream except these (saves reading and copying).
    public func keepOnly(_ indices: Set<Int>) {
        for i in 0..<streams.count where !indices.contains(i) {
            context.pointee.streams[i]!.pointee.discard = AVDISCARD_ALL
        }
    }

    /// The outcome of reading one packet.
    public enum ReadResult {
        /// A packet was read into the packet given.
        case packet
        /// No packet is left: the input ended.
        case endOfFile
    }

    /// Reads the next packet into `packet`; `.endOfFile` at the end; throws on a read error.
    public func read(into packet: Packet) throws -> ReadResult {
        packet.unref()
        let r = av_read_frame(context, packet.pointer)
        if r == averrorEOF { return .endOfFile }
        try check(r, "error reading \(url)")
        return .packet
    }

    func stream(_ index: Int) -> UnsafeMutablePointer<AVStream> { context.pointee.streams[index]! }

    /// The time base of a stream.
    public func timeBase(of index: Int) -> Rational {
        Rational(stream(index).pointee.time_base) ?? Rational(1, 90000)
    }
}
