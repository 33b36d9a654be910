import Media
import Timing

/// The content's codec as smart rendering copies it, with its decoder configuration record.
enum SmartCodec: Equatable {
    /// H.264 (`avcC`), re-encoded with libx264.
    case h264(AVCConfig)
    /// HEVC (`hvcC`), re-encoded with libx265.
    case hevc(HVCConfig)

    /// The FFmpeg encoder that matches it.
    var encoderName: String {
        switch self { case .h264: return "libx264"; case .hevc: return "libx265" }
    }

    /// FFmpeg's decoder name.
    var decoderName: String {
        switch self { case .h264: return "h264"; case .hevc: return "hevc" }
    }
}

/// Whether content can be smart-rendered, read from its packets: H.264 or HEVC with IDR keyframes and
/// closed GOPs, constant frame rate at the output rate, square pixels, no rotation, 8-bit 4:2:0,
/// one packet per frame. Also what copying needs: each GOP's first frame, the B-frame delay and
/// the parameter sets.
struct SmartContentScan {
    /// The content's video stream.
    let videoIndex: Int
    /// Timestamp of the first frame, in stream ticks; frame `n` is at `origin + n·periodTicks`.
    let originTicks: Int64
    /// One frame in stream ticks.
    let periodTicks: Int64
    /// Frames (= packets).
    let frameCount: Int
    /// Frame index of each GOP's keyframe, from 0.
    let keyframes: [Int]
    /// Most frames a packet is decoded after its presentation position within its GOP.
    let reorderDelay: Int
    /// The content's codec and decoder configuration record.
    let codec: SmartCodec
    /// The encoder's `profile` and level (libx264 `level`, libx265 `level-idc`) matching the content's.
    let encoderProfile: String
    let encoderLevel: String
    /// The codec parameters (colour, pixel format).
    let parameters: VideoCodecParameters

    /// The GOP holding frame `index`.
    func gop(of index: Int) -> Int {
        var lo = 0, hi = keyframes.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if keyframes[mid] <= index { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }

    /// First frame of GOP `g` and the first frame after it.
    func range(ofGOP g: Int) -> Range<Int> {
        keyframes[g]..<(g + 1 < keyframes.count ? keyframes[g + 1] : frameCount)
    }

    /// Scans `url` for an output of `format`; the reason it cannot be smart-rendered otherwise.
    static func scan(url: String, format: OutputFormat) throws -> Result<SmartContentScan, SmartRenderRefusal> {
        func no(_ s: String) -> Result<SmartContentScan, SmartRenderRefusal> { .failure(SmartRenderRefusal(reason: s)) }
        let demuxer = try Demuxer(url: url)
        guard let v = demuxer.bestStream(.video) else { return no("the content has no video") }
        let info = demuxer.streams[v]
        guard info.codecName == "h264" || info.codecName == "hevc" else {
            return no("the content's video is \(info.codecName); smart rendering copies H.264 and HEVC only")
        }
        let par = demuxer.videoCodecParameters(of: v)
        guard par.pixelFormat == "yuv420p", par.progressive else { return no("the content is \(par.pixelFormat)\(par.progressive ? "" : " interlaced"), not progressive 8-bit 4:2:0") }
        guard info.rotation == 0, !info.mirrored, info.sampleAspectRatio.numerator == info.sampleAspectRatio.denominator else {
            return no("the content is rotated, mirrored or has non-square pixels")
        }
        guard info.width == format.width, info.height == format.height else { return no("the output size differs from the content's coded size") }
        let codec: SmartCodec, profile: String, level: String, lengthSize: Int
        switch info.codecName {
        case "h264":
            guard let config = AVCConfig(avcC: par.extradata), config.lengthSize == 4 else { return no("the content's avcC record is missing or unusual") }
            let ids = config.sps.map(AVCConfig.parameterSetID) + config.pps.map(AVCConfig.parameterSetID)
            guard ids.allSatisfy({ $0 != nil && $0 != SplitGOP.parameterSetID }) else {
                return no("the content's parameter set ids clash with the encoder's")
            }
            switch par.profile & 0xFF {
            case 66: profile = "baseline"
            case 77: profile = "main"
            case 100: profile = "high"
            default: return no("H.264 profile \(par.profile) is not one libx264 encodes to (baseline, main, high)")
            }
            guard par.level > 0 else { return no("the content declares no H.264 level") }
            codec = .h264(config)
            level = String(format: "%d.%d", par.level / 10, par.level % 10)
            lengthSize = config.lengthSize
        default:
            guard let config = HVCConfig(hvcC: par.extradata), config.lengthSize == 4 else { return no("the content's hvcC record is missing or unusual") }
            guard config.profileIDC == 1, par.profile == 1 else {
                return no("HEVC profile \(par.profile) is not Main (8-bit 4:2:0), the one libx265 encodes to here")
            }
            // general_level_idc is 30 × the level: 93 is 3.1, 120 is 4
            guard par.level > 0, par.level % 3 == 0 else { return no("the content declares no usable HEVC level") }
            codec = .hevc(config)
            profile = "main"
            level = par.level % 30 == 0 ? String(par.level / 30) : String(format: "%d.%d", par.level / 30, par.level % 30 / 3)
            lengthSize = config.lengthSize
        }
        let tb = demuxer.timeBase(of: v)
        // one output frame in stream ticks, exactly
        let period = format.frameDuration
        let num = period.value * tb.denominator, den = period.timescale * tb.numerator
        guard den != 0, num % den == 0, num / den > 0 else { return no("the frame duration is not a whole number of the content's ticks") }
        let periodTicks = num / den

        let index = try VideoPacketIndex(demuxer: demuxer, stream: v, isIDR: isIDR)
        var keyframes: [Int] = []
        var seen = Set<Int>()
        var origin: Int64?
        var decodeIndex = 0
        var maxIndex = -1
        var gopStart = 0
        var delay = 0
        for packet in index.entries {
            guard !packet.flawed, let pts = packet.pts else {
                return no("the content has edit-listed, damaged or untimed packets")
            }
            if origin == nil {
                guard packet.keyframe else { return no("the content does not start on a keyframe") }
                origin = pts
            }
            let offset = pts - origin!
            guard offset >= 0, offset % periodTicks == 0 else { return no("the content is not at a constant \(format.frameRate) fps") }
            let index = Int(offset / periodTicks)
            guard seen.insert(index).inserted else { return no("the content has two frames at one time") }
            if packet.keyframe {
                // closed GOP: every earlier packet shows before this keyframe, and it is the next frame
                guard index == decodeIndex, maxIndex == index - 1 else { return no("the content has open GOPs") }
                guard packet.idr else { return no("a keyframe of the content is not an IDR picture") }
                keyframes.append(index)
                gopStart = index
            } else if index < gopStart {
                return no("the content has open GOPs")
            }
            delay = max(delay, decodeIndex - index)
            maxIndex = max(maxIndex, index)
            decodeIndex += 1
        }
        guard decodeIndex > 0, maxIndex == decodeIndex - 1 else { return no("the content's frames are not contiguous") }
        return .success(SmartContentScan(videoIndex: v, originTicks: origin!, periodTicks: periodTicks, frameCount: decodeIndex,
                                         keyframes: keyframes, reorderDelay: delay, codec: codec,
                                         encoderProfile: profile, encoderLevel: level, parameters: par))

        func isIDR(_ bytes: [UInt8]) -> Bool {
            switch codec {
            case .h264: return AVCConfig.nalTypes(lengthPrefixed: bytes, lengthSize: lengthSize)?.contains(5) ?? false
            case .hevc: return NALUnits.split(lengthPrefixed: bytes, lengthSize: lengthSize)?.contains(where: HVCConfig.isIDR) ?? false
            }
        }
    }
}

/// Why smart rendering was not used.
struct SmartRenderRefusal: Error, Equatable {
    let reason: String
}
