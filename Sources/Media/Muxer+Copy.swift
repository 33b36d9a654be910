import CFFmpeg
import Timing

extension Muxer {
    /// Adds a stream with the codec parameters, time base and aspect ratio of stream `index` of
    /// `demuxer`, to copy its packets unchanged; returns its index. Packets written to it keep
    /// timestamps in the source stream's time base (`write(_:stream:)` rescales them).
    @discardableResult
    public func addStream(copying index: Int, of demuxer: Demuxer) throws -> Int {
        guard let st = avformat_new_stream(context, nil) else { throw MediaError.allocationFailed("AVStream") }
        let source = demuxer.stream(index)
        try check(avcodec_parameters_copy(st.pointee.codecpar, source.pointee.codecpar), "copying stream parameters")
        st.pointee.codecpar.pointee.codec_tag = 0   // let the output container choose its own tag
        st.pointee.time_base = source.pointee.time_base
        st.pointee.sample_aspect_ratio = source.pointee.sample_aspect_ratio
        st.pointee.avg_frame_rate = source.pointee.avg_frame_rate
        encoderTimeBases.append(source.pointee.time_base)
        return Int(st.pointee.index)
    }
}

extension Muxer {
    /// Gives stream `index` (before the header is written) the codec parameters `parameters`,
    /// e.g. what a bitstream filter puts out.
    func setParameters(of index: Int, to parameters: UnsafePointer<AVCodecParameters>) throws {
        let st = context.pointee.streams[index]!
        try check(avcodec_parameters_copy(st.pointee.codecpar, parameters), "copying stream parameters")
        st.pointee.codecpar.pointee.codec_tag = 0
    }

    /// Writes stream `index` (before the header) with the sample entry `fourcc` (`avc3`, `hev1`).
    public func setSampleEntry(_ fourcc: String, of index: Int) throws {
        let bytes = Array(fourcc.utf8)
        guard bytes.count == 4 else { throw MediaError.unsupported("a sample entry is four characters, not '\(fourcc)'") }
        let tag = UInt32(bytes[0]) | UInt32(bytes[1]) << 8 | UInt32(bytes[2]) << 16 | UInt32(bytes[3]) << 24
        context.pointee.streams[index]!.pointee.codecpar.pointee.codec_tag = tag
    }
}

extension Muxer {
    /// Tags stream `index` (before the header is written) with `language` (ISO 639-2, `eng`).
    public func setLanguage(_ language: String, of index: Int) {
        av_dict_set(&context.pointee.streams[index]!.pointee.metadata, "language", language, 0)
    }

    /// Marks stream `index` (before the header is written) as its kind's default, or not.
    public func setDefault(_ on: Bool, of index: Int) {
        let st = context.pointee.streams[index]!
        st.pointee.disposition = on ? st.pointee.disposition | AV_DISPOSITION_DEFAULT : st.pointee.disposition & ~AV_DISPOSITION_DEFAULT
    }
}
