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
