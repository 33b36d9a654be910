import Foundation
import Playback
import Timing

/// A session's HLS playlists as text. Pure.
public enum PlaylistWriter {
    /// The multivariant playlist: one variant per rendition, top first, each pointing at
    /// `/v1/sessions/ID/NAME.m3u8` (plus `?mode=interstitials` when asked).
    public static func master(sessionID: String, content: PreparedContent, interstitials: Bool = false) -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-INDEPENDENT-SEGMENTS"]
        for (r, codecs) in content.renditions {
            lines.append("#EXT-X-STREAM-INF:BANDWIDTH=\(r.videoBitrate + r.audioBitrate),RESOLUTION=\(r.width)x\(r.height),CODECS=\"\(codecs)\"")
            lines.append("/v1/sessions/\(sessionID)/\(r.name).m3u8" + (interstitials ? "?mode=interstitials" : ""))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The URL a segment is served at. Content and slate segments are the same URL for every
    /// session; an ad segment carries the session, rendition and its place so that its fetch
    /// fires the beacons it holds (server-side reporting).
    /// A segment moved onto the session's stream clock carries its shift in 90 kHz ticks (`o`):
    /// sessions whose breaks before it are as long share its URL and bytes.
    public static func url(for item: TimelineItem, sessionID: String, rendition: String) -> String {
        var query: [String] = []
        let ticks = item.shift.mpegTicks
        if ticks != 0 { query.append("o=\(ticks)") }
        if item.marksDiscontinuity { query.append("d=1") }
        if case .ad(let b, let a, let k, _) = item.kind { query += ["s=\(sessionID)", "r=\(rendition)", "b=\(b)", "a=\(a)", "k=\(k)"] }
        return "/v1/segments/" + item.segment.path + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }

    /// The VOD media playlist of one rendition: content runs and ads with `EXT-X-DISCONTINUITY`
    /// at every join, `EXT-X-CUE-OUT`/`EXT-X-CUE-IN` and SCTE-35 `EXT-X-DATERANGE`
    /// (`SCTE35-OUT`/`SCTE35-IN`, splice time = the cut's content time, the PTS the origin's
    /// segments carry there) around each break, a `com.interlude.ad` date range per ad, and
    /// `EXT-X-TARGETDURATION` no less than any segment's rounded duration.
    public static func media(_ t: SessionTimeline, session: ServeSession) -> String {
        let target = max(1, t.items.map { Int($0.segment.duration.seconds.rounded()) }.max() ?? 1)
        var lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:\(target)", "#EXT-X-MEDIA-SEQUENCE:0",
                     "#EXT-X-PLAYLIST-TYPE:VOD"]
        func date(_ s: MediaTime) -> String { iso8601(session.programDate.addingTimeInterval(s.seconds)) }
        func seconds(_ s: MediaTime) -> String { String(format: "%.3f", s.seconds) }
        let layouts = Dictionary(uniqueKeysWithValues: t.breaks.map { ($0.index, $0) })
        var previous: TimelineItem?
        for item in t.items {
            let b = item.breakIndex
            if let p = previous, let pb = p.breakIndex, pb != b, let layout = layouts[pb] {
                lines += cueIn(layout, session: session, date: date)
            }
            if let p = previous, joins(p, item) {
                lines.append("#EXT-X-DISCONTINUITY")
            }
            if previous == nil || joins(previous!, item) { lines.append("#EXT-X-PROGRAM-DATE-TIME:\(date(item.start))") }
            if let b, previous?.breakIndex != b, let layout = layouts[b] {
                let scte = SCTE35.spliceInsert(eventID: UInt32(b + 1), outOfNetwork: true, at: layout.contentTime, breakDuration: layout.duration)
                lines.append("#EXT-X-DATERANGE:ID=\"\(quoted(session.breaks[b].id))\",START-DATE=\"\(date(layout.start))\",PLANNED-DURATION=\(seconds(layout.duration)),SCTE35-OUT=\(SCTE35.hex(scte))")
                lines.append("#EXT-X-CUE-OUT:DURATION=\(seconds(layout.duration))")
            }
            if case .ad(let bi, let ai, 0, _) = item.kind, let played = layouts[bi]?.ads.first(where: { $0.ad == ai }) {
                lines.append("#EXT-X-DATERANGE:ID=\"\(quoted(session.breaks[bi].id))-ad-\(ai + 1)\",CLASS=\"com.interlude.ad\",START-DATE=\"\(date(played.start))\",DURATION=\(seconds(played.duration)),X-AD-ID=\"\(quoted(session.breaks[bi].ads[ai].id))\"")
            }
            lines.append("#EXTINF:\(seconds(item.segment.duration)),")
            lines.append(url(for: item, sessionID: session.id, rendition: t.rendition))
            previous = item
        }
        if let p = previous, let pb = p.breakIndex, let layout = layouts[pb] { lines += cueIn(layout, session: session, date: date) }
        lines.append("#EXT-X-ENDLIST")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Whether a new stream starts between two neighbours: content run to break (or to the next
    /// run), one ad to the next, an ad to slate and back.
    static func joins(_ a: TimelineItem, _ b: TimelineItem) -> Bool {
        switch (a.kind, b.kind) {
        case (.content(let r1), .content(let r2)): r1 != r2
        case (.ad(let b1, let a1, _, _), .ad(let b2, let a2, _, _)): b1 != b2 || a1 != a2
        case (.slate(let b1, let a1), .slate(let b2, let a2)): b1 != b2 || a1 != a2
        default: true
        }
    }

    static func cueIn(_ layout: BreakLayout, session: ServeSession, date: (MediaTime) -> String) -> [String] {
        let scte = SCTE35.spliceInsert(eventID: UInt32(layout.index + 1), outOfNetwork: false, at: layout.contentTime, breakDuration: nil)
        return ["#EXT-X-CUE-IN",
                "#EXT-X-DATERANGE:ID=\"\(quoted(session.breaks[layout.index].id))\",START-DATE=\"\(date(layout.start))\",DURATION=\(String(format: "%.3f", layout.duration.seconds)),SCTE35-IN=\(SCTE35.hex(scte))"]
    }

    /// Apple HLS Interstitials: the content uncut, and per break an `EXT-X-DATERANGE` of
    /// `CLASS="com.apple.hls.interstitial"` at its content time whose `X-ASSET-LIST` the player
    /// asks this session for (`/v1/sessions/ID/assets/B.json`).
    public static func interstitials(content run: [StoredSegment], breaks: [PlannedBreak], contentDuration: MediaTime, session: ServeSession) -> String {
        let target = max(1, run.map { Int($0.duration.seconds.rounded()) }.max() ?? 1)
        var lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:\(target)", "#EXT-X-MEDIA-SEQUENCE:0",
                     "#EXT-X-PLAYLIST-TYPE:VOD", "#EXT-X-PROGRAM-DATE-TIME:\(iso8601(session.programDate))"]
        for (bi, b) in breaks.enumerated() {
            let at: MediaTime
            var extra = ""
            switch b.position {
            case .preroll: at = .zero; extra = ",CUE=\"PRE\""
            case .midroll(let t): at = t
            case .postroll: at = contentDuration; extra = ",CUE=\"POST\""
            }
            lines.append("#EXT-X-DATERANGE:ID=\"\(quoted(b.id))\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"\(iso8601(session.programDate.addingTimeInterval(at.seconds)))\",X-ASSET-LIST=\"/v1/sessions/\(session.id)/assets/\(bi).json\",X-RESTRICT=\"SKIP,JUMP\",X-SNAP=\"OUT,IN\"" + extra)
        }
        for s in run {
            lines.append("#EXTINF:\(String(format: "%.3f", s.duration.seconds)),")
            lines.append("/v1/segments/" + s.path)
        }
        lines.append("#EXT-X-ENDLIST")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A one-ad VOD media playlist (an interstitial's asset).
    public static func adAsset(_ segments: [StoredSegment]) -> String {
        let target = max(1, segments.map { Int($0.duration.seconds.rounded()) }.max() ?? 1)
        var lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:\(target)", "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:VOD"]
        for s in segments { lines += ["#EXTINF:\(String(format: "%.3f", s.duration.seconds)),", "/v1/segments/" + s.path] }
        lines.append("#EXT-X-ENDLIST")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A quoted-string attribute value may not hold `"`, CR or LF.
    static func quoted(_ s: String) -> String { String(s.map { $0 == "\"" || $0 == "\r" || $0 == "\n" ? "'" : $0 }) }

    static func iso8601(_ d: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: d)
    }
}
