import Foundation
import Timing

/// A `LiveOrigin` made with `subtitles: true` names a WebVTT subtitle rendition in its master
/// (`GROUP-ID="subs"`, English, the default): `/subs/live.m3u8` lists a WebVTT segment beside each
/// video segment of the window (the same media sequence numbers and durations), and segment `N`
/// (`/subs/N.vtt`) holds one cue, `segment N`, from 0.2 s to 1.8 s into the segment, placed by its
/// `X-TIMESTAMP-MAP` at the segment's first PTS (RFC 8216 §3.5).
extension LiveOrigin.Core {
    static let subtitleRendition = "#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"subs\",NAME=\"English\",LANGUAGE=\"en\",DEFAULT=YES,AUTOSELECT=YES,URI=\"subs/live.m3u8\""

    /// `/subs/live.m3u8` and `/subs/N.vtt` (`prefix` `/subs/`), the cues mapped onto segments
    /// whose timestamps are `offset` past the MPEG-TS ones (`cmafOffset`, the DASH tracks' under `/demuxed/`).
    func respondSubtitles(_ path: String, prefix: String = "/subs/", offset: Int64? = nil) -> HTTPTestServer.Response? {
        let p = published()
        if path == prefix + "live.m3u8" {
            let w = window(published: p)
            var lines = ["#EXTM3U", "#EXT-X-VERSION:\(textInMP4 == nil ? 3 : 7)", "#EXT-X-TARGETDURATION:\(faults.targetDuration(published: p))",
                         "#EXT-X-MEDIA-SEQUENCE:\(w.mediaSequence)"]
            if textInMP4 != nil { lines.append("#EXT-X-MAP:URI=\"init.mp4\"") }
            for n in w.segments {
                lines.append("#EXTINF:\(LiveOrigin.decimal(media.segments[n].duration)),")
                lines.append("\(n).\(textInMP4 == nil ? "vtt" : "m4s")")
            }
            if w.ended { lines.append("#EXT-X-ENDLIST") }
            return .init(headers: ["Content-Type": "application/vnd.apple.mpegurl", "Cache-Control": "no-cache"], body: Data((lines.joined(separator: "\n") + "\n").utf8))
        }
        if let format = textInMP4 {
            // fMP4: media time in ms is the MPEG-TS clock's (HLS puts every rendition on one timeline)
            if path == prefix + "init.mp4" { return .init(headers: ["Content-Type": "application/mp4"], body: Data(TestMP4Text.initialization(format))) }
            guard path.hasPrefix(prefix), path.hasSuffix(".m4s"), let n = Int(path.dropFirst(prefix.count).dropLast(4)), n >= 0, n < p else { return nil }
            let from = (media.segments[n].firstPTS + (offset ?? cmafOffset)) / 90, to = from + media.segments[n].duration.mpegTicks / 90
            let samples = TestMP4Text.samples(format, from: from, to: to, cues: [(from + 200, from + 1_800, LiveOrigin.subtitleText(n))])
            return .init(headers: ["Content-Type": "application/mp4"], body: Data(TestMP4Text.segment(sequence: UInt32(n + 1), start: from, samples: samples)))
        }
        guard path.hasPrefix(prefix), path.hasSuffix(".vtt"), let n = Int(path.dropFirst(prefix.count).dropLast(4)), n >= 0, n < p else { return nil }
        let firstPTS = media.segments[n].firstPTS + (offset ?? cmafOffset)
        return .init(headers: ["Content-Type": "text/vtt"], body: Data(LiveOrigin.subtitleSegment(n, firstPTS: firstPTS).utf8))
    }
}

extension LiveOrigin {
    /// The subtitle rendition's playlist as it is now (needs `subtitles: true`): URIs `N.vtt`.
    public func subtitlePlaylist() -> String {
        core.respondSubtitles("/subs/live.m3u8").map { String(decoding: $0.body, as: UTF8.self) } ?? ""
    }

    /// The WebVTT of subtitle segment `n`, whose video segment starts at PTS `firstPTS`.
    public static func subtitleSegment(_ n: Int, firstPTS: Int64) -> String {
        "WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:\(firstPTS),LOCAL:00:00:00.000\n\n00:00:00.200 --> 00:00:01.800\nsegment \(n)\n"
    }

    /// The text of subtitle segment `n`'s cue.
    public static func subtitleText(_ n: Int) -> String { "segment \(n)" }
}
