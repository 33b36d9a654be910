import Foundation

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
public enum TSRunClock {
    /// Where the first PCR of a run sits below its first video PTS (90 kHz): `max_delay`.
    public static let firstPictureAbovePCR = HLSPackager.maxDelayMicroseconds * 90_000 / 1_000_000

    private static let packetSize = 188
    private static let wrap: Int64 = 1 << 33

    /// How far (90 kHz) the first video PTS of the MPEG-TS `bytes` is above its first PCR; nil
    /// without a PCR or a video PES, or with the PTS below the PCR.
    public static func pictureAbovePCR(_ bytes: [UInt8]) -> Int64? {
        guard let pcr = firstPCR(bytes), let pts = firstVideoPTS(bytes) else { return nil }
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

    /// The first PCR base (90 kHz) in `b`.
    static func firstPCR(_ b: [UInt8]) -> Int64? {
        var i = 0
        while i + packetSize <= b.count {
            if hasPCR(b, i) { return readPCR(b, i + 6) }
            i += packetSize
        }
        return nil
    }

    /// The PTS of the first video PES in `b` (its first picture: a run starts with a keyframe,
    /// shown first).
    static func firstVideoPTS(_ b: [UInt8]) -> Int64? {
        var i = 0
        while i + packetSize <= b.count {
            defer { i += packetSize }
            guard b[i] == 0x47, b[i + 1] & 0x40 != 0 else { continue }
            let afc = (b[i + 3] >> 4) & 0x03
            guard afc & 0x01 != 0 else { continue }
            var p = i + 4
            if afc & 0x02 != 0 { p += 1 + Int(b[p]) }
            guard p + 14 <= i + packetSize, b[p] == 0, b[p + 1] == 0, b[p + 2] == 1,
                  (0xE0...0xEF).contains(b[p + 3]), b[p + 7] & 0x80 != 0 else { continue }
            let q = p + 9
            return Int64((b[q] >> 1) & 0x07) << 30 | Int64(b[q + 1]) << 22 | Int64(b[q + 2] >> 1) << 15
                | Int64(b[q + 3]) << 7 | Int64(b[q + 4] >> 1)
        }
        return nil
    }

    /// `b` with every PCR base moved by `ticks` (90 kHz, modulo 2^33); the extension is kept.
    static func shiftingPCRs(_ b: inout [UInt8], by ticks: Int64) {
        guard ticks != 0 else { return }
        var i = 0
        while i + packetSize <= b.count {
            if hasPCR(b, i) {
                let q = i + 6
                let base = ((readPCR(b, q) + ticks) % wrap + wrap) % wrap
                b[q] = UInt8(truncatingIfNeeded: base >> 25); b[q + 1] = UInt8(truncatingIfNeeded: base >> 17)
                b[q + 2] = UInt8(truncatingIfNeeded: base >> 9); b[q + 3] = UInt8(truncatingIfNeeded: base >> 1)
                b[q + 4] = UInt8(truncatingIfNeeded: (base & 1) << 7) | (b[q + 4] & 0x7F)
            }
            i += packetSize
        }
    }

    /// Moves every PCR of the file at `path` by `ticks`, in place.
    static func shiftPCRs(ofFile path: String, by ticks: Int64) throws {
        guard ticks != 0 else { return }
        let url = URL(fileURLWithPath: path)
        var b = [UInt8](try Data(contentsOf: url))
        shiftingPCRs(&b, by: ticks)
        try Data(b).write(to: url)
    }

    private static func hasPCR(_ b: [UInt8], _ i: Int) -> Bool {
        b[i] == 0x47 && (b[i + 3] >> 4) & 0x02 != 0 && b[i + 4] > 0 && b[i + 5] & 0x10 != 0 && i + 11 < b.count
    }

    private static func readPCR(_ b: [UInt8], _ q: Int) -> Int64 {
        Int64(b[q]) << 25 | Int64(b[q + 1]) << 17 | Int64(b[q + 2]) << 9 | Int64(b[q + 3]) << 1 | Int64(b[q + 4] >> 7)
    }
}
