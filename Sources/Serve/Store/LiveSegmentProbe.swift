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

    /// Reads a sample-encrypted CMAF segment (`segment`, with its `initialization`; blocking:
    /// a demux of its boxes, nothing decoded): the picture size of its sample entry, the frame
    /// rate of its presentation times, `CODECS` from the `avcC` of its initialization segment
    /// (`avc1.PPCCLL`; H.264 only), `,mp4a.40.2` when `audio` (its sound is a rendition of its
    /// own). `scratch` holds the joined file for a moment.
    public static func probeCMAF(initialization: URL, segment: URL, audio: Bool, scratch: URL) throws -> LiveSegmentProbe {
        let head = try Data(contentsOf: initialization)
        guard let avc = avcProfile(head) else { throw StoreError.unsupported("\(initialization.lastPathComponent): no avcC (live encrypted CMAF must be H.264)") }
        let joined = scratch.appendingPathComponent(".probe.\(getpid()).\(UUID().uuidString).mp4")
        defer { try? FileManager.default.removeItem(at: joined) }
        var bytes = head
        bytes.append(try Data(contentsOf: segment))
        try bytes.write(to: joined)
        let s = try SegmentCutMaker.Segment(joined, probe: false)
        let info = s.demuxer.streams[s.videoIndex]
        guard info.width > 0, info.height > 0 else { throw StoreError.unsupported("\(segment.lastPathComponent): no picture size") }
        var probe = LiveSegmentProbe(width: info.width, height: info.height, frameRate: s.frameRate,
                                     codecs: avc + (audio ? ",mp4a.40.2" : ""), hasAudio: audio)
        if let first = s.video.first, let pts = first.ptsTicks, let dts = first.dtsTicks {
            probe.decodeDelayTicks = MediaTime(value: max(0, pts - dts) * s.videoTB.numerator, timescale: s.videoTB.denominator).rescaled(to: 90_000).value
        }
        return probe
    }

    /// `avc1.PPCCLL` from the first `avcC` box of an initialization segment (its profile,
    /// compatibility and level bytes); nil without one.
    static func avcProfile(_ bytes: Data) -> String? {
        let b = [UInt8](bytes)
        guard b.count >= 12 else { return nil }
        for i in 4..<(b.count - 8) where b[i] == 0x61 && b[i + 1] == 0x76 && b[i + 2] == 0x63 && b[i + 3] == 0x43 {
            // size(4) 'avcC' then configurationVersion 1, profile, compatibility, level
            guard b[i + 4] == 1 else { continue }
            return String(format: "avc1.%02x%02x%02x", b[i + 5], b[i + 6], b[i + 7])
        }
        return nil
    }

    /// The rung named `name` of this size at the given bitrates.
    public func rendition(name: String, videoBitrate: Int, audioBitrate: Int = 128_000) -> Rendition {
        Rendition(name: name, width: width, height: height, videoBitrate: videoBitrate, audioBitrate: audioBitrate)
    }
}
