import Foundation
import Manifest
import Timing

/// Where an HLS package's segments are cut: at every ad's start and end, and inside each
/// content run or ad at the last keyframe no later than the target duration after the segment's
/// start (the first one after it when there is none), unless the run ends within the target. Pure: table-testable without media.
package enum HLSPlan {
    /// Segments covering `[0, duration)` given the output's video keyframe times (stream time).
    public static func segments(keyframes: [MediaTime], duration: MediaTime, breaks: [PackagedBreak],
                                target: MediaTime, name: String = "segment", fileExtension: String = "ts") -> [HLSSegment] {
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
                out.append(HLSSegment(fileName: name + String(format: "%05d.%@", out.count, fileExtension),
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
    /// `map`: the CMAF initialization section (`EXT-X-MAP`) before the first segment; a
    /// playlist with one has no `EXT-X-DISCONTINUITY` (its tracks are one clock and one sample
    /// entry across every join: VLC, which starts a new demuxer at the tag, cannot go on there
    /// without the map again, and FFmpeg's hls demuxer reads a repeated map into the stream
    /// again, "Found duplicated MOOV Atom"). `ptsAdjustment` is what the segments' clock adds to stream time
    /// (MPEG-TS: `HLSPackager.timestampOffset`; CMAF: the tracks' offset, `CMAFPackage`), carried in each SCTE-35 section's `pts_adjustment` so that
    /// `pts_time + pts_adjustment` is the PTS of the splice frame in the segments.
    public static func playlist(segments: [HLSSegment], breaks: [PackagedBreak], programDate: Date,
                                ptsAdjustment: MediaTime = .zero, map: HLS.Map? = nil) -> HLS.MediaPlaylist {
        // CMAF tracks are one clock and one sample entry across the joins: no discontinuity
        let marksJoins = map == nil
        func date(_ t: MediaTime) -> Date { programDate.addingTimeInterval(t.seconds) }
        var out: [HLS.Segment] = []
        var previous: HLSSegment?
        for (i, seg) in segments.enumerated() {
            let startsAd = seg.adIndex != nil && (previous?.breakIndex != seg.breakIndex || previous?.adIndex != seg.adIndex)
            let startsBreak = seg.breakIndex != nil && previous?.breakIndex != seg.breakIndex
            let endsBreak = previous?.breakIndex != nil && previous?.breakIndex != seg.breakIndex
            var s = HLS.Segment(uri: seg.fileName, duration: seg.duration, discontinuity: marksJoins && startsDiscontinuity(segments, at: i),
                                programDateTime: i == 0 || startsAd || endsBreak ? date(seg.start) : nil)
            if i == 0 { s.map = map }
            if let p = previous?.breakIndex, endsBreak { s.markers += cueIn(breaks[p], index: p, date: date, ptsAdjustment: ptsAdjustment) }
            for b in breaks where b.doubleBox != nil {
                for (ai, ad) in b.ads.enumerated() where ad.end > ad.start && ad.start >= seg.start && ad.start < seg.end {
                    s.markers.append(.dateRange(HLS.DateRange(id: "\(b.id)-ad-\(ai + 1)", rangeClass: "com.interlude.doublebox", startDate: date(ad.start),
                                                              duration: ad.end - ad.start,
                                                              clientAttributes: [.init("X-AD-ID", .string(ad.id)), .init("X-MODE", .string("\(b.doubleBox!)"))])))
                }
            }
            if let bi = seg.breakIndex, startsBreak {
                let b = breaks[bi]
                let scte = SCTE35.spliceInsert(eventID: UInt32(bi + 1), outOfNetwork: true, at: b.start, breakDuration: b.end - b.start,
                                               ptsAdjustment: ptsAdjustment)
                s.markers.append(.dateRange(HLS.DateRange(id: b.id, startDate: date(b.start), plannedDuration: b.end - b.start, scte35Out: scte)))
                s.markers.append(.cueOut(duration: b.end - b.start))
            }
            if let bi = seg.breakIndex, let ai = seg.adIndex, startsAd {
                let ad = breaks[bi].ads[ai]
                s.markers.append(.dateRange(HLS.DateRange(id: "\(breaks[bi].id)-ad-\(ai + 1)", rangeClass: "com.interlude.ad", startDate: date(ad.start),
                                                          duration: ad.end - ad.start, clientAttributes: [.init("X-AD-ID", .string(ad.id))])))
            }
            out.append(s)
            previous = seg
        }
        let trailing = previous?.breakIndex.map { cueIn(breaks[$0], index: $0, date: date, ptsAdjustment: ptsAdjustment) } ?? []
        return .vod(out, trailingMarkers: trailing)
    }

    private static func cueIn(_ b: PackagedBreak, index: Int, date: (MediaTime) -> Date, ptsAdjustment: MediaTime) -> [HLS.Marker] {
        let scte = SCTE35.spliceInsert(eventID: UInt32(index + 1), outOfNetwork: false, at: b.end, breakDuration: nil,
                                       ptsAdjustment: ptsAdjustment)
        return [.cueIn, .dateRange(HLS.DateRange(id: b.id, startDate: date(b.start), duration: b.end - b.start, scte35In: scte))]
    }
}
