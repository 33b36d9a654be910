import Foundation
import HTTPServer
import Manifest
import Timing

extension ServeService {
    /// The query that asks for a session's HLS with CMAF segments (`?segments=cmaf`).
    static func wantsCMAF(_ r: HTTPRequest) -> Bool { r.queryValue("segments") == "cmaf" }

    /// The content's other languages with the session's timeline of each one's rung, in order.
    static func languageTimelines(_ content: PreparedContent, _ all: [String: SessionTimeline]) -> [(track: AudioTrack, timeline: SessionTimeline)] {
        content.audioTracks.compactMap { t in t.rendition.flatMap { all[$0.name] }.map { (t, $0) } }
    }

    /// The dialects a session's content is served in.
    enum Dialect { case hlsTS, hlsCMAF, dash }

    /// What a request in `dialect` for encrypted content not served in it gets (409), nil when
    /// it is: an AES-128 origin's segments go out as they came, as HLS with MPEG-TS segments only
    /// (a CMAF track would be a remux of bytes the service cannot read); an encrypted CMAF origin's
    /// as DASH only (its `ContentProtection` names a key system HLS's `EXT-X-KEY` does not).
    static func encryptedRefusal(_ content: PreparedContent, asking dialect: Dialect) -> Refusal? {
        let name = content.name.prefix(64)
        if let p = content.protectedCMAF {
            if dialect == .dash || (dialect == .hlsCMAF && p.hls != nil) { return nil }
            return Refusal(status: 409, message: p.hls == nil
                ? "content '\(name)' is encrypted CMAF (DASH ContentProtection): it is served as DASH only (index.mpd)"
                : "content '\(name)' is encrypted CMAF: it is served as HLS with CMAF segments (master.m3u8?segments=cmaf) and DASH (index.mpd)")
        }
        guard content.encrypted, dialect != .hlsTS else { return nil }
        return Refusal(status: 409, message: "content '\(name)' is encrypted (AES-128): it is served as HLS with MPEG-TS segments only")
    }

    /// The HLS form sessions of `content` are served in: MPEG-TS (`.hlsTS`, which also offers
    /// `?segments=cmaf`), CMAF segments only (`.hlsCMAF`: sample-encrypted CMAF from an HLS
    /// origin), or none (nil: DASH only).
    static func hlsDialect(_ content: PreparedContent) -> Dialect? {
        if encryptedRefusal(content, asking: .hlsTS) == nil { return .hlsTS }
        return encryptedRefusal(content, asking: .hlsCMAF) == nil ? .hlsCMAF : nil
    }

    /// The name of a CMAF session's audio playlist (`/v1/sessions/ID/audio.m3u8?segments=cmaf`).
    static let cmafAudio = "audio"

    /// `GET /v1/sessions/ID/master.m3u8?segments=cmaf` (`name` "master"),
    /// `…/RENDITION.m3u8?segments=cmaf`, `…/audio.m3u8?segments=cmaf`: the session as HLS with CMAF
    /// segments (`EXT-X-MAP`), the same plan and timelines as its MPEG-TS playlists and its MPD,
    /// every playlist written at once the first time one is asked for and kept.
    func cmafPlaylist(_ id: String, name: String) -> HTTPAnswer {
        let session: ServeSession
        switch kept(id, name + "?cmaf") {
        case nil: return .now(.error(404, "no session '\(id)'"))
        case .answer(let kept): return .now(HTTPResponse(kept))
        case .toWrite(let s): session = s
        }
        return .later { [self] in
            switch await writeCMAFPlaylists(session) {
            case .failure(let r): return r.response
            case .success(let all):
                guard let kept = all[name + "?cmaf"] else { return .error(404, "no playlist '\(name)'") }
                return HTTPResponse(kept)
            }
        }
    }

    /// Every CMAF playlist of `session` (master, each rung's video, the audio), kept under
    /// `NAME?cmaf` (the first written wins in a race), as their kept answers.
    func writeCMAFPlaylists(_ session: ServeSession) async -> Result<[String: PreparedResponse], Refusal> {
        let started = monotonicSeconds(), id = session.id
        defer { metrics.playlistServed(monotonicSeconds() - started) }
        guard let content = try? await media.content(session.content) else { return .failure(Refusal(status: 503, message: "content not available")) }
        if let refused = Self.encryptedRefusal(content, asking: .hlsCMAF) { return .failure(refused) }
        switch await timelines(session) {
        case .failure(let r): return .failure(r)
        case .success(let (planned, all)) where content.protectedCMAF != nil:
            return keepCMAF(protectedHLS(planned, content: content, timelines: all), session: id)
        case .success(let (planned, all)):
            let cdn = policy(for: planned.content).config.cdn
            let rungs = content.renditions.compactMap { r, codecs in all[r.name].map { SessionMPD.Rung(rendition: r, codecs: codecs, timeline: $0) } }
            guard let top = rungs.first else { return .failure(Refusal(status: 503, message: "content not available")) }
            var texts: [String: String] = [:]
            var variants: [HLS.Variant] = []
            let audioCodec = SessionMPD.audioCodec(top.codecs)
            for rung in rungs {
                let playlist = SessionCMAFPlaylist.media(rung.timeline, video: true, session: planned, signature: signature, cdn: cdn)
                texts[rung.rendition.name + "?cmaf"] = HLS.write(playlist)
                let rates = SegmentBitRate.of(rung.timeline.items.map { (segmentBytes($0.segment.path), $0.segment.duration) },
                                              targetDuration: playlist.targetDuration)
                let codecs = [SessionMPD.videoCodec(rung.codecs)] + (audioCodec.map { [$0] } ?? [])
                variants.append(HLS.Variant(uri: "/v1/sessions/\(id)/\(rung.rendition.name).m3u8?segments=cmaf",
                                            bandwidth: max(1, rates.peak), averageBandwidth: max(1, rates.average), codecs: codecs.joined(separator: ","),
                                            resolution: HLS.Resolution(width: rung.rendition.width, height: rung.rendition.height),
                                            frameRate: rung.rendition.frameRate, audio: audioCodec == nil ? nil : "audio"))
            }
            var renditions: [HLS.Rendition] = []
            if audioCodec != nil {
                let audio = SessionCMAFPlaylist.media(top.timeline, video: false, session: planned, signature: signature, cdn: cdn)
                texts[Self.cmafAudio + "?cmaf"] = HLS.write(audio)
                // the origin's default audio rendition names the ladder's own sound; each other
                // language its rung's sound, cut and filled with ads as the ladder is
                let languages = Self.languageTimelines(content, all)
                for (n, track) in languages.enumerated() {
                    texts["\(Self.cmafAudio)-\(n + 1)?cmaf"] = HLS.write(SessionCMAFPlaylist.media(track.timeline, video: false, session: planned,
                                                                                                 signature: signature, cdn: cdn))
                }
                renditions = Self.audioGroup(id, main: content.audioTracks.first { $0.isDefault }.map(Self.audioRendition),
                                             others: languages.map { Self.audioRendition($0.track) }, query: "?segments=cmaf")
            }
            let subtitles = Self.subtitleRenditions(id, content: content, cmaf: true)
            if !subtitles.isEmpty { for i in variants.indices { variants[i].subtitles = Self.subtitleGroup } }
            texts["master?cmaf"] = HLS.write(HLS.MultivariantPlaylist(renditions: renditions + subtitles, variants: variants))
            return keepCMAF(texts, session: id)
        }
    }

    /// Keeps a session's CMAF playlists `texts` (by their `NAME?cmaf` keys; the first written
    /// wins in a race) and answers the kept ones.
    func keepCMAF(_ texts: [String: String], session id: String) -> Result<[String: PreparedResponse], Refusal> {
        var made: [String: PreparedResponse] = [:]
        for (k, text) in texts {
            guard let kept = Self.keep(text, contentType: HLS.mimeType) else { return .failure(Refusal(status: 503, message: "the session's playlists cannot be kept now")) }
            made[k] = kept
        }
        sessions.update(id) { s in for (k, v) in made where s.playlists[k] == nil { s.playlists[k] = v } }
        let kept = sessions.touch(id)?.playlists ?? [:]
        return .success(made.reduce(into: [:]) { out, e in out[e.key] = kept[e.key] ?? e.value })
    }
}

/// The one writer of a session's HLS media playlists with CMAF segments: `SessionPlaylist`'s
/// segments and markers over the stored segments' CMAF tracks (`CMAFTracks`), each run (content
/// run, ad, slate fill) after its `EXT-X-DISCONTINUITY`, one `EXT-X-MAP` for them all (the
/// track's initialization segment of the first segment). Always on the stream clock: each run's
/// timestamps moved (`o=`) to go on where the run before it ended, as the stitch's CMAF
/// package does, since CMAF players (GStreamer's hlsdemux2, hls.js) place fragments by their
/// `tfdt` and do not reset at `EXT-X-DISCONTINUITY`; the markers are that clock's. Content
/// segments are the same URL for every session whose breaks put them at the same place.
enum SessionCMAFPlaylist {
    /// The video (or audio) media playlist of `timeline` for `session`.
    static func media(_ timeline: SessionTimeline, video: Bool, session: ServeSession, signature: SegmentSignature, cdn: CDNPrefixes) -> HLS.MediaPlaylist {
        let stored = streamClock(timeline)
        let part: CMAFTracks.Part = video ? .video : .audio, initPart: CMAFTracks.Part = video ? .videoInit : .audioInit
        func url(_ item: SessionItem, _ part: CMAFTracks.Part) -> String {
            item.cmafURL(part, session: session.id, rendition: timeline.rendition, shifted: true).text(signedBy: signature, cdn: cdn)
        }
        let items = stored.items.map { item in
            SessionPlaylist.Item(uri: url(item, part), duration: item.segment.duration, start: item.start, discontinuity: item.discontinuity,
                                 mark: item.breakIndex, startsAd: item.startsAd)
        }
        var playlist = SessionPlaylist.vod(items, marks: stored.marks(session, clock: .stream), programDate: session.programDate)
        // one initialization segment for the whole playlist (RFC 8216 §4.3.2.5: a map applies to
        // every segment after it): its sample entry (`avc3`, `hev1`) lets each ad carry its own
        // parameter sets in band, within the variant's profile and level, and ads are made with the
        // content's sound (rate, layout, AAC), so no player has to take a second `moov` mid-stream
        // (FFmpeg's reader, and so mpv, warn of a duplicated one)
        if let first = stored.items.first, !playlist.segments.isEmpty { playlist.segments[0].map = HLS.Map(uri: url(first, initPart)) }
        return playlist
    }

    /// `timeline` on the stream clock, which every CMAF playlist uses: each segment's stored
    /// first PTS (its wire PTS less its clock's shift) moved to where the run before it ended.
    static func streamClock(_ timeline: SessionTimeline) -> SessionTimeline {
        var storedPTS: [String: MediaTime] = [:]
        for item in timeline.items { if let pts = item.storedPTS { storedPTS[item.segment.path] = pts } }
        return timeline.on(.stream) { storedPTS[$0.path] }
    }
}
