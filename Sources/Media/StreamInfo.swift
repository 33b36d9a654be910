import CFFmpeg
import Timing

/// A value snapshot of one stream of an opened input: what a caller may know without touching FFmpeg.
public struct StreamInfo: Sendable, Equatable {
    /// What the stream carries.
    public enum Kind: Sendable, Equatable {
        /// Pictures.
        case video
        /// Sound.
        case audio
        /// Anything else (subtitles, data, attachments).
        case other
    }

    /// Index in the container.
    public let index: Int
    /// Video, audio or anything else.
    public let kind: Kind
    /// FFmpeg's codec name, e.g. "h264".
    public let codecName: String
    /// Coded width in pixels (video).
    public let width: Int
    /// Coded height in pixels (video).
    public let height: Int
    /// Sample aspect ratio (video); 1:1 when unknown.
    public let sampleAspectRatio: Rational
    /// Clockwise rotation to apply for display, a multiple of 90 (video).
    public let rotation: Int
    /// Whether the display matrix mirrors the picture horizontally (video).
    public let mirrored: Bool
    /// Average (or guessed) frame rate (video).
    public let frameRate: Rational?
    /// Samples per second (audio).
    public let sampleRate: Int
    /// Channel count (audio).
    public let channels: Int
    /// Stream duration, when the container gives it.
    public let duration: MediaTime?
    /// First timestamp, when the container gives it.
    public let startTime: MediaTime?
    /// Whether this is a cover picture rather than a real video track.
    public let isAttachedPicture: Bool
    /// The container's four-character code for the codec (`avc1`, `hev1`, `mp4a`); empty when none.
    public let codecTag: String
    /// Its `language` tag (ISO 639-2, `eng`), when the container gives one (`und` is none).
    public let language: String?

    /// Display size: coded size with the sample aspect ratio and rotation applied.
    public var displaySize: (width: Int, height: Int) {
        var w = width, h = height
        if sampleAspectRatio.numerator != sampleAspectRatio.denominator {
            w = Int((Int64(width) * sampleAspectRatio.numerator + sampleAspectRatio.denominator / 2) / sampleAspectRatio.denominator)
            w += w & 1
        }
        if rotation % 180 != 0 { swap(&w, &h) }
        return (w, h)
    }
}

extension StreamInfo {
    init(_ ctx: UnsafeMutablePointer<AVFormatContext>, _ s: UnsafeMutablePointer<AVStream>) {
        let par = s.pointee.codecpar.pointee
        index = Int(s.pointee.index)
        switch par.codec_type {
        case AVMEDIA_TYPE_VIDEO: kind = .video
        case AVMEDIA_TYPE_AUDIO: kind = .audio
        default: kind = .other
        }
        codecName = avcodec_get_name(par.codec_id).map { String(cString: $0) } ?? "unknown"
        width = Int(par.width)
        height = Int(par.height)
        let sar = av_guess_sample_aspect_ratio(ctx, s, nil)
        sampleAspectRatio = Rational(sar) ?? Rational(1, 1)
        let r = interlude_stream_rotation(s)
        if r.isNaN {
            rotation = 0
        } else {
            // av_display_rotation_get is counter-clockwise; display needs the clockwise turn.
            let cw = Int((-r).rounded())
            rotation = ((cw % 360) + 360) % 360 / 90 * 90
        }
        mirrored = interlude_stream_hflip(s) != 0
        frameRate = Rational(av_guess_frame_rate(ctx, s, nil))
        sampleRate = Int(par.sample_rate)
        channels = Int(par.ch_layout.nb_channels)
        duration = s.pointee.duration > 0 ? MediaTime(ticks: s.pointee.duration, timeBase: s.pointee.time_base) : nil
        startTime = MediaTime(ticks: s.pointee.start_time, timeBase: s.pointee.time_base)
        isAttachedPicture = (s.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC) != 0
        let tag = par.codec_tag
        codecTag = tag == 0 ? "" : String(decoding: (0..<4).map { UInt8((tag >> (8 * $0)) & 0xFF) }, as: UTF8.self)
        let lang = av_dict_get(s.pointee.metadata, "language", nil, 0).flatMap { $0.pointee.value.map { String(cString: $0) } }
        language = lang.flatMap { $0.isEmpty || $0 == "und" || $0.count > 16 ? nil : $0 }
    }
}
