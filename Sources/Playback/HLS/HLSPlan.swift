import Foundation
import Timing

/// Where an HLS package's segments are cut: at every ad's start and end, and inside each
/// content run or ad at the last keyframe no later than the target duration after the segment's
/// start (the first one after it when there is none), unless the run ends within the target. Pure: table-testable without media.
@_spi(Engine) public enum HLSPlan {
    /// Segments covering `[0, duration)` given the output's video keyframe times (stream time).
    public static func segments(keyframes: [MediaTime], duration: MediaTime, breaks: [PackagedBreak],
                                target: MediaTime, fileExtension: String = "ts") -> [HLSSegment] {
        // Spans: content between ads, each ad on its own.
        var spans: [(start: MediaTime, end: MediaTime, breakIndex: Int?, adIndex: Int?)] = []
        var at = MediaTime.zero
        for (bi, b) in breaks.enumerated() where b.doubleBox == nil {   // a double box is content all along
            for (ai, ad) in b.ads.enumerated() where ad.end > ad.start {
                if ad.start > at { spans.append((at, ad.start, nil, nil)) }
                spans.append((ad.start, ad.end, bi, ai))
                at = ad.end
            }
        }
        if duration > at { spans.append((at, duration, nil, nil)) }
        let keys = keyframes.sorted()
        var out: [HLSSegment] = []
        for span in spans {
            var start = span.start
            while start < span.end {
                let inside = keys.filter { $0 > start && $0 < span.end }
                let cut = span.end - start <= target ? span.end : (inside.last { $0 - start <= target } ?? inside.first ?? span.end)
                out.append(HLSSegment(fileName: String(format: "segment%05d.%@", out.count, fileExtension),
                                      start: start, end: cut, breakIndex: span.breakIndex, adIndex: span.adIndex))
                start = cut
            }
        }
        return out
    }

    /// Whether `EXT-X-DISCONTINUITY` goes before segment `index`: where content changes to an ad,
    /// an ad to the next ad, or a break back to content; never before the first segment. The
    /// packager starts a new MPEG-TS stream (discontinuity indicator set) exactly there.
    public static func startsDiscontinuity(_ segments: [HLSSegment], at index: Int) -> Bool {
        guard index > 0 else { return false }
        let seg = segments[index], previous = segments[index - 1]
        let startsAd = seg.adIndex != nil && (previous.breakIndex != seg.breakIndex || previous.adIndex != seg.adIndex)
        let endsBreak = previous.breakIndex != nil && previous.breakIndex != seg.breakIndex
        return startsAd || endsBreak
    }

    /// The VOD media playlist: `EXT-X-CUE-OUT`/`EXT-X-CUE-IN` and SCTE-35 `EXT-X-DATERANGE`
    /// (`SCTE35-OUT`/`SCTE35-IN`) at each break, a `com.interlude.ad` date range per ad with its
    /// id, and `EXT-X-DISCONTINUITY` at every change between content and ad or ad and ad. A
    /// double-box break replaced no content: each of its ads gets a `com.interlude.doublebox` date
    /// range with the ad's duration (before the segment it starts in), and nothing else.
    /// `ptsAdjustment` is what the segments' MPEG-TS clock adds to stream time
    /// (`HLSPackager.timestampOffset`), carried in each SCTE-35 section's `pts_adjustment` so that
    /// `pts_time + pts_adjustment` is the PTS of the splice frame in the segments.
    public static func playlist(segments: [HLSSegment], breaks: [PackagedBreak], programDate: Date,
                                ptsAdjustment: MediaTime = .zero) -> String {
        let target = max(1, segments.map { Int($0.duration.seconds.rounded()) }.max() ?? 1)
        var lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:\(target)", "#EXT-X-MEDIA-SEQUENCE:0",
                     "#EXT-X-PLAYLIST-TYPE:VOD", "#EXT-X-INDEPENDENT-SEGMENTS"]
        func date(_ t: MediaTime) -> String { iso8601(programDate.addingTimeInterval(t.seconds)) }
        func seconds(_ t: MediaTime) -> String { String(format: "%.3f", t.seconds) }
        var previous: HLSSegment?
        for (i, seg) in segments.enumerated() {
            let startsAd = seg.adIndex != nil && (previous?.breakIndex != seg.breakIndex || previous?.adIndex != seg.adIndex)
            let startsBreak = seg.breakIndex != nil && previous?.breakIndex != seg.breakIndex
            let endsBreak = previous?.breakIndex != nil && previous?.breakIndex != seg.breakIndex
            if let p = previous?.breakIndex, endsBreak { lines += cueIn(breaks[p], index: p, date: date, ptsAdjustment: ptsAdjustment) }
            if startsDiscontinuity(segments, at: i) { lines.append("#EXT-X-DISCONTINUITY") }
            if i == 0 || startsAd || endsBreak { lines.append("#EXT-X-PROGRAM-DATE-TIME:\(date(seg.start))") }
            for b in breaks where b.doubleBox != nil {
                for (ai, ad) in b.ads.enumerated() where ad.end > ad.start && ad.start >= seg.start && ad.start < seg.end {
                    lines.append("#EXT-X-DATERANGE:ID=\"\(quoted(b.id))-ad-\(ai + 1)\",CLASS=\"com.interlude.doublebox\",START-DATE=\"\(date(ad.start))\",DURATION=\(seconds(ad.end - ad.start)),X-AD-ID=\"\(quoted(ad.id))\",X-MODE=\"\(b.doubleBox!)\"")
                }
            }
            if let bi = seg.breakIndex, startsBreak {
                let b = breaks[bi]
                let scte = SCTE35.spliceInsert(eventID: UInt32(bi + 1), outOfNetwork: true, at: b.start, breakDuration: b.end - b.start,
                                               ptsAdjustment: ptsAdjustment)
                lines.append("#EXT-X-DATERANGE:ID=\"\(quoted(b.id))\",START-DATE=\"\(date(b.start))\",PLANNED-DURATION=\(seconds(b.end - b.start)),SCTE35-OUT=\(SCTE35.hex(scte))")
                lines.append("#EXT-X-CUE-OUT:DURATION=\(seconds(b.end - b.start))")
            }
            if let bi = seg.breakIndex, let ai = seg.adIndex, startsAd {
                let ad = breaks[bi].ads[ai]
                lines.append("#EXT-X-DATERANGE:ID=\"\(quoted(breaks[bi].id))-ad-\(ai + 1)\",CLASS=\"com.interlude.ad\",START-DATE=\"\(date(ad.start))\",DURATION=\(seconds(ad.end - ad.start)),X-AD-ID=\"\(quoted(ad.id))\"")
            }
            lines.append("#EXTINF:\(seconds(seg.duration)),")
            lines.append(seg.fileName)
            previous = seg
        }
        if let p = previous?.breakIndex { lines += cueIn(breaks[p], index: p, date: date, ptsAdjustment: ptsAdjustment) }
        lines.append("#EXT-X-ENDLIST")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func cueIn(_ b: PackagedBreak, index: Int, date: (MediaTime) -> String, ptsAdjustment: MediaTime) -> [String] {
        let scte = SCTE35.spliceInsert(eventID: UInt32(index + 1), outOfNetwork: false, at: b.end, breakDuration: nil,
                                       ptsAdjustment: ptsAdjustment)
        return ["#EXT-X-CUE-IN",
                "#EXT-X-DATERANGE:ID=\"\(quoted(b.id))\",START-DATE=\"\(date(b.start))\",DURATION=\(String(format: "%.3f", (b.end - b.start).seconds)),SCTE35-IN=\(SCTE35.hex(scte))"]
    }

    /// A quoted-string attribute value may not hold `"`, CR or LF.
    static func quoted(_ s: String) -> String {
        String(s.map { $0 == "\"" || $0 == "\r" || $0 == "\n" ? "'" : $0 })
    }

    static func iso8601(_ d: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: d)
    }
}
