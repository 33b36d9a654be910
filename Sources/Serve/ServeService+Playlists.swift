import Ads
import Foundation
import HTTPServer
@_spi(Engine) import Interlude
import Timing

extension ServeService {
    /// `GET /v1/sessions/ID/master.m3u8`.
    func master(_ id: String, interstitials: Bool) -> HTTPResponse {
        let started = monotonicSeconds()
        guard let session = sessions.touch(id) else { return .error(404, "no session '\(id)'") }
        let media = self.media
        guard let content = blocking({ try? await media.content(session.content) }) else { return .error(503, "content not available") }
        defer { metrics.playlistServed(monotonicSeconds() - started) }
        return .text(PlaylistWriter.master(sessionID: id, content: content, interstitials: interstitials),
                     contentType: "application/vnd.apple.mpegurl")
    }

    /// `GET /v1/sessions/ID/RENDITION.m3u8`: the session's media playlist; once no ad in it is
    /// pending it is kept and later requests are a lookup.
    func mediaPlaylist(_ id: String, rendition: String, interstitials: Bool) -> HTTPResponse {
        let started = monotonicSeconds()
        guard let session = sessions.touch(id) else { return .error(404, "no session '\(id)'") }
        defer { metrics.playlistServed(monotonicSeconds() - started) }
        if interstitials {
            let media = self.media
            let built: Result<String, Refusal> = blocking {
                do {
                    let content = try await media.content(session.content)
                    guard content.renditions.contains(where: { $0.rendition.name == rendition }) else { return .failure(Refusal(status: 404, message: "no rendition '\(rendition)'")) }
                    let cut = try await media.cut(session.content, rendition: rendition, at: [])
                    return .success(PlaylistWriter.interstitials(content: cut.runs.flatMap { $0 }, breaks: session.breaks,
                                                                 contentDuration: content.duration, session: session))
                } catch { return .failure(Refusal(status: 503, message: "\(error)")) }
            }
            switch built {
            case .success(let text): return .text(text, contentType: "application/vnd.apple.mpegurl")
            case .failure(let r): return r.response
            }
        }
        if let text = session.playlists[rendition] { return .text(text, contentType: "application/vnd.apple.mpegurl") }
        switch timeline(session, rendition: rendition) {
        case .failure(let r): return r.response
        case .success(let t):
            let text = PlaylistWriter.media(t, session: session)
            if !t.hasPending {
                let first = sessions.update(id) { s in
                    defer { s.timelines[rendition] = t; s.playlists[rendition] = text }
                    return s.timelines[rendition] == nil || s.playlists[rendition] == nil
                } ?? false
                if first { media.pin(t.items.map(\.segment.path)) }
            } else {
                sessions.update(id) { s in if s.timelines[rendition] == nil { s.timelines[rendition] = t } }
            }
            return .text(text, contentType: "application/vnd.apple.mpegurl")
        }
    }

    /// Lays out one rendition of a session from the store: the content cut at its mid-rolls and,
    /// per ad, its rendition if ready or the fill. A failed ad's Error URLs fire once.
    func timeline(_ session: ServeSession, rendition: String) -> Result<SessionTimeline, Refusal> {
        let media = self.media, fill = config.fill, clock = config.clock
        let midCues = session.breaks.compactMap { b -> MediaTime? in if case .midroll(let t) = b.position { t } else { nil } }
        let built: Result<(SessionTimeline, [(Int, Int, Int, String)]), Refusal> = blocking {
            do {
                let content = try await media.content(session.content)
                guard content.renditions.contains(where: { $0.rendition.name == rendition }) else {
                    return .failure(Refusal(status: 404, message: "no rendition '\(rendition)'"))
                }
                let cut = try await media.cut(session.content, rendition: rendition, at: midCues)
                var pending = false
                var failures: [(Int, Int, Int, String)] = []
                var breaks: [(position: PlannedBreak.Position, slots: [AdSlot])] = []
                for (bi, b) in session.breaks.enumerated() {
                    var slots: [AdSlot] = []
                    for (ai, ad) in b.ads.enumerated() {
                        switch media.ad(mediaURL: ad.mediaURL, rendition: rendition) {
                        case .ready(let segments, let duration): slots.append(.ready(segments, duration: duration)); continue
                        case .pending: pending = true
                        case .failed(let code, let reason): failures.append((bi, ai, code, reason))
                        }
                        if fill == .slate, let d = ad.declaredDuration, d > .zero {
                            slots.append(.filled(try await media.slate(rendition: rendition, duration: d)))
                        } else {
                            slots.append(.filled([]))
                        }
                    }
                    breaks.append((b.position, slots))
                }
                var t = SessionTimeline.layout(rendition: rendition, runs: cut.runs, cues: cut.cues, contentDuration: content.duration,
                                               breaks: breaks, hasPending: pending)
                if clock == .stream {
                    t = t.onStreamClock { segment in
                        guard let url = media.file(forSegment: segment.path), let handle = try? FileHandle(forReadingFrom: url) else { return nil }
                        defer { try? handle.close() }
                        let head = (try? handle.read(upToCount: 64 * 1024)) ?? Data()
                        return TSTimestamps.firstVideoPTS(head).map { $0 - TSTimestamps.muxerOffset }
                    }
                }
                return .success((t, failures))
            } catch {
                return .failure(Refusal(status: 503, message: "\(error)"))
            }
        }
        switch built {
        case .failure(let r):
            log.event("playlist_failed", ["session": session.id, "rendition": rendition, "error": r.message])
            return .failure(r)
        case .success(let (t, failures)):
            for (bi, ai, code, reason) in failures { fireError(session, breakIndex: bi, adIndex: ai, code: code, reason: reason) }
            return .success(t)
        }
    }

    /// Fires an ad's Error URLs with `code`, once per session.
    func fireError(_ session: ServeSession, breakIndex bi: Int, adIndex ai: Int, code: Int, reason: String) {
        let key = "\(bi)/\(ai)/error"
        guard ledger.claim([key], session: session.id) == [key] else { return }
        let ad = session.breaks[bi].ads[ai]
        log.event("ad_failed", ["session": session.id, "ad": ad.id, "code": code, "reason": reason])
        var context = MacroContext()
        context.errorCode = VASTErrorCode(rawValue: code)
        context.assetURI = ad.mediaURL
        for url in ad.errorURLs {
            beacons.fire(TrackedBeacon(event: "error", streamTime: .zero, contentTime: .zero, url: MacroExpander.expand(url, context: context),
                                       adId: ad.id, breakId: session.breaks[bi].id))
        }
    }

    /// The session's top-rendition timeline (built if needed): what the tracking JSON describes.
    func topTimeline(_ session: ServeSession) -> Result<SessionTimeline, Refusal> {
        let media = self.media
        guard let content = blocking({ try? await media.content(session.content) }), let top = content.renditions.first?.rendition.name else {
            return .failure(Refusal(status: 503, message: "content not available"))
        }
        if let t = session.timelines[top] { return .success(t) }
        let built = timeline(session, rendition: top)
        if case .success(let t) = built, !t.hasPending { sessions.update(session.id) { $0.timelines[top] = t } }
        return built
    }

    /// `GET /v1/sessions/ID/tracking`: MediaTailor's client-side tracking JSON.
    func tracking(_ id: String) -> HTTPResponse {
        guard let session = sessions.touch(id) else { return .error(404, "no session '\(id)'") }
        switch topTimeline(session) {
        case .failure(let r): return r.response
        case .success(let t): return .json(TrackingReport.json(session: session, timeline: t))
        }
    }

    /// `GET /v1/sessions/ID/assets/B.json`: an interstitial's asset list, the break's ads that are
    /// ready (`{"ASSETS":[{"URI":…,"DURATION":…}]}`).
    func assetList(_ id: String, breakIndex: Int?) -> HTTPResponse {
        guard let session = sessions.touch(id) else { return .error(404, "no session '\(id)'") }
        guard let bi = breakIndex, session.breaks.indices.contains(bi) else { return .error(404, "no such break") }
        let media = self.media
        guard let content = blocking({ try? await media.content(session.content) }), let top = content.renditions.first?.rendition.name else {
            return .error(503, "content not available")
        }
        var assets: [[String: Any]] = []
        for (ai, ad) in session.breaks[bi].ads.enumerated() {
            if case .ready(_, let d) = media.ad(mediaURL: ad.mediaURL, rendition: top) {
                assets.append(["URI": "/v1/sessions/\(id)/ads/\(bi)/\(ai)/\(top).m3u8", "DURATION": TrackingReport.round3(d)])
            }
        }
        return .json(["ASSETS": assets])
    }

    /// `GET /v1/sessions/ID/ads/B/A/RENDITION.m3u8`: one ad's media playlist (an interstitial's asset).
    func adAsset(_ id: String, breakIndex: Int?, adIndex: Int?, rendition: String) -> HTTPResponse {
        guard let session = sessions.touch(id) else { return .error(404, "no session '\(id)'") }
        guard let bi = breakIndex, let ai = adIndex, session.breaks.indices.contains(bi), session.breaks[bi].ads.indices.contains(ai) else {
            return .error(404, "no such ad")
        }
        guard case .ready(let segments, _) = media.ad(mediaURL: session.breaks[bi].ads[ai].mediaURL, rendition: rendition) else {
            return .error(404, "ad not ready in '\(rendition)'")
        }
        return .text(PlaylistWriter.adAsset(segments), contentType: "application/vnd.apple.mpegurl")
    }
}
