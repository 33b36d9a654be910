import Foundation
import HTTPServer
import Manifest
import Timing

extension ServeService {
    /// `GET /v1/sessions/ID/index.mpd`: the session's DASH MPD (`SessionMPD`), written the
    /// first time it is asked for from the same timelines as its HLS playlists, and kept (a VOD
    /// MPD never changes).
    func dashManifest(_ id: String) -> HTTPAnswer {
        switch kept(id, Self.mpdKey) {
        case nil: return .now(.error(404, "no session '\(id)'"))
        case .answer(let kept): return .now(HTTPResponse(kept))
        case .toWrite(let session): return .later { [self] in await writeDASHManifest(session) }
        }
    }

    /// Where a session keeps its MPD among its written playlists.
    static let mpdKey = "index.mpd"

    /// The MPD of `session`, written now and kept.
    func writeDASHManifest(_ session: ServeSession) async -> HTTPResponse {
        let started = monotonicSeconds(), id = session.id
        defer { metrics.playlistServed(monotonicSeconds() - started) }
        guard let content = try? await media.content(session.content) else { return .error(503, "content not available") }
        if let refused = Self.encryptedRefusal(content, asking: .dash) { return refused.response }
        switch await timelines(session) {
        case .failure(let r): return r.response
        case .success(let (planned, all)):
            let cdn = policy(for: planned.content).config.cdn, signature = self.signature
            let rungs = content.renditions.compactMap { r, codecs in all[r.name].map { SessionMPD.Rung(rendition: r, codecs: codecs, timeline: $0) } }
            // each Period keeps its segments' stored clock and says where they play
            let url: (SessionItem, String, CMAFTracks.Part) -> String = { item, rendition, part in
                item.cmafURL(part, session: id, rendition: rendition, shifted: false).text(signedBy: signature, cdn: cdn)
            }
            let subtitles = Self.subtitleSets(content, name: planned.content, cdn: cdn)
            let languages = Self.languageTimelines(content, all).compactMap { l in
                // a language rung's codecs are its base rung's (the same video, the same kind of sound)
                l.track.rendition.map { r in
                    (track: l.track, rung: SessionMPD.Rung(rendition: r, codecs: content.renditions.first { $0.rendition.name == l.track.base }?.codecs ?? "",
                                                           timeline: l.timeline))
                }
            }
            // an encrypted origin's own files (its sound, its initialization segments), as they came
            let protected = content.protectedCMAF.map { p in (cmaf: p, url: { (path: String) in SegmentURL(path: path).text(signedBy: signature, cdn: cdn) }) }
            guard let mpd = SessionMPD.vod(planned, rungs: rungs, url: url, bytes: segmentBytes, text: subtitles,
                                           defaultLanguage: content.audioTracks.first { $0.isDefault }?.language, languages: languages,
                                           protected: protected) else {
                return .error(503, "the session's MPD cannot be written now")
            }
            if let problem = mpd.validate() {
                log.event("playlist_failed", ["session": id, "error": "MPD: \(problem)"])
                return .error(500, "the session's MPD breaks DASH's timing rules: \(problem)")
            }
            guard let made = Self.keep(DASH.write(mpd), contentType: DASH.mimeType) else { return Self.notKept }
            sessions.update(id) { s in if s.playlists[Self.mpdKey] == nil { s.playlists[Self.mpdKey] = made } }
            return HTTPResponse(sessions.touch(id, { $0.playlists[Self.mpdKey] }).flatMap({ $0 }) ?? made)
        }
    }

    /// A CMAF part of a stored segment (`CMAFTracks`), its timestamps moved by `shift` ticks, as
    /// an answer: 404 when the segment has no such track.
    func cmafResponse(_ part: CMAFTracks.Part, of segment: String, file: URL, shift: Int64) -> HTTPResponse {
        do {
            return HTTPResponse(status: 200, headers: ["Content-Type": part.contentType],
                                body: try cmafTracks.bytes(part, of: segment, file: file, shift: shift))
        } catch {
            log.event("segment_failed", ["segment": segment, "part": part.rawValue, "error": "\(error)"])
            return .error(404, "no \(part.kind == .video ? "video" : "audio") track in '\(segment)'")
        }
    }
}
