import CFFmpeg

/// One of libavcodec's bitstream filters over the packets of one stream (e.g. `aac_adtstoasc`,
/// which turns ADTS-framed AAC as MPEG-TS carries it into raw frames with an AudioSpecificConfig,
/// as MP4 wants). Owns its AVBSFContext.
final class BitstreamFilter {
    private var context: UnsafeMutablePointer<AVBSFContext>?

    /// A filter `name` for packets of stream `index` of `demuxer`.
    init(_ name: String, for index: Int, of demuxer: Demuxer) throws {
        guard let filter = av_bsf_get_by_name(name) else { throw MediaError.unsupported("no bitstream filter \(name)") }
        var ctx: UnsafeMutablePointer<AVBSFContext>?
        _ = try check(av_bsf_alloc(filter, &ctx), "allocating \(name)")
        context = ctx
        let source = demuxer.stream(index)
        _ = try check(avcodec_parameters_copy(ctx!.pointee.par_in, source.pointee.codecpar), "\(name)'s parameters")
        ctx!.pointee.time_base_in = source.pointee.time_base
        _ = try check(av_bsf_init(ctx), "starting \(name)")
    }

    deinit { av_bsf_free(&context) }

    /// The parameters of what comes out (extradata set once a packet has gone through).
    var output: UnsafePointer<AVCodecParameters> { UnsafePointer(context!.pointee.par_out) }

    /// Filters `packet` (taken: it is empty afterwards); returns what came out, in order.
    func filter(_ packet: Packet) throws -> [Packet] {
        _ = try check(av_bsf_send_packet(context, packet.pointer), "filtering a packet")
        var out: [Packet] = []
        while true {
            let p = try Packet()
            let r = av_bsf_receive_packet(context, p.pointer)
            if r == averrorEAGAIN || r == averrorEOF { break }
            _ = try check(r, "filtering a packet")
            out.append(p)
        }
        return out
    }
}
