import Foundation
import Media
import Timing

/// What a live rung is, read from one of its MPEG-TS segments: picture size, frame rate (from the
/// steps between its frames' presentation times), the HLS `CODECS` value (`avc1.PPCCLL` from the
/// first SPS, `,mp4a.40.2` with audio, as the store writes for an HLS source) and whether it has
/// audio. With a bitrate, `rendition(name:videoBitrate:audioBitrate:)` makes the rung to register
/// (`MediaStore.addRendition`).
public struct LiveSegmentProbe: Sendable, Equatable {
    /// Coded picture width.
    public var width: Int
    /// Coded picture height.
    public var height: Int
    /// Frames per second.
    public var frameRate: Rational
    /// The HLS `CODECS` attribute value.
    public var codecs: String
    /// Whether the segment carries an audio stream.
    public var hasAudio: Bool
    /// How far its first frame decodes before it shows (90 kHz): the stream's decode delay.
    public var decodeDelayTicks: Int64 = 0

    /// Reads `file` (blocking: a demux of the whole segment, no decoding). `sampleEncrypted`: its
    /// slices are encrypted (`METHOD=SAMPLE-AES`): nothing is decoded, the picture size is read
    /// from its first SPS (clear, as the PES headers are).
    public static func probe(_ file: URL, sampleEncrypted: Bool = false) throws -> LiveSegmentProbe {
        let s = try SegmentCutMaker.Segment(file, probe: !sampleEncrypted)
        let info = s.demuxer.streams[s.videoIndex]
        var (width, height) = (info.width, info.height)
        if sampleEncrypted, let first = s.video.first, let size = H264PictureSize.of(annexB: first.bytes) { (width, height) = size }
        guard width > 0, height > 0 else { throw StoreError.unsupported("\(file.lastPathComponent): no picture size") }
        var codecs: String?
        for p in s.video where codecs == nil { codecs = StoreEncoding.codecs(annexB: p.bytes) }
        guard let video = codecs else { throw StoreError.unsupported("\(file.lastPathComponent): no H.264 SPS in band") }
        var probe = LiveSegmentProbe(width: width, height: height, frameRate: s.frameRate,
                                     codecs: video + (s.audioIndex != nil ? ",mp4a.40.2" : ""), hasAudio: s.audioIndex != nil)
        if let first = s.video.first, let pts = first.ptsTicks, let dts = first.dtsTicks { probe.decodeDelayTicks = max(0, pts - dts) }
        return probe
    }

    /// The rung named `name` of this size at the given bitrates.
    public func rendition(name: String, videoBitrate: Int, audioBitrate: Int = 128_000) -> Rendition {
        Rendition(name: name, width: width, height: height, videoBitrate: videoBitrate, audioBitrate: audioBitrate)
    }
}
