import Foundation
import Interlude
import Manifest
import Media
import Playback
import Timing

/// An ad made for one rung by the engine's own media path: the stitch of the ad alone
/// (`Stitcher`, no breaks) into the rung's format, packaged as HLS MPEG-TS. So an ad in a
/// variant is what the stitch makes of it: its picture fitted into the rung's size (rotation,
/// mirroring and sample aspect ratio applied, letterboxed or pillarboxed, never stretched), its
/// frames chosen by timestamp at the content's frame rate, its sound resampled to 48 kHz stereo
/// and exactly as long as its pictures; encoded at the rung's bit rate within the profile and
/// level of the variant's CODECS, an IDR at every segment start, no B-frames (its first decode
/// time is its first presentation time: decode times never run back at the join with the
/// content before it), one encoder thread (the same media always gives the same bytes: a job run
/// twice, or by two workers, commits identical files). Its sound starts at its first picture
/// (`HLSSettings.audioFromFirstPicture`: the AAC priming packet is left out, so it never reaches
/// back over the content before it) and its last packet may reach past its last picture by under
/// one AAC frame, which what follows overlaps (see `CutMaker` for the policy at every join).
enum AdRendition {
    /// Encodes `media` (an ad media file, opened under the ad rules) for `rendition` into
    /// `folder` as `seg00000.ts` …; returns the segments (store paths under `storePrefix`, exact
    /// durations: whole frames of the rung's rate) and the ad's measured duration.
    static func make(_ media: String, rendition: Rendition, segmentTarget: MediaTime, folder: URL,
                     storePrefix: String) throws -> (segments: [StoredSegment], duration: MediaTime) {
        let package = folder.appendingPathComponent("package")
        var request = StitchRequest(content: media, breaks: [], output: package.path, container: .hls,
                                    encoder: encoderSettings(rendition, segmentTarget: segmentTarget),
                                    size: (rendition.width, rendition.height), frameRate: rendition.frameRate, threads: 1)
        request.smart = .off
        request.contentIsAdMedia = true
        request.audio = (StoreEncoding.sampleRate, StoreEncoding.channels)
        request.hls = HLSSettings(segmentDuration: segmentTarget, programDate: Date(timeIntervalSince1970: 0))
        request.hls.audioFromFirstPicture = true
        request.hls.firstRunDiscontinuous = true
        request.hls.decodeDelay = rendition.decodeDelay
        request.stallTimeout = nil
        let result = try Stitcher(request: request).run()
        let period = result.format.frameDuration
        let text = try String(contentsOf: package.appendingPathComponent("index.m3u8"), encoding: .utf8)
        guard case .media(let playlist) = try HLS.parse(text), !playlist.segments.isEmpty else {
            throw StoreError.unsupported("the ad's package has no segments")
        }
        var segments: [StoredSegment] = []
        for (i, s) in playlist.segments.enumerated() {
            let name = String(format: "seg%05d.ts", i)
            let data = try Data(contentsOf: package.appendingPathComponent(s.uri))
            // exact: the segment's pictures at the rung's rate (EXTINF is to the millisecond)
            let frames = Int64(TSTimestamps.videoPTS(data).count)
            guard frames > 0 else { throw StoreError.unsupported("segment \(i) of the ad holds no picture") }
            try data.write(to: folder.appendingPathComponent(name))
            segments.append(StoredSegment(path: "\(storePrefix)/\(name)", duration: period * frames))
        }
        try? FileManager.default.removeItem(at: package)
        let duration = segments.reduce(MediaTime.zero) { $0 + $1.duration }
        guard duration == period * result.videoFrames else {
            throw StoreError.unsupported("the ad's segments hold \(duration.seconds) s of its \(result.videoFrames) frames")
        }
        return (segments, duration)
    }

    /// The encoder for a rung: libx264 veryfast at its bit rate (peak 1.5×, buffer 2×), its
    /// CODECS' profile and level, a keyframe every segment target, no B-frames, one thread.
    static func encoderSettings(_ r: Rendition, segmentTarget: MediaTime) -> EncoderSettings {
        var e = EncoderSettings(preset: "veryfast", audioBitRate: r.audioBitrate)
        e.bitRate = EncoderSettings.BitRate(average: r.videoBitrate, peak: r.videoBitrate * 3 / 2, buffer: r.videoBitrate * 2)
        if let (profile, level) = r.videoCodec.flatMap(h264ProfileAndLevel) { e.profile = profile; e.level = level }
        e.bFrames = 0
        e.threads = 1
        if let rate = r.frameRate { e.keyframeInterval = max(1, Int(segmentTarget.count(of: rate.period))) }
        return e
    }

    /// The libx264 profile and level of an `avc1.PPCCLL` codec string (`avc1.64001f` → high, 3.1);
    /// nil for another codec or a profile libx264 cannot make in 8-bit 4:2:0.
    static func h264ProfileAndLevel(_ codec: String) -> (String, String)? {
        let parts = codec.split(separator: ".")
        guard parts.count == 2, parts[0] == "avc1" || parts[0] == "avc3", parts[1].count == 6,
              let profileIDC = UInt8(parts[1].prefix(2), radix: 16), let levelIDC = UInt8(parts[1].suffix(2), radix: 16), levelIDC > 0 else { return nil }
        let profile: String
        switch profileIDC {
        case 66: profile = "baseline"
        case 77: profile = "main"
        case 100: profile = "high"
        default: return nil
        }
        return (profile, "\(levelIDC / 10).\(levelIDC % 10)")
    }
}
