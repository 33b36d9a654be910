import Foundation

/// WebVTT carried in ISO base media files (ISO/IEC 14496-30, sample entry `wvtt`): what a DASH
/// text AdaptationSet of segments holds (`codecs="wvtt"`, DASH-IF's choice for live subtitles,
/// read by dash.js, Shaka and ExoPlayer). FFmpeg 5.1 has no muxer for it ("Could not find tag
/// for codec webvtt"), and it fragments no TTML either ("Fragmentation is not currently
/// supported for TTML in MP4"), so these few boxes are written here: an initialization segment
/// (one text track, 90 kHz) and a media segment per span (`moof` with `tfdt`, then `mdat`).
///
/// A media segment covers its span with samples that never overlap (14496-30 §5.2): the span is
/// cut at every cue's start and end, each piece a sample of the cues showing throughout it
/// (`vttc` each: `iden`, `sttg`, `payl`), or an empty sample (`vtte`) where none shows.
public enum WebVTTMP4 {
    /// The track's timescale: MPEG-TS's 90 kHz, what cue times count.
    public static let timescale: UInt32 = 90_000
    /// The track's id in the initialization segment and every media segment.
    static let trackID: UInt32 = 1
    /// The initialization segment's file name in the service's routes (`/v1/subtitles/NAME`).
    public static let initializationName = "wvtt-init.mp4"
    /// The MIME type of its segments.
    public static let mimeType = "application/mp4"

    /// The initialization segment (`ftyp`, `moov` with one `wvtt` track and `mvex`): the same
    /// for every text track and segment.
    public static func initialization() -> Data {
        var sampleEntry = [UInt8](repeating: 0, count: 6) + u16(1) // reserved, data_reference_index
        sampleEntry += box("vttC", Array("WEBVTT".utf8))
        let stbl = box("stbl", box("stsd", full(0) + u32(1) + box("wvtt", sampleEntry))
            + box("stts", full(0) + u32(0)) + box("stsc", full(0) + u32(0))
            + box("stsz", full(0) + u32(0) + u32(0)) + box("stco", full(0) + u32(0)))
        let dinf = box("dinf", box("dref", full(0) + u32(1) + box("url ", full(1))))
        let minf = box("minf", box("nmhd", full(0)) + dinf + stbl)
        let mdhd = box("mdhd", full(0) + u32(0) + u32(0) + u32(timescale) + u32(0) + u16(0x55C4) + u16(0)) // language `und`
        let hdlr = box("hdlr", full(0) + u32(0) + Array("text".utf8) + u32(0) + u32(0) + u32(0) + Array("WebVTT\0".utf8))
        let tkhd = box("tkhd", full(3) + u32(0) + u32(0) + u32(trackID) + u32(0) + u32(0) + u32(0) + u32(0)
            + u16(0) + u16(0) + u16(0) + u16(0) + matrix + u32(0) + u32(0))
        let mvhd = box("mvhd", full(0) + u32(0) + u32(0) + u32(timescale) + u32(0) + u32(0x0001_0000) + u16(0x0100) + u16(0)
            + u32(0) + u32(0) + matrix + [UInt8](repeating: 0, count: 24) + u32(trackID + 1))
        let trex = box("trex", full(0) + u32(trackID) + u32(1) + u32(0) + u32(0) + u32(0))
        let moov = box("moov", mvhd + box("trak", tkhd + box("mdia", mdhd + hdlr + minf)) + box("mvex", trex))
        let ftyp = box("ftyp", Array("iso6".utf8) + u32(0) + Array("iso6".utf8) + Array("dash".utf8))
        return Data(ftyp + moov)
    }

    /// The media segment numbered `sequence` (`mfhd`) of the span starting at track time
    /// `start` (`tfdt`, 90 kHz) and lasting `duration` ticks (> 0), showing `cues` (times from
    /// the span's start, 90 kHz; cut to the span here).
    public static func segment(sequence: UInt32, start: UInt64, duration: Int64, cues: [WebVTT.Cue]) -> Data {
        let samples = self.samples(duration: duration, cues: cues)
        let mdatPayload = samples.reduce(into: [UInt8]()) { $0 += $1.bytes }
        // trun: data offset, then each sample's duration and size
        func moof(dataOffset: UInt32) -> [UInt8] {
            let tfhd = box("tfhd", full(0x02_0000) + u32(trackID)) // default-base-is-moof
            let tfdt = box("tfdt", full(0, version: 1) + u64(start))
            var trun = full(0x000301) + u32(UInt32(samples.count)) + u32(dataOffset)
            for s in samples { trun += u32(s.duration) + u32(UInt32(s.bytes.count)) }
            return box("moof", box("mfhd", full(0) + u32(sequence)) + box("traf", tfhd + tfdt + box("trun", trun)))
        }
        let moofSize = moof(dataOffset: 0).count
        let styp = box("styp", Array("msdh".utf8) + u32(0) + Array("msdh".utf8) + Array("msix".utf8))
        return Data(styp + moof(dataOffset: UInt32(moofSize + 8)) + box("mdat", mdatPayload))
    }

    /// The samples covering `[0, duration)`: cut at every cue boundary inside it, each the cues
    /// showing throughout it (in the given order) or empty.
    static func samples(duration: Int64, cues given: [WebVTT.Cue]) -> [(duration: UInt32, bytes: [UInt8])] {
        guard duration > 0 else { return [] }
        let cues = given.compactMap { c -> WebVTT.Cue? in
            var c = c
            c.start = max(0, c.start); c.end = min(duration, c.end)
            return c.end > c.start ? c : nil
        }
        var cuts = Set<Int64>([0, duration])
        for c in cues { cuts.insert(c.start); cuts.insert(c.end) }
        let points = cuts.sorted()
        var out: [(duration: UInt32, bytes: [UInt8])] = []
        for (a, b) in zip(points, points.dropFirst()) {
            let showing = cues.filter { $0.start <= a && $0.end >= b }
            let bytes = showing.isEmpty ? box("vtte", []) : showing.reduce(into: [UInt8]()) { $0 += cueBox($1) }
            // a sample's duration is 32 bits: a longer piece (over 13 hours) is split
            var left = b - a
            while left > 0 {
                let d = min(left, Int64(UInt32.max))
                out.append((UInt32(d), bytes))
                left -= d
            }
        }
        return out
    }

    /// A cue's `vttc`: its identifier (`iden`), settings (`sttg`) and text (`payl`).
    static func cueBox(_ c: WebVTT.Cue) -> [UInt8] {
        var body: [UInt8] = []
        if let id = c.id, !id.isEmpty { body += box("iden", Array(id.utf8)) }
        if !c.settings.isEmpty { body += box("sttg", Array(c.settings.utf8)) }
        body += box("payl", Array(c.text.utf8))
        return box("vttc", body)
    }

    // MARK: boxes

    static func box(_ type: String, _ body: [UInt8]) -> [UInt8] { u32(UInt32(8 + body.count)) + Array(type.utf8) + body }
    /// A full box's version and flags.
    static func full(_ flags: UInt32, version: UInt8 = 0) -> [UInt8] { [version] + Array(u32(flags).dropFirst()) }
    static func u16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
    static func u32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (24 - 8 * $0)) & 0xFF) } }
    static func u64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8((v >> (56 - 8 * $0)) & 0xFF) } }
    /// The unity matrix of `mvhd` and `tkhd`.
    static let matrix: [UInt8] = u32(0x0001_0000) + u32(0) + u32(0) + u32(0) + u32(0x0001_0000) + u32(0) + u32(0) + u32(0) + u32(0x4000_0000)
}
