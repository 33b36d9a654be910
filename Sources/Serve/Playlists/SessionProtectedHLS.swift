import Foundation
import Manifest
import Timing

/// The HLS playlists (CMAF segments) of a session of sample-encrypted CMAF from an HLS origin
/// (`ProtectedCMAF.hls`: FairPlay, Widevine, identity keys — whatever its `EXT-X-KEY` said),
/// written by the one media-playlist writer (`SessionPlaylist`). The origin's segments go out as
/// they came, so every run is on its own clock after its `EXT-X-DISCONTINUITY` (the shared clock,
/// as for every encrypted origin), with its own `EXT-X-MAP`:
/// - a rung's playlist: content runs the origin's encrypted segments under the rung's kept
///   initialization segment and the origin's key (its URI absolute, passed on, never fetched);
///   an ad or slate run its clear CMAF video track under `EXT-X-KEY:METHOD=NONE`, the key again
///   after it; breaks at segment boundaries (the content's timeline);
/// - the audio rendition: a content run the origin's audio segments whose middle falls in the
///   run (audio and video segments of one packager end within an AAC frame of each other; one
///   under a millisecond left out), under
///   the audio's own initialization segment and key when it is encrypted; an ad's run its clear
///   CMAF audio track.
enum SessionProtectedHLS {
    /// Rung `timeline`'s video playlist, its content under `key`.
    static func video(_ timeline: SessionTimeline, key: HLS.Key, session: ServeSession, url: (SessionItem, CMAFTracks.Part) -> String) -> HLS.MediaPlaylist {
        var maps: [String] = []
        let items = timeline.items.map { item -> SessionPlaylist.Item in
            maps.append(url(item, .videoInit))
            return SessionPlaylist.Item(uri: url(item, .video), duration: item.segment.duration, start: item.start, discontinuity: item.discontinuity,
                                        mark: item.breakIndex, startsAd: item.startsAd, key: item.segment.encryption?.isCMAF == true ? key : nil)
        }
        return withMaps(SessionPlaylist.vod(items, marks: timeline.marks(session, clock: .shared), programDate: session.programDate), maps)
    }

    /// Audio track `a`'s rendition playlist along the top rung's `timeline` (the ads' sound in
    /// every language's).
    static func audio(_ timeline: SessionTimeline, _ a: ProtectedCMAF.Audio, session: ServeSession, url: (SessionItem, CMAFTracks.Part) -> String,
                      origin: (String) -> String) -> HLS.MediaPlaylist {
        var items: [SessionPlaylist.Item] = [], maps: [String] = []
        var at = MediaTime.zero
        func add(_ uri: String, map: String, duration: MediaTime, discontinuity: Bool, mark: Int?, startsAd: Int?, key: HLS.Key?) {
            items.append(SessionPlaylist.Item(uri: uri, duration: duration, start: at, discontinuity: discontinuity, mark: mark, startsAd: startsAd, key: key))
            maps.append(map)
            at += duration
        }
        var i = 0
        let all = timeline.items
        while i < all.count {
            guard let encryption = all[i].segment.encryption, encryption.isCMAF else {
                let item = all[i]
                add(url(item, .audio), map: url(item, .audioInit), duration: item.segment.duration, discontinuity: item.discontinuity,
                    mark: item.breakIndex, startsAd: item.startsAd, key: nil)
                i += 1
                continue
            }
            // a content run: its items up to the next discontinuity or clear item
            var j = i + 1
            while j < all.count, all[j].segment.encryption?.isCMAF == true, !all[j].discontinuity { j += 1 }
            let length = all[i..<j].reduce(MediaTime.zero) { $0 + $1.segment.duration }
            let from = MediaTime(value: encryption.firstPTS, timescale: 90_000) + a.zeroTime
            let lo = from.rescaled(to: a.timescale, rounding: .nearest).value, hi = (from + length).rescaled(to: a.timescale, rounding: .nearest).value
            // (a segment under a millisecond, the origin's last AAC frame or less, has no time to list)
            let listed = a.segments.filter { 2 * $0.start + $0.duration >= 2 * lo && 2 * $0.start + $0.duration < 2 * hi && $0.duration * 1000 >= a.timescale }
            for (k, s) in listed.enumerated() {
                add(origin(s.path), map: origin(a.initialization), duration: MediaTime(value: s.duration, timescale: a.timescale),
                    discontinuity: k == 0 && all[i].discontinuity, mark: nil, startsAd: nil, key: a.hlsKey)
            }
            i = j
        }
        return withMaps(SessionPlaylist.vod(items, marks: timeline.marks(session, clock: .shared), programDate: session.programDate), maps)
    }

    /// `playlist` with `EXT-X-MAP` where the initialization segment changes (`maps`: each segment's).
    static func withMaps(_ playlist: HLS.MediaPlaylist, _ maps: [String]) -> HLS.MediaPlaylist {
        var p = playlist
        for i in p.segments.indices where i < maps.count && (i == 0 || maps[i] != maps[i - 1]) { p.segments[i].map = HLS.Map(uri: maps[i]) }
        return p
    }
}

extension ServeService {
    /// Every HLS playlist (CMAF segments) of `session` over sample-encrypted CMAF content from
    /// an HLS origin (`SessionProtectedHLS`): each rung's, the audio rendition's and the
    /// multivariant playlist (naming the subtitle renditions too), by their `NAME?cmaf` keys;
    /// none for content without HLS keys.
    func protectedHLS(_ session: ServeSession, content: PreparedContent, timelines all: [String: SessionTimeline]) -> [String: String] {
        guard let protected = content.protectedCMAF, let keys = protected.hls else { return [:] }
        let cdn = policy(for: session.content).config.cdn, id = session.id
        var texts: [String: String] = [:]
        var variants: [HLS.Variant] = []
        var top: SessionTimeline?
        for (r, codecs) in content.renditions {
            guard let timeline = all[r.name] else { continue }
            top = top ?? timeline
            let playlist = SessionProtectedHLS.video(timeline, key: keys.video, session: session) { item, part in
                item.cmafURL(part, session: id, rendition: r.name, shifted: false).text(signedBy: signature, cdn: cdn)
            }
            texts[r.name + "?cmaf"] = HLS.write(playlist)
            let rates = SegmentBitRate.of(timeline.items.map { (segmentBytes($0.segment.path), $0.segment.duration) }, targetDuration: playlist.targetDuration)
            let video = codecs.split(separator: ",").first.map(String.init) ?? "avc1.640028"
            // with the largest audio rendition's
            let sound = protected.audioTracks.map(\.bandwidth).max() ?? 0
            variants.append(HLS.Variant(uri: "/v1/sessions/\(id)/\(r.name).m3u8?segments=cmaf", bandwidth: max(1, rates.peak + sound),
                                        averageBandwidth: max(1, rates.average + sound),
                                        codecs: ([video] + (protected.audio.map { [$0.codecs] } ?? [])).joined(separator: ","),
                                        resolution: HLS.Resolution(width: r.width, height: r.height), frameRate: r.frameRate,
                                        audio: protected.audio == nil ? nil : "audio"))
        }
        // the main sound, then each other language (`audio-N`), the ads' sound in each
        var renditions: [HLS.Rendition] = []
        if let top {
            var names: Set<String> = []
            for (n, a) in protected.audioTracks.enumerated() {
                let audio = SessionProtectedHLS.audio(top, a, session: session, url: { item, part in
                    item.cmafURL(part, session: id, rendition: top.rendition, shifted: false).text(signedBy: signature, cdn: cdn)
                }, origin: { SegmentURL(path: $0).text(signedBy: signature, cdn: cdn) })
                let key = n == 0 ? Self.cmafAudio : "\(Self.cmafAudio)-\(n)"
                texts[key + "?cmaf"] = HLS.write(audio)
                var name = a.language ?? (n == 0 ? "main" : "audio \(n + 1)")
                if !names.insert(name).inserted { name += " \(n + 1)"; names.insert(name) }
                renditions.append(HLS.Rendition(type: .audio, groupID: "audio", name: name, language: a.language, isDefault: n == 0,
                                                autoselect: true, channels: a.channels.map(String.init), uri: "/v1/sessions/\(id)/\(key).m3u8?segments=cmaf"))
            }
        }
        let subtitles = Self.subtitleRenditions(id, content: content, cmaf: true)
        if !subtitles.isEmpty { for i in variants.indices { variants[i].subtitles = Self.subtitleGroup } }
        texts["master?cmaf"] = HLS.write(HLS.MultivariantPlaylist(renditions: renditions + subtitles, variants: variants))
        return texts
    }
}
