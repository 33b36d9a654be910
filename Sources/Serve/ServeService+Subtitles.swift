import Foundation
import HTTPServer
import Manifest
import Timing

extension ServeService {
    /// The `GROUP-ID` of a session's subtitle renditions.
    static let subtitleGroup = "subs"

    /// The `EXT-X-MEDIA` subtitle renditions of a session's master playlist (MPEG-TS, or CMAF
    /// with `cmaf`): one per track of its content, each naming the session's playlist of it.
    /// `interstitials`: the playlists of the content uncut, which an Interstitials master plays.
    static func subtitleRenditions(_ id: String, content: PreparedContent, cmaf: Bool, interstitials: Bool = false) -> [HLS.Rendition] {
        content.subtitles.enumerated().map { n, track in
            track.rendition(group: subtitleGroup, uri: "/v1/sessions/\(id)/subtitles/\(n).m3u8"
                                + (cmaf ? "?" + cmafQuery : interstitials ? "?mode=interstitials" : ""))
        }
    }

    /// The query a CMAF session's playlists carry.
    static let cmafQuery = "segments=cmaf"

    /// `GET /v1/sessions/ID/subtitles/N.m3u8` (`?segments=cmaf` for the CMAF variants' clock;
    /// `?mode=interstitials` for the content uncut on its own clock, what an Interstitials master
    /// plays): the session's subtitle playlist of its content's track `N`, written once and kept.
    func subtitlePlaylist(_ id: String, track: Int?, cmaf: Bool, interstitials: Bool = false) -> HTTPAnswer {
        guard let track, (0..<SubtitleTrack.maxTracks).contains(track) else { return .now(.error(404, "no such subtitle track")) }
        let key = "subtitles/\(track)" + (cmaf ? "?cmaf" : interstitials ? "?interstitials" : "")
        let session: ServeSession
        switch kept(id, key) {
        case nil: return .now(.error(404, "no session '\(id)'"))
        case .answer(let kept): return .now(HTTPResponse(kept))
        case .toWrite(let s): session = s
        }
        return .later { [self] in
            guard let content = try? await media.content(session.content) else { return .error(503, "content not available") }
            guard content.subtitles.indices.contains(track) else { return .error(404, "no such subtitle track") }
            switch interstitials ? await uncutTimeline(session, content: content) : await topTimeline(session) {
            case .failure(let r): return r.response
            case .success(let (planned, top)):
                // (HLS/CMAF's one stream clock; encrypted CMAF is never moved: each run on its own)
                let timeline = cmaf && content.protectedCMAF == nil ? SessionCMAFPlaylist.streamClock(top) : top
                let cdn = policy(for: planned.content).config.cdn
                let text = HLS.write(SessionSubtitlePlaylist.media(timeline, content: planned.content, track: track,
                                                                   programDate: planned.programDate, cdn: cdn))
                guard let made = Self.keep(text, contentType: HLS.mimeType) else { return Self.notKept }
                sessions.update(id) { s in if s.playlists[key] == nil { s.playlists[key] = made } }
                return HTTPResponse(sessions.touch(id)?.playlists[key] ?? made)
            }
        }
    }

    /// The top rung's content uncut (no break), each segment on its own stored clock: what an
    /// Interstitials playlist lists (`interstitialsPlaylist`).
    func uncutTimeline(_ session: ServeSession, content: PreparedContent) async -> Result<(ServeSession, SessionTimeline), Refusal> {
        guard let top = content.renditions.first?.rendition.name, let cut = try? await media.cut(session.content, rendition: top, at: []) else {
            return .failure(Refusal(status: 503, message: "content not available"))
        }
        let media = self.media
        let t = SessionTimeline.layout(rendition: top, runs: cut.runs, cues: [], contentDuration: content.duration, breaks: [])
        return .success((session, t.on(.shared) { Self.storedFirstPTS($0, media: media) }))
    }

    /// `GET /v1/subtitles/CONTENT/N/FROM-TO.vtt[?p=PTS[&l=TICKS]]`: the cues of track `N` of `content`
    /// showing in content time `[FROM, TO)` (90 kHz ticks), as a WebVTT segment whose first
    /// frame is MPEG-TS time `p` and cue time `l` (`X-TIMESTAMP-MAP`; `l` its place on the
    /// session's clock, 0 when absent), or with times from `FROM` and no map (no `p`: a DASH
    /// Period's file). The same URL for every session that shows that span there.
    /// `GET /v1/subtitles/empty.vtt`: a segment with no cue (an ad's or slate's time).
    /// `GET /v1/subtitles/wvtt-init.mp4`: the initialization segment of every WebVTT-in-MP4 text
    /// track (`WebVTTMP4`, a live MPD's subtitles). A live
    /// channel's name gives its cues for channel time `[FROM, TO)` (`LiveChannel.subtitleSegment`).
    func subtitleSegment(_ path: ArraySlice<String>, request r: HTTPRequest) -> HTTPAnswer {
        let vtt = "\(WebVTT.mimeType); charset=utf-8"
        if path.count == 1, path.first == SessionSubtitlePlaylist.empty {
            return .now(.text(WebVTT.write([]), contentType: vtt))
        }
        if path.count == 1, path.first == WebVTTMP4.initializationName {
            return .now(HTTPResponse(status: 200, headers: ["Content-Type": WebVTTMP4.mimeType, "Cache-Control": "max-age=86400"],
                                     body: WebVTTMP4.initialization()))
        }
        let parts = Array(path)
        guard parts.count == 3, let track = Int(parts[1]), (0..<SubtitleTrack.maxTracks).contains(track), parts[2].hasSuffix(".vtt"),
              let span = SessionSubtitlePlaylist.span(parts[2].dropLast(4)) else { return .now(.error(404, "not found")) }
        var wire: Int64?
        if let p = r.queryValue("p") {
            guard (1...12).contains(p.utf8.count), p.utf8.allSatisfy({ (48...57).contains($0) }), let v = Int64(p), v <= WebVTT.maxMPEGTS else {
                return .now(.error(400, "bad PTS '\(p.prefix(40))'"))
            }
            wire = v
        }
        var local: Int64 = 0
        if let l = r.queryValue("l") {
            guard (1...12).contains(l.utf8.count), l.utf8.allSatisfy({ (48...57).contains($0) }), let v = Int64(l), v <= WebVTT.maxTicks / 2 else {
                return .now(.error(400, "bad cue time '\(l.prefix(40))'"))
            }
            local = v
        }
        let name = parts[0], at = wire, cueTime = local
        // a live channel's: its cues on the channel's clock, FROM-TO channel time
        if let channel = live?.channels[name] {
            return .later {
                guard let text = await channel.subtitleSegment(track: track, from: span.from, to: span.to, wirePTS: at, local: cueTime) else {
                    return .error(404, "no such subtitle track")
                }
                return .text(text, contentType: vtt)
            }
        }
        return .later { [self] in
            guard let content = try? await media.content(name) else { return .error(404, "no content '\(name.prefix(64))'") }
            guard content.subtitles.indices.contains(track) else { return .error(404, "no such subtitle track") }
            guard span.to <= content.duration.mpegTicks + 1 else { return .error(404, "not in the content") }
            return .text(content.subtitles[track].segment(from: span.from, to: span.to, wirePTS: at, local: cueTime), contentType: vtt)
        }
    }
}

extension ServeService {
    /// A Period's subtitle adaptation sets (DASH): per track of `content` a `text/vtt`
    /// Representation whose `BaseURL` is the WebVTT of the content time the Period shows (cue
    /// times from the Period's start, no map: `/v1/subtitles/NAME/N/FROM-TO.vtt`), or the empty
    /// file for an ad's or slate's Period, so every Period has the same text tracks.
    static func subtitleSets(_ content: PreparedContent, name: String, cdn: CDNPrefixes) -> (Range<Int64>?) -> [DASH.AdaptationSet] {
        let prefix = cdn.prefix(forPath: "content/"), tracks = content.subtitles
        return { span in
            tracks.enumerated().map { n, track in
                var rep = DASH.Representation(id: "text-\(n)", bandwidth: 256, codecs: "")
                rep.baseURL = prefix + "/v1/subtitles/" + (span.map { "\(name)/\(n)/\($0.lowerBound)-\($0.upperBound).vtt" } ?? SessionSubtitlePlaylist.empty)
                var set = DASH.AdaptationSet(id: 20 + n, contentType: "text", mimeType: WebVTT.mimeType, language: track.language,
                                             segmentTemplate: nil, representations: [rep])
                set.segmentAlignment = false
                set.startWithSAP = nil
                return set
            }
        }
    }
}

/// The one writer of a session's subtitle playlists: a segment per item of the session's
/// timeline (the same durations, discontinuities and program dates as its video playlists, so
/// that a player lines them up segment for segment), a content item's segment the cues of the
/// content time it shows placed at its first frame's PTS on the wire, an ad's or slate's an
/// empty one. So no cue shows during an ad or across a cut.
enum SessionSubtitlePlaylist {
    /// The name of the segment with no cue. Each segment that lists it names it with its own
    /// start (`?at=` ticks, which the route ignores): players that tell segments apart by URI
    /// (GStreamer's hlsdemux2 drops "duplicate segment entries") see as many segments as there are.
    static let empty = "empty.vtt"

    /// The subtitle playlist of `timeline` for track `track` of `content`.
    static func media(_ timeline: SessionTimeline, content: String, track: Int, programDate: Date, cdn: CDNPrefixes) -> HLS.MediaPlaylist {
        let prefix = cdn.prefix(forPath: "content/")
        var contentTime = MediaTime.zero
        let items = timeline.items.map { item -> SessionPlaylist.Item in
            let uri: String
            if case .content = item.kind {
                let from = contentTime.mpegTicks, to = (contentTime + item.segment.duration).mpegTicks
                let wire = (item.wirePTS ?? item.start + TSTimestamps.muxerOffset).mpegTicks & WebVTT.maxMPEGTS
                uri = prefix + "/v1/subtitles/\(content)/\(track)/\(from)-\(to).vtt?p=\(wire)&l=\(item.start.mpegTicks)"
                contentTime += item.segment.duration
            } else {
                uri = prefix + "/v1/subtitles/" + empty + "?at=\(item.start.mpegTicks)"
            }
            return SessionPlaylist.Item(uri: uri, duration: item.segment.duration, start: item.start, discontinuity: item.discontinuity,
                                        mark: nil, startsAd: nil)
        }
        return SessionPlaylist.vod(items, marks: [:], programDate: programDate)
    }

    /// `FROM-TO` of a segment's name: two tick counts, `FROM < TO`, within `WebVTT.maxTicks`.
    static func span(_ s: Substring) -> (from: Int64, to: Int64)? {
        let parts = s.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ (1...12).contains($0.utf8.count) && $0.utf8.allSatisfy { (48...57).contains($0) } }),
              let from = Int64(parts[0]), let to = Int64(parts[1]), from < to, to <= WebVTT.maxTicks else { return nil }
        return (from, to)
    }
}
