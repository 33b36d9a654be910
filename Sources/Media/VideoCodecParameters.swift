import CFFmpeg
import Timing

/// A value snapshot of a video stream's codec parameters beyond `StreamInfo`: what an encoder
/// must match to produce pictures that can stand in for the stream's own.
public struct VideoCodecParameters: Sendable, Equatable {
    /// FFmpeg's profile number (H.264: 66 baseline, 77 main, 100 high; constrained flags included).
    public let profile: Int
    /// Level ×10 as coded (H.264: 30 is level 3.0).
    public let level: Int
    /// Pixel format name, e.g. "yuv420p".
    public let pixelFormat: String
    /// Colour range as FFmpeg's enum value (`AVColorRange`).
    public let colorRange: Int
    /// Colour primaries (`AVColorPrimaries`).
    public let colorPrimaries: Int
    /// Transfer characteristics (`AVColorTransferCharacteristic`).
    public let colorTransfer: Int
    /// Matrix coefficients (`AVColorSpace`).
    public let colorSpace: Int
    /// Whether the stream is progressive (or its field order is unknown).
    public let progressive: Bool
    /// The codec's global header (H.264: the avcC record).
    public let extradata: [UInt8]
}

extension Demuxer {
    /// Codec parameters of video stream `index`.
    public func videoCodecParameters(of index: Int) -> VideoCodecParameters {
        let par = stream(index).pointee.codecpar.pointee
        let name = av_get_pix_fmt_name(AVPixelFormat(rawValue: par.format)).map { String(cString: $0) } ?? "none"
        let extra = par.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(par.extradata_size))) } ?? []
        return VideoCodecParameters(
            profile: Int(par.profile), level: Int(par.level), pixelFormat: name,
            colorRange: Int(par.color_range.rawValue), colorPrimaries: Int(par.color_primaries.rawValue),
            colorTransfer: Int(par.color_trc.rawValue), colorSpace: Int(par.color_space.rawValue),
            progressive: par.field_order == AV_FIELD_PROGRESSIVE || par.field_order == AV_FIELD_UNKNOWN,
            extradata: extra)
    }
}

extension Encoder {
    /// The encoder's global header after opening (libx264 with a global header: Annex B SPS/PPS).
    public var extradata: [UInt8] {
        guard let p = context.pointee.extradata, context.pointee.extradata_size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: p, count: Int(context.pointee.extradata_size)))
    }

    /// Frames the encoder may reorder (B-frame delay): a packet's decode position is at most this
    /// many frames after its presentation position.
    public var reorderDelay: Int { Int(context.pointee.has_b_frames) }
}

extension Muxer {
    /// Adds a stream with the codec parameters of video stream `index` of `demuxer` but `extradata`
    /// as its global header, taking packets stamped in `timeBase`; returns its index.
    @discardableResult
    public func addStream(copying index: Int, of demuxer: Demuxer, extradata: [UInt8], timeBase: Rational) throws -> Int {
        let i = try addStream(copying: index, of: demuxer)
        let st = context.pointee.streams[i]!
        let par = st.pointee.codecpar!
        av_freep(&par.pointee.extradata)
        par.pointee.extradata_size = 0
        guard let buffer = av_mallocz(extradata.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)) else {
            throw MediaError.allocationFailed("extradata")
        }
        extradata.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress!, byteCount: extradata.count) }
        par.pointee.extradata = buffer.assumingMemoryBound(to: UInt8.self)
        par.pointee.extradata_size = Int32(extradata.count)
        st.pointee.time_base = timeBase.av
        encoderTimeBases[i] = timeBase.av
        return i
    }
}

extension Demuxer {
    /// The codec's global header of stream `index` (H.264: `avcC`, HEVC: `hvcC`, AAC: its
    /// AudioSpecificConfig); empty when it has none.
    public func extradata(of index: Int) -> [UInt8] {
        let par = stream(index).pointee.codecpar.pointee
        return par.extradata.map { Array(UnsafeBufferPointer(start: $0, count: Int(par.extradata_size))) } ?? []
    }
}
