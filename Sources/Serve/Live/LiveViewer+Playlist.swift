import Foundation
import Manifest
import Timing

extension LiveViewer {
    /// A rung's track before its first item: its playlist's target duration fixed for good at
    /// the larger of the origin's (rounded up) and the longest ad or slate segment the store
    /// makes; it keeps at least the origin's window of time (and never less than three target
    /// durations, `HLS.LivePlaylist`).
    func newTrack(_ w: LiveWindow, rung: LiveRung) -> Track {
        let target = max(1, Int(w.targetDuration.rescaled(to: 1, rounding: .up).value), context.longestSegment)
        let span = w.segments.reduce(MediaTime.zero) { $0 + $1.duration }
        var track = Track(timeline: SessionTimeline(sliding: rung.rendition.name), playlist: HLS.LivePlaylist(targetDuration: target, keeping: span),
                          cursor: prerollAvail != nil ? originPTS : w.segments.first { $0.firstPTS >= startPTS }?.firstPTS ?? startPTS)
        if rung.key == rungs.first?.key, !subtitles.isEmpty {
            track.subtitles = Array(repeating: HLS.LivePlaylist(targetDuration: target, keeping: span), count: subtitles.count)
        }
        return track
    }

    /// Publishes `item` on `track`: its segment appended to the playlist (which slides), and
    /// the track's timeline fed the item and slid in step with it. An item the playlist refuses (over the target
    /// duration) is left out, logged, and the next item starts a new stream.
    func publish(_ item: SessionItem, on track: inout Track, rung: LiveRung) {
        var item = item
        if track.gap { item.discontinuity = true }
        // a live item that starts a new stream is sent marked as one (an encrypted one as it came)
        item.marked = item.discontinuity && item.segment.encryption == nil
        let entry = item.entry(session: id, rendition: rung.rendition.name, signature: context.signature, cdn: context.cdn,
                               start: clock(item.startPTS))
        var marks: [Int: BreakMark] = [:]
        for a in Set([item.breakIndex, track.last?.mark].compactMap { $0 }) { marks[a] = mark(a, closingAt: item.startPTS) }
        let segment = SessionPlaylist.segment(entry, previous: track.last, marks: marks, programDate: programDate, everyDate: true)
        do {
            try track.playlist.append(segment)
        } catch {
            if !track.gap { context.log?.event("live_item_left_out", ["session": id, "rendition": rung.rendition.name, "error": "\(error)"]) }
            track.gap = true
            return
        }
        track.gap = false
        track.last = entry
        track.timeline.append(item)
        track.timeline.slide(keeping: track.playlist.window.count)
        if track.subtitles != nil { publishSubtitles(item, entry: entry, on: &track) }
    }

    /// The subtitle segments beside `item` (published as `entry`) on `track`'s subtitle
    /// playlists: a content item's the cues of its channel time placed at its first frame's PTS
    /// on the wire and at its place on the viewer's clock (`/v1/subtitles/CHANNEL/N/FROM-TO.vtt?p=&l=`,
    /// the channel's cues), an ad's or slate's the empty segment, so no cue shows during an ad.
    func publishSubtitles(_ item: SessionItem, entry: SessionPlaylist.Item, on track: inout Track) {
        guard var playlists = track.subtitles else { return }
        let prefix = context.cdn.prefix(forPath: "content/")
        let previous = track.lastSubtitle
        var appended: SessionPlaylist.Item?
        for k in playlists.indices {
            let uri: String
            if case .content = item.kind {
                let wire = ((item.startPTS % LivePTS.wrap) + LivePTS.wrap) % LivePTS.wrap
                uri = prefix + "/v1/subtitles/\(channelName)/\(k)/\(item.startPTS)-\(item.endPTS).vtt?p=\(wire)&l=\(max(0, item.startPTS - originPTS))"
            } else {
                uri = prefix + "/v1/subtitles/" + SessionSubtitlePlaylist.empty + "?at=\(item.startPTS)"
            }
            let subtitle = SessionPlaylist.Item(uri: uri, duration: entry.duration, start: entry.start, discontinuity: entry.discontinuity,
                                                mark: nil, startsAd: nil)
            // the same length as the video segment just published: it fits the same target
            try? playlists[k].append(SessionPlaylist.segment(subtitle, previous: previous, marks: [:], programDate: programDate, everyDate: true))
            appended = subtitle
        }
        track.subtitles = playlists
        track.lastSubtitle = appended
    }

    /// The viewer's clock at channel PTS `pts`: time since its first frame.
    func clock(_ pts: Int64) -> MediaTime { MediaTime(value: pts - originPTS, timescale: 90_000) }

    /// How the playlist marks avail `a` now: its start and length on the viewer's clock (the
    /// planned length until its end is known), its splice points on the channel's clock, which
    /// ads and slate are shifted onto (`pts` is where content comes back when it closes there).
    func mark(_ a: Int, closingAt pts: Int64) -> BreakMark {
        let avail = avails[a]
        let length = (avail.endPTS ?? (avail.startPTS + avail.requestedTicks)) - avail.startPTS
        var ads: [BreakMark.Ad] = []
        if let pod = avail.pod, let decided = avail.ads {
            for slot in pod.slots {
                ads.append(BreakMark.Ad(index: slot.ad, id: decided[slot.ad].id, start: clock(avail.startPTS + slot.start),
                                        duration: MediaTime(value: slot.ticks, timescale: 90_000)))
            }
        }
        func wire(_ v: Int64) -> MediaTime { MediaTime(value: ((v % LivePTS.wrap) + LivePTS.wrap) % LivePTS.wrap, timescale: 90_000) }
        return BreakMark(id: avail.breakID, eventID: UInt32(truncatingIfNeeded: a + 1), start: clock(avail.startPTS),
                         duration: MediaTime(value: length, timescale: 90_000), outPTS: wire(avail.startPTS), inPTS: wire(pts), ads: ads)
    }

    /// The `EXT-X-MEDIA` of each subtitle rendition (group `subs`) naming the viewer's playlist
    /// of it: one for both masters (its segments are on the channel's clock, as the MPEG-TS and
    /// CMAF segments are).
    nonisolated var subtitleRenditions: [HLS.Rendition] {
        subtitles.enumerated().map { n, r in
            HLS.Rendition(type: .subtitles, groupID: ServeService.subtitleGroup, name: r.name, language: r.language, isDefault: r.isDefault,
                          autoselect: r.autoselect || r.isDefault, forced: r.forced, characteristics: r.characteristics,
                          uri: "/v1/sessions/\(id)/subtitles/\(n).m3u8")
        }
    }

    /// The multivariant playlist: one variant per rung, top first; the channel's subtitle
    /// renditions in group `subs`, each naming the viewer's playlist of it.
    public nonisolated func master() -> String {
        let subtitles = subtitleRenditions
        let audio = audioRenditions(query: "")
        return HLS.write(HLS.MultivariantPlaylist(renditions: audio + subtitles, variants: rungs.map { r in
            var v = HLS.Variant(uri: "/v1/sessions/\(id)/\(r.rendition.name).m3u8", bandwidth: r.rendition.videoBitrate + r.rendition.audioBitrate,
                                codecs: r.info.codecs, resolution: HLS.Resolution(width: r.info.width, height: r.info.height))
            if !subtitles.isEmpty { v.subtitles = ServeService.subtitleGroup }
            if !audio.isEmpty { v.audio = Self.cmafAudio }
            return v
        }))
    }

    /// With other languages, the audio renditions of a master (group `audio`): the main
    /// language first and the default (`audio.m3u8`: the top rung's sound), then each language
    /// (`audio-N.m3u8`: its language rung's), named as the origin names them; `query` after
    /// each URI (`?segments=cmaf` for the CMAF master). Empty without other languages. As in a
    /// VOD session (`ServeService.audioGroup`), the main language is a rendition of its own
    /// beside the variants' muxed sound.
    nonisolated func audioRenditions(query: String) -> [HLS.Rendition] {
        languages.isEmpty ? [] : ServeService.audioGroup(id, main: mainLanguage, others: languages.map(\.rendition), query: query)
    }
}
