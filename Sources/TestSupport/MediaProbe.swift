import Foundation
import Timing

/// What `ffprobe -show_streams -show_format -show_chapters` reports about a file.
public struct MediaProbe: Sendable, Hashable {
    /// Every stream, in file order.
    public var streams: [StreamInfo]
    /// The container's short name list as ffprobe prints it, e.g. `mov,mp4,m4a,3gp,3g2,mj2`.
    public var formatName: String?
    /// The container's duration in seconds.
    public var duration: Double?
    /// The container's start time in seconds.
    public var startTime: Double?
    /// Chapters, in file order.
    public var chapters: [Chapter]

    /// The first video stream (attached pictures such as cover art excluded).
    public var video: StreamInfo? { streams.first { $0.kind == .video && !$0.isAttachedPicture } }
    /// The first audio stream.
    public var audio: StreamInfo? { streams.first { $0.kind == .audio } }
    /// All video streams (attached pictures excluded).
    public var videoStreams: [StreamInfo] { streams.filter { $0.kind == .video && !$0.isAttachedPicture } }
    /// All audio streams.
    public var audioStreams: [StreamInfo] { streams.filter { $0.kind == .audio } }
}

/// The kind of a stream.
public enum StreamKind: String, Sendable, Hashable {
    /// Pictures.
    case video
    /// Sound.
    case audio
    /// Subtitles.
    case subtitle
    /// Data (timed metadata, SCTE-35, ...).
    case data
    /// Anything else ffprobe reports.
    case other
}

/// One stream as ffprobe reports it.
public struct StreamInfo: Sendable, Hashable {
    /// The stream index in the file.
    public var index: Int
    /// Video, audio, ...
    public var kind: StreamKind
    /// Codec short name, e.g. `h264`, `aac`.
    public var codec: String?
    /// Coded width in pixels (video).
    public var width: Int?
    /// Coded height in pixels (video).
    public var height: Int?
    /// Sample aspect ratio (video), when set and not `0:1`.
    public var sampleAspectRatio: Rational?
    /// `r_frame_rate`: the real base frame rate (video).
    public var frameRate: Rational?
    /// `avg_frame_rate` (video).
    public var averageFrameRate: Rational?
    /// Stream time base.
    public var timeBase: Rational?
    /// Samples per second (audio).
    public var sampleRate: Int?
    /// Channel count (audio).
    public var channels: Int?
    /// Stream duration in seconds.
    public var duration: Double?
    /// Stream start time in seconds.
    public var startTime: Double?
    /// `nb_frames` when the container states it (frames for video, packets for audio in MP4).
    public var frameCount: Int?
    /// Display-matrix rotation in degrees as ffprobe prints it (`rotation=90` for a picture the
    /// ffmpeg CLI turns by 90 degrees when autorotating); nil without a display matrix.
    public var rotation: Int?
    /// Whether this is an attached picture (cover art) rather than a real video track.
    public var isAttachedPicture: Bool

    /// Width after rotation: what the ffmpeg CLI outputs when it autorotates (the default).
    public var displayWidth: Int? { isQuarterTurn ? height : width }
    /// Height after rotation: what the ffmpeg CLI outputs when it autorotates (the default).
    public var displayHeight: Int? { isQuarterTurn ? width : height }
    private var isQuarterTurn: Bool { if let r = rotation { return abs(r) % 180 == 90 } else { return false } }
}

/// A chapter as ffprobe reports it.
public struct Chapter: Sendable, Hashable {
    /// Chapter id.
    public var id: Int
    /// Start in seconds.
    public var start: Double
    /// End in seconds.
    public var end: Double
    /// The `title` tag, when present.
    public var title: String?
}

extension MediaVerifier {
    /// Probes `url` with `ffprobe -show_streams -show_format -show_chapters -of json`.
    public static func probe(_ url: URL) throws -> MediaProbe {
        let out = try Tools.ffprobe(["-v", "error", "-show_streams", "-show_format", "-show_chapters",
                                     "-of", "json", url.path])
        let raw: RawProbe
        do { raw = try JSONDecoder().decode(RawProbe.self, from: out.stdout) } catch {
            throw VerifierError.malformedOutput("ffprobe JSON for \(url.lastPathComponent): \(error)")
        }
        let streams = (raw.streams ?? []).map { s -> StreamInfo in
            let rotation = s.side_data_list?.compactMap(\.rotation).first
                ?? s.tags?["rotate"].flatMap { Int($0) }
            return StreamInfo(
                index: s.index, kind: StreamKind(rawValue: s.codec_type ?? "") ?? .other, codec: s.codec_name,
                width: s.width, height: s.height,
                sampleAspectRatio: s.sample_aspect_ratio.flatMap { Rational(parsing: $0.replacingOccurrences(of: ":", with: "/")) },
                frameRate: s.r_frame_rate.flatMap { Rational(parsing: $0) },
                averageFrameRate: s.avg_frame_rate.flatMap { Rational(parsing: $0) },
                timeBase: s.time_base.flatMap { Rational(parsing: $0) },
                sampleRate: s.sample_rate.flatMap { Int($0) }, channels: s.channels,
                duration: s.duration.flatMap { Double($0) }, startTime: s.start_time.flatMap { Double($0) },
                frameCount: s.nb_frames.flatMap { Int($0) }, rotation: rotation,
                isAttachedPicture: (s.disposition?["attached_pic"] ?? 0) != 0)
        }
        let chapters = (raw.chapters ?? []).map {
            Chapter(id: $0.id, start: Double($0.start_time ?? "") ?? 0, end: Double($0.end_time ?? "") ?? 0,
                    title: $0.tags?["title"])
        }
        return MediaProbe(streams: streams, formatName: raw.format?.format_name,
                          duration: raw.format?.duration.flatMap { Double($0) },
                          startTime: raw.format?.start_time.flatMap { Double($0) }, chapters: chapters)
    }
}

// ffprobe's JSON, as printed (numbers mostly as strings).
private struct RawProbe: Decodable {
    struct SideData: Decodable { var rotation: Int? }
    struct Stream: Decodable {
        var index: Int
        var codec_type: String?
        var codec_name: String?
        var width: Int?
        var height: Int?
        var sample_aspect_ratio: String?
        var r_frame_rate: String?
        var avg_frame_rate: String?
        var time_base: String?
        var sample_rate: String?
        var channels: Int?
        var duration: String?
        var start_time: String?
        var nb_frames: String?
        var tags: [String: String]?
        var disposition: [String: Int]?
        var side_data_list: [SideData]?
    }
    struct Format: Decodable {
        var format_name: String?
        var duration: String?
        var start_time: String?
    }
    struct RawChapter: Decodable {
        var id: Int
        var start_time: String?
        var end_time: String?
        var tags: [String: String]?
    }
    var streams: [Stream]?
    var format: Format?
    var chapters: [RawChapter]?
}
