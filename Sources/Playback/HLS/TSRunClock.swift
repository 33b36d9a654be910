import Foundation
import Media

/// Where a run's program clock (PCR) starts against its first picture, the same for every run
/// whatever its B-frames.
///
/// FFmpeg's mpegts muxer (VBR) writes each PCR as the DTS of the video PES it heads less
/// `max_delay` (0.7 s). With B-frames the first picture is shown a reorder delay after its DTS, so
/// a run of the store's ads or slate (B-frames) had its first PTS 0.78 s (25 fps) or 0.767 s
/// (30 fps) above its first PCR, while content without B-frames (the ffmpeg CLI's origin, the
/// store's re-encoded pieces) has 0.7 s. GStreamer 1.22 (hlsdemux with tsdemux) maps the first
/// PCR after an `EXT-X-DISCONTINUITY` to the segment's playlist time and every picture to that
/// plus (PTS − that PCR); a run starting 0.7 s above its PCR after one starting 0.78 s above
/// then starts 0.08 s before the previous run's last pictures, and its decoder warns
/// "decreasing timestamp" (issue 22). Moving every PCR of a run up by its first picture's
/// reorder delay puts every run's first picture exactly `max_delay` above its first PCR, as the
/// ffmpeg CLI's content without B-frames, and every PCR still at or below the DTS it heads (the
/// delay is far below 0.7 s). A piece of someone else's segment (a live origin's) takes that
/// segment's distance instead, so that it joins the origin's segments as they join each other.
package enum TSRunClock {
    /// Where the first PCR of a run sits below its first video PTS (90 kHz): `max_delay`.
    public static let firstPictureAbovePCR = Muxer.mpegTSMaxDelayMicroseconds * 90_000 / 1_000_000

    private static let wrap = TSPES.wrap

    /// How far (90 kHz) the first video PTS of the MPEG-TS `bytes` is above its first PCR; nil
    /// without a PCR or a video PES, or with the PTS below the PCR.
    public static func pictureAbovePCR(_ bytes: [UInt8]) -> Int64? {
        guard let pcr = TSPES.firstPCR(bytes), let pts = TSPES.firstVideoPTS(bytes) else { return nil }
        let above = ((pts - pcr) % wrap + wrap) % wrap
        return above < wrap / 2 ? above : nil
    }

    /// How far (90 kHz) the PCRs of the run that starts with the segment `bytes` move so that its
    /// first video PTS is `target` above its first PCR: 0 without a PCR or video PES, or when that
    /// is `max_delay` or more away (a PCR moved up that far would pass the DTS it heads).
    static func pcrShift(firstSegment bytes: [UInt8], target: Int64 = firstPictureAbovePCR) -> Int64 {
        guard let above = pictureAbovePCR(bytes) else { return 0 }
        let shift = above - target
        return abs(shift) < firstPictureAbovePCR ? shift : 0
    }

    /// Moves every PCR of the file at `path` by `ticks`, in place.
    static func shiftPCRs(ofFile path: String, by ticks: Int64) throws {
        guard ticks != 0 else { return }
        let url = URL(fileURLWithPath: path)
        var b = [UInt8](try Data(contentsOf: url))
        TSPES.shiftPCRs(&b, by: ticks)
        try Data(b).write(to: url)
    }
}
