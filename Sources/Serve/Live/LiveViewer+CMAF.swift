import Foundation
import Manifest
import Timing

extension LiveViewer {
    /// The name of a live session's CMAF audio playlist (`/v1/sessions/ID/audio.m3u8?segments=cmaf`).
    static let cmafAudio = "audio"

    /// The viewer's HLS media playlist of `rung` with CMAF segments (its video, or with `audio`
    /// its sound): its MPEG-TS playlist (`playlist(rung:)`) advanced to the channel's window, each
    /// segment's URI that item's CMAF track (`SessionItem.cmafURL`, on the same clock: the
    /// channel's, ads and slate moved onto it), one `EXT-X-MAP` in front naming the tracks of the
    /// rung's kept first segment (`LiveSegment.initializationPath`). Both playlists are one value
    /// (`Track`): the media and discontinuity sequence numbers, durations, tags and markers are the
    /// MPEG-TS playlist's, so the RFC 8216 §6.2.1–6.2.2 rules it keeps by construction hold here
    /// too, and a segment's CMAF URI, a function of the item published there, never changes.
    /// Nil as `playlist(rung:)`.
    public func cmafPlaylist(rung: LiveRung, audio: Bool) async -> String? {
        await shared(saving: true) {
            await advance(rung)
            return tracks[rung.key].flatMap { cmafPlaylist($0, rung: rung, audio: audio) }
        } ?? nil
    }

    /// The CMAF playlist of `track` now (see `cmafPlaylist(rung:audio:)`); nil (logged) if its
    /// timeline and playlist ever disagreed, which `publish` never lets happen.
    func cmafPlaylist(_ track: Track, rung: LiveRung, audio: Bool) -> String? {
        var playlist = track.playlist.playlist
        let items = track.timeline.items
        assert(items.count == playlist.segments.count, "a track's timeline slides in step with its playlist")
        guard items.count == playlist.segments.count else {
            context.log?.event("live_cmaf_refused", ["session": id, "rendition": rung.rendition.name,
                                                     "error": "\(items.count) items for \(playlist.segments.count) segments"])
            return nil
        }
        func url(_ item: SessionItem, _ part: CMAFTracks.Part) -> String {
            item.cmafURL(part, session: id, rendition: rung.rendition.name, shifted: true).text(signedBy: context.signature, cdn: context.cdn)
        }
        for i in items.indices { playlist.segments[i].uri = url(items[i], audio ? .audio : .video) }
        if items.contains(where: { $0.segment.encryption?.isCMAF == true }) {
            return HLS.write(Self.withOwnMapsAndKeys(playlist, items, audio: audio, initialization: { url($0, audio ? .audioInit : .videoInit) }))
        }
        if !playlist.segments.isEmpty { playlist.segments[0].map = HLS.Map(uri: initializationURL(rung.key, audio ? .audioInit : .videoInit)) }
        return HLS.write(playlist)
    }

    /// `playlist` (the items' CMAF URIs in place) of a channel of sample-encrypted CMAF
    /// (`LiveChannel+EncryptedCMAF`): each item under its own initialization segment — content
    /// the origin's, as it came; an ad's or slate's its clear CMAF track's — an `EXT-X-MAP` where it
    /// changes, and the key in force for each (content: the origin's, the video's or with `audio`
    /// the sound's, passed on; ads and slate clear: `METHOD=NONE` after a key). Both follow from
    /// the items alone, so a published segment's map and key never change across refreshes (the
    /// first segment's are written in full: a clear one under `METHOD=NONE`, as every clear
    /// segment of such a playlist is, whatever came before it).
    /// (`initialization(item)`: the URL of its initialization segment; `SessionProtectedHLS.withMaps`
    /// writes the maps, as for VOD.)
    nonisolated static func withOwnMapsAndKeys(_ playlist: HLS.MediaPlaylist, _ items: [SessionItem], audio: Bool,
                                               initialization: (SessionItem) -> String) -> HLS.MediaPlaylist {
        var p = SessionProtectedHLS.withMaps(playlist, items.map(initialization))
        var previousKey: HLS.Key?
        for i in p.segments.indices {
            let e = items[i].segment.encryption
            let key = e?.isCMAF == true ? (audio ? e?.sound?.key : e?.key) : nil
            p.segments[i].key = i == 0 ? key ?? HLS.Key.none : SessionPlaylist.keyTag(key, after: previousKey)
            previousKey = key
        }
        return p
    }

    /// The URL of a rung's (channel key `key`) CMAF initialization segment `part`: the tracks of
    /// its kept first segment (`LiveSegment.initializationPath`), the same at every refresh, what
    /// its CMAF playlists' one map and its MPD's every Period name.
    nonisolated func initializationURL(_ key: String, _ part: CMAFTracks.Part) -> String {
        let source = LiveSegment.initializationPath(channel: context.channel.storeName, rendition: key)
        return SegmentURL(path: CMAFTracks.path(source, part)).text(signedBy: context.signature, cdn: context.cdn)
    }

    /// The multivariant playlist of the viewer's CMAF playlists: a variant per rung (video only,
    /// `CODECS` with the sample entry the tracks carry, `avc3`/`hev1`), the top rung's sound as
    /// the one `EXT-X-MEDIA` audio rendition, as a VOD session's (`?segments=cmaf`); the
    /// subtitle renditions of the MPEG-TS master (the same playlists: one clock).
    public nonisolated func cmafMaster() -> String {
        let audioCodec = rungs.first.flatMap { SessionMPD.audioCodec($0.info.codecs) }
        let subtitles = subtitleRenditions
        // (sample-encrypted CMAF content keeps the origin's sample entry: `avc1` in its `encv`)
        let keptEntry = context.channel.isEncryptedCMAF
        let variants = rungs.map { r in
            let video = keptEntry ? String(r.info.codecs.split(separator: ",").first ?? "avc1") : SessionMPD.videoCodec(r.info.codecs)
            var v = HLS.Variant(uri: "/v1/sessions/\(id)/\(r.rendition.name).m3u8?segments=cmaf", bandwidth: r.rendition.videoBitrate + r.rendition.audioBitrate,
                                codecs: ([video] + (audioCodec.map { [$0] } ?? [])).joined(separator: ","),
                                resolution: HLS.Resolution(width: r.info.width, height: r.info.height), frameRate: r.info.frameRate,
                                audio: audioCodec == nil ? nil : "audio")
            if !subtitles.isEmpty { v.subtitles = ServeService.subtitleGroup }
            return v
        }
        // with other languages, each language rung's sound too (`audio-N.m3u8`)
        let languages = audioCodec == nil ? [] : audioRenditions(query: "?segments=cmaf")
        let renditions = audioCodec == nil ? [] : !languages.isEmpty ? languages
            : [HLS.Rendition(type: .audio, groupID: "audio", name: "main", isDefault: true, autoselect: true,
                             uri: "/v1/sessions/\(id)/\(Self.cmafAudio).m3u8?segments=cmaf")]
        return HLS.write(HLS.MultivariantPlaylist(renditions: renditions + subtitles, variants: variants))
    }
}
