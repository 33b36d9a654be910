import Foundation
import Playback
import Timing

/// A live viewer's playlists as text. Pure.
public enum LiveSessionPlaylist {
    /// The multivariant playlist: one variant per rung, top first, each pointing at
    /// `/v1/sessions/ID/RENDITION.m3u8`.
    public static func master(sessionID: String, rungs: [LiveRung]) -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-INDEPENDENT-SEGMENTS"]
        for r in rungs {
            lines.append("#EXT-X-STREAM-INF:BANDWIDTH=\(r.rendition.videoBitrate + r.rendition.audioBitrate),RESOLUTION=\(r.info.width)x\(r.info.height),CODECS=\"\(r.info.codecs)\"")
            lines.append("/v1/sessions/\(sessionID)/\(r.rendition.name).m3u8")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The URL of an item: content segments are the same URL for every viewer; ad and slate
    /// segments carry the shift onto the channel's clock (`o`), the new-stream mark (`d`), and an
    /// ad's its viewer, rendition and place so that its fetch fires the beacons it holds.
    static func url(_ item: LiveItem, sessionID: String, rendition: String) -> String {
        var query: [String] = []
        if item.shift != 0 { query.append("o=\(item.shift)") }
        if item.discontinuity { query.append("d=1") }
        if case .ad(let b, let a, let k, _, _) = item.kind { query += ["s=\(sessionID)", "r=\(rendition)", "b=\(b)", "a=\(a)", "k=\(k)"] }
        return "/v1/segments/" + item.segment.path + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }

    /// The sliding media playlist of one rung: the track's last items, `EXT-X-MEDIA-SEQUENCE` and
    /// `EXT-X-DISCONTINUITY-SEQUENCE` counting what slid out, `EXT-X-DISCONTINUITY` at every join,
    /// around each break `EXT-X-CUE-OUT` (with an SCTE-35 `EXT-X-DATERANGE` at its first item),
    /// `EXT-X-CUE-OUT-CONT` on every later item in it (for a player joining mid-break) and
    /// `EXT-X-CUE-IN` after it, a `com.interlude.ad` date range per ad; `EXT-X-ENDLIST` once the
    /// channel has ended and all of it is listed.
    /// `leastTarget`: whole seconds the target duration is at least from the first version on
    /// (the longest ad or slate segment the store makes; a target may not change).
    static func media(_ t: LiveViewer.Track, viewer: LiveViewer, avails: [LiveAvail], rendition: String, leastTarget: Int) -> String {
        let longest = t.items.map { Int($0.segment.duration.seconds.rounded()) }.max() ?? 1
        let target = max(Int((Double(t.targetTicks) / 90_000).rounded(.up)), leastTarget, longest, 1)
        var lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:\(target)", "#EXT-X-MEDIA-SEQUENCE:\(t.dropped)",
                     "#EXT-X-DISCONTINUITY-SEQUENCE:\(t.droppedDiscontinuities)"]
        func date(_ pts: Int64) -> String {
            PlaylistWriter.iso8601(viewer.programDate.addingTimeInterval(Double(pts - viewer.startPTS) / 90_000))
        }
        func seconds(_ ticks: Int64) -> String { String(format: "%.3f", Double(ticks) / 90_000) }
        func length(_ a: LiveAvail) -> Int64 { (a.endPTS ?? (a.startPTS + a.requestedTicks)) - a.startPTS }
        func pts33(_ v: Int64) -> MediaTime { MediaTime(value: ((v % LivePTS.wrap) + LivePTS.wrap) % LivePTS.wrap, timescale: 90_000) }
        var previous: LiveItem?
        for item in t.items {
            if let pa = previous?.avail, pa != item.avail {
                let a = avails[pa]
                lines.append("#EXT-X-CUE-IN")
                let scte = SCTE35.spliceInsert(eventID: UInt32(pa + 1), outOfNetwork: false, at: pts33(item.startPTS), breakDuration: nil)
                lines.append("#EXT-X-DATERANGE:ID=\"\(PlaylistWriter.quoted(a.breakID))\",START-DATE=\"\(date(a.startPTS))\",DURATION=\(seconds(length(a))),SCTE35-IN=\(SCTE35.hex(scte))")
            }
            if item.discontinuity && previous != nil { lines.append("#EXT-X-DISCONTINUITY") }
            if previous == nil || item.discontinuity { lines.append("#EXT-X-PROGRAM-DATE-TIME:\(date(item.startPTS))") }
            if let ai = item.avail {
                let a = avails[ai]
                if previous?.avail != ai && item.startPTS == a.startPTS {
                    let scte = SCTE35.spliceInsert(eventID: UInt32(ai + 1), outOfNetwork: true, at: pts33(a.startPTS),
                                                   breakDuration: MediaTime(value: length(a), timescale: 90_000))
                    lines.append("#EXT-X-DATERANGE:ID=\"\(PlaylistWriter.quoted(a.breakID))\",START-DATE=\"\(date(a.startPTS))\",PLANNED-DURATION=\(seconds(length(a))),SCTE35-OUT=\(SCTE35.hex(scte))")
                    lines.append("#EXT-X-CUE-OUT:DURATION=\(seconds(length(a)))")
                } else {
                    lines.append("#EXT-X-CUE-OUT-CONT:ElapsedTime=\(seconds(item.startPTS - a.startPTS)),Duration=\(seconds(length(a)))")
                }
                if case .ad(_, let ad, 0, _, _) = item.kind, let planned = a.ads?[ad], let slot = a.pod?.slots.first(where: { $0.ad == ad }) {
                    lines.append("#EXT-X-DATERANGE:ID=\"\(PlaylistWriter.quoted(a.breakID))-ad-\(ad + 1)\",CLASS=\"com.interlude.ad\",START-DATE=\"\(date(item.startPTS))\",DURATION=\(seconds(slot.ticks)),X-AD-ID=\"\(PlaylistWriter.quoted(planned.id))\"")
                }
            }
            lines.append("#EXTINF:\(String(format: "%.3f", item.segment.duration.seconds)),")
            lines.append(url(item, sessionID: viewer.id, rendition: rendition))
            previous = item
        }
        if t.ended && t.cursor >= t.edge { lines.append("#EXT-X-ENDLIST") }
        return lines.joined(separator: "\n") + "\n"
    }
}
