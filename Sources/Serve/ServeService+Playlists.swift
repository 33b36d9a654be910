import Ads
import Foundation
import HTTPServer
import Interlude
import Manifest
import Timing

extension ServeService {
    /// The session with its plan, decided now when it has none: every ad ready in every
    /// rendition plays; the rest are left out (or slate, `--fill-with slate`). Once settled
    /// (the first node to decide wins in a fleet) it never changes: every playlist of the
    /// session follows from it.
    func planned(_ session: ServeSession) async -> Result<ServeSession, Refusal> {
        if session.plan != nil { return .success(session) }
        let media = self.media
        guard let content = try? await media.content(session.content) else {
            return .failure(Refusal(status: 503, message: "content '\(session.content)' not available"))
        }
        let proposal = SessionPlan.decide(session.breaks, renditions: content.renditions.map(\.rendition), fill: policy(for: session.content).config.fill,
                                          readiness: { ad, rendition in media.ad(mediaURL: ad.mediaURL, rendition: rendition) },
                                          failed: { bi, ai, code, reason in self.fireError(session, breakIndex: bi, adIndex: ai, code: code, reason: reason) })
        guard let plan = sessions.settle(proposal, for: session.id) else {
            return .failure(Refusal(status: 503, message: "the session's plan cannot be stored now"))
        }
        if plan == proposal {
            var reasons: [String] = []
            for (bi, row) in plan.slots.enumerated() {
                for (ai, slot) in row.enumerated() { if case .leftOut(let why) = slot { reasons.append("\(session.breaks[bi].ads[ai].id): \(why)") } }
            }
            log.event("session_planned", ["session": session.id, "ads": plan.playing, "leftOut": plan.leftOut, "why": reasons])
        }
        var s = session
        s.plan = plan
        return .success(s)
    }

    /// Every rendition's timeline of the session, from its plan (built once, kept; the
    /// segments they list are pinned in the store until the session expires).
    func timelines(_ session: ServeSession) async -> Result<(ServeSession, [String: SessionTimeline]), Refusal> {
        let planned: ServeSession
        switch await self.planned(session) {
        case .failure(let r): return .failure(r)
        case .success(let s): planned = s
        }
        guard let plan = planned.plan else { return .failure(Refusal(status: 500, message: "no plan")) }
        let media = self.media, clock = policy(for: planned.content).config.clock
        let log = self.log
        func build() async -> Result<(PreparedContent, [String: SessionTimeline]), Refusal> {
            do {
                let content = try await media.content(planned.content)
                var out: [String: SessionTimeline] = [:]
                // A store that cannot make a cut or slate now (read-only, full) costs the session
                // its mid-rolls and slate, in every rendition alike, never its content.
                for uncut in [false, true] {
                    do {
                        for (r, _) in content.renditions {
                            if let t = planned.timelines[r.name] { out[r.name] = t; continue }
                            out[r.name] = try await Self.timeline(planned, plan: plan, rendition: r, content: content, media: media, clock: clock, uncut: uncut)
                        }
                        // each other language's rung, cut at the same frames, with its base rung's ads and slate
                        for track in content.audioTracks {
                            guard let r = track.rendition, let base = content.renditions.first(where: { $0.rendition.name == track.base })?.rendition else { continue }
                            if let t = planned.timelines[r.name] { out[r.name] = t; continue }
                            out[r.name] = try await Self.timeline(planned, plan: plan, rendition: r, content: content, media: media, clock: clock,
                                                                  uncut: uncut, adRung: base)
                        }
                        break
                    } catch let error where !uncut && !(error is Refusal) {
                        log.event("breaks_left_out", ["session": planned.id, "why": "the store cannot make a cut or slate now (\(error)): the content plays uncut, mid-rolls and slate left out"])
                        out = [:]
                    }
                }
                return .success((content, out))
            } catch let r as Refusal {
                return .failure(r)
            } catch {
                return .failure(Refusal(status: 503, message: "\(error)"))
            }
        }
        switch await build() {
        case .failure(let r):
            log.event("playlist_failed", ["session": session.id, "error": r.message])
            return .failure(r)
        case .success(let (_, all)):
            let fresh = sessions.update(session.id) { s -> [String] in
                var paths: [String] = []
                for (name, t) in all where s.timelines[name] == nil {
                    s.timelines[name] = t
                    paths += t.items.map(\.segment.path)
                }
                return paths
            } ?? []
            if !fresh.isEmpty { media.pin(fresh) }
            var s = planned
            s.timelines = all
            return .success((s, all))
        }
    }

    /// Lays out one rendition from the plan: the content cut at its mid-rolls and each break's
    /// ads as planned. An ad the plan plays that the store no longer has refuses the playlist
    /// (503) rather than change what the session's other playlists say. `uncut`: the content
    /// whole, without mid-rolls, and no slate (a store that cannot write them).
    static func timeline(_ session: ServeSession, plan: SessionPlan, rendition: Rendition, content: PreparedContent,
                         media: any ServeMedia, clock: SegmentClock, uncut: Bool = false, adRung: Rendition? = nil) async throws -> SessionTimeline {
        let adRung = adRung ?? rendition
        let midCues = uncut ? [] : session.breaks.compactMap { b -> MediaTime? in if case .midroll(let t) = b.position { t } else { nil } }
        let cut = try await media.cut(session.content, rendition: rendition.name, at: midCues)
        var breaks: [(position: BreakCue, slots: [AdSlot])] = []
        for (bi, b) in session.breaks.enumerated() {
            var slots: [AdSlot] = []
            for (ai, ad) in b.ads.enumerated() {
                switch bi < plan.slots.count && ai < plan.slots[bi].count ? plan.slots[bi][ai] : .leftOut(reason: "not planned") {
                case .play:
                    guard case .ready(let segments, let duration) = media.ad(mediaURL: ad.mediaURL, rendition: adRung) else {
                        throw Refusal(status: 503, message: "ad \(ad.id) of this session is not in the store in \(rendition.name) now")
                    }
                    slots.append(.ready(segments, duration: duration))
                case .slate(let value, let timescale):
                    slots.append(.filled(uncut ? [] : try await media.slate(rendition: adRung, duration: MediaTime(value: value, timescale: timescale))))
                case .leftOut:
                    slots.append(.filled([]))
                }
            }
            breaks.append((b.position, slots))
        }
        let t = SessionTimeline.layout(rendition: rendition.name, runs: cut.runs, cues: cut.cues, contentDuration: content.duration, breaks: breaks)
        return t.on(clock) { storedFirstPTS($0, media: media) }
    }

    /// The PTS of stored `segment`'s first picture as stored (an encrypted one's as recorded at
    /// import), read from its first 64 KiB; nil when it cannot be read.
    static func storedFirstPTS(_ segment: StoredSegment, media: any ServeMedia) -> MediaTime? {
        if let e = segment.encryption { return MediaTime(value: e.firstPTS, timescale: 90_000) }
        guard let url = media.file(forSegment: segment.path), let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        return TSTimestamps.firstVideoPTS((try? handle.read(upToCount: 64 * 1024)) ?? Data())
    }

    /// `GET /v1/sessions/ID/master.m3u8`: a variant per rendition, its `BANDWIDTH` the peak
    /// segment bit rate of what its playlist lists (ads included) and `AVERAGE-BANDWIDTH` the
    /// average, as sent (with the stream clock's marks).
    func master(_ id: String, interstitials: Bool) -> HTTPAnswer {
        let key = interstitials ? "master?interstitials" : "master"
        switch kept(id, key) {
        case nil: return .now(.error(404, "no session '\(id)'"))
        case .answer(let kept): return .now(HTTPResponse(kept))
        case .toWrite(let session): return .later { [self] in await writeMaster(session, key: key, interstitials: interstitials) }
        }
    }

    /// The master playlist of `session`, written the first time it is asked for and kept under `key`.
    func writeMaster(_ session: ServeSession, key: String, interstitials: Bool) async -> HTTPResponse {
        let started = monotonicSeconds(), id = session.id
        defer { metrics.playlistServed(monotonicSeconds() - started) }
        guard let content = try? await media.content(session.content) else { return .error(503, "content not available") }
        if let refused = Self.encryptedRefusal(content, asking: .hlsTS) { return refused.response }
        guard case .success(let (_, all)) = await timelines(session) else { return .error(503, "the session's playlists cannot be built now") }
        var variants: [HLS.Variant] = []
        for (r, codecs) in content.renditions {
            guard let t = all[r.name] else { continue }
            let target = max(1, t.items.map { $0.segment.duration.rescaled(to: 1, rounding: .nearest).value }.max().map(Int.init) ?? 1)
            let rates = SegmentBitRate.of(t.items.map { (segmentBytes($0.segment.path) + ($0.marked ? 2 * 188 : 0), $0.segment.duration) },
                                          targetDuration: target)
            variants.append(HLS.Variant(uri: "/v1/sessions/\(id)/\(r.name).m3u8" + (interstitials ? "?mode=interstitials" : ""),
                                        bandwidth: max(1, rates.peak), averageBandwidth: max(1, rates.average), codecs: codecs,
                                        resolution: HLS.Resolution(width: r.width, height: r.height)))
        }
        // subtitles follow the session's cut timeline, or with interstitials the content uncut
        let subtitles = Self.subtitleRenditions(id, content: content, cmaf: false, interstitials: interstitials)
        if !subtitles.isEmpty { for i in variants.indices { variants[i].subtitles = Self.subtitleGroup } }
        // the origin's other languages: packed-audio renditions beside the variants' own sound
        let audio = interstitials ? [] : Self.packedAudioRenditions(id, content: content, all: all)
        if !audio.isEmpty { for i in variants.indices { variants[i].audio = Self.cmafAudio } }
        guard let kept = Self.keep(HLS.write(HLS.MultivariantPlaylist(renditions: audio + subtitles, variants: variants)), contentType: HLS.mimeType) else { return Self.notKept }
        sessions.update(id) { $0.playlists[key] = kept }
        return HTTPResponse(kept)
    }

    /// The rung `name` of content `content` (with the content's frame rate and codec); nil when unknown.
    func rung(_ content: String, named name: String) async -> Rendition? {
        try? await media.content(content).renditions.first { $0.rendition.name == name }?.rendition
    }

    /// The size of a stored segment in bytes (0 when unknown), cached: content segments are
    /// shared by every session.
    func segmentBytes(_ path: String) -> Int {
        if let n = sizeCache.withLock({ $0[path] }) { return n }
        guard let url = media.file(forSegment: path), let n = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue else { return 0 }
        sizeCache.withLock { $0[path] = n }
        return n
    }

    /// `GET /v1/sessions/ID/RENDITION.m3u8`: the session's media playlist, written once from
    /// its plan and kept (a VOD playlist never changes).
    func mediaPlaylist(_ id: String, rendition: String, interstitials: Bool) -> HTTPAnswer {
        let key = interstitials ? rendition + "?interstitials" : rendition
        switch kept(id, key) {
        case nil: return .now(.error(404, "no session '\(id)'"))
        case .answer(let kept): return .now(HTTPResponse(kept))
        case .toWrite(let session):
            return .later { [self] in await writeMediaPlaylist(session, rendition: rendition, key: key, interstitials: interstitials) }
        }
    }

    /// The media playlist `rendition` of `session`, written the first time one is asked for (every
    /// variant's at once) and kept under `key`.
    func writeMediaPlaylist(_ session: ServeSession, rendition: String, key: String, interstitials: Bool) async -> HTTPResponse {
        let started = monotonicSeconds(), id = session.id
        defer { metrics.playlistServed(monotonicSeconds() - started) }
        switch await timelines(session) {
        case .failure(let r): return r.response
        case .success(let (planned, all)):
            let content = try? await media.content(planned.content)
            if let refused = content.flatMap({ Self.encryptedRefusal($0, asking: .hlsTS) }) { return refused.response }
            let languages = content.map { Self.languageTimelines($0, all) } ?? []
            // with languages, the default's packed audio is the top rung's sound (`audio`)
            let top = languages.isEmpty ? nil : content?.renditions.first.flatMap { all[$0.rendition.name] }
            guard let t = all[rendition] ?? (interstitials ? nil : rendition == Self.cmafAudio ? top
                                             : Self.packedAudioIndex(rendition).flatMap { languages.indices.contains($0) ? languages[$0].timeline : nil })
            else { return .error(404, "no rendition '\(rendition)'") }
            if interstitials {
                guard let kept = Self.keep(await interstitialsPlaylist(planned, timeline: t), contentType: HLS.mimeType) else { return Self.notKept }
                sessions.update(id) { $0.playlists[key] = kept }
                return HTTPResponse(kept)
            }
            // every variant's playlist at once, under one set of policies: a reload of the
            // configurations between two variants' first fetches cannot make them disagree
            let policy = self.policy(for: planned.content).config
            var made: [String: PreparedResponse] = [:]
            for (name, timeline) in all {
                let text = HLS.write(timeline.playlist(planned, clock: policy.clock, signature: signature, cdn: policy.cdn))
                guard let kept = Self.keep(text, contentType: HLS.mimeType) else { return Self.notKept }
                made[name] = kept
            }
            // the default's and each other language's packed audio: its rung's playlist, each segment's sound
            if let top {
                guard let kept = Self.keep(HLS.write(Self.packedAudio(top.playlist(planned, clock: policy.clock, signature: signature, cdn: policy.cdn))),
                                           contentType: HLS.mimeType) else { return Self.notKept }
                made[Self.cmafAudio] = kept
            }
            for (n, language) in languages.enumerated() {
                let playlist = Self.packedAudio(language.timeline.playlist(planned, clock: policy.clock, signature: signature, cdn: policy.cdn))
                guard let kept = Self.keep(HLS.write(playlist), contentType: HLS.mimeType) else { return Self.notKept }
                made["\(Self.cmafAudio)-\(n + 1)"] = kept
            }
            sessions.update(id) { s in for (name, kept) in made where s.playlists[name] == nil { s.playlists[name] = kept } }
            guard let kept = sessions.touch(id, { $0.playlists[rendition] }).flatMap({ $0 }) ?? made[rendition] else { return .text("", contentType: HLS.mimeType) }
            return HTTPResponse(kept)
        }
    }

    /// Apple HLS Interstitials: the content uncut (the timeline's content items, on the
    /// content's own clock) and per break that has an ad to play an `EXT-X-DATERANGE` of
    /// `CLASS="com.apple.hls.interstitial"` at its content time whose `X-ASSET-LIST` is this
    /// rendition's (`/v1/sessions/ID/assets/RENDITION/B.json`).
    func interstitialsPlaylist(_ session: ServeSession, timeline t: SessionTimeline) async -> String {
        let run = (try? await media.cut(session.content, rendition: t.rendition, at: []))?.runs.flatMap { $0 } ?? []
        let duration = (try? await media.content(session.content))?.duration ?? .zero
        func date(_ at: MediaTime) -> Date { session.programDate.addingTimeInterval(at.seconds) }
        let cdn = policy(for: session.content).config.cdn
        var segments = run.map { HLS.Segment(uri: SegmentURL(path: $0.path).text(signedBy: signature, cdn: cdn), duration: $0.duration) }
        guard !segments.isEmpty else { return HLS.write(HLS.MediaPlaylist.vod([])) }
        for (i, s) in run.enumerated() { segments[i].key = SessionPlaylist.keyTag(s.encryption?.key, after: i > 0 ? run[i - 1].encryption?.key : nil) }
        segments[0].programDateTime = session.programDate
        var at = MediaTime.zero
        var starts: [MediaTime] = []
        for s in run { starts.append(at); at += s.duration }
        for (bi, b) in session.breaks.enumerated() where session.plan?.slots[bi].contains(.play) == true {
            let when: MediaTime
            var client: [HLS.ClientAttribute] = [.init("X-ASSET-LIST", .string("/v1/sessions/\(session.id)/assets/\(t.rendition)/\(bi).json")),
                                                 .init("X-RESTRICT", .string("SKIP,JUMP")), .init("X-SNAP", .string("OUT,IN"))]
            switch b.position {
            case .preroll: when = .zero; client.append(.init("CUE", .string("PRE")))
            case .midroll(let c): when = c
            case .postroll: when = duration; client.append(.init("CUE", .string("POST")))
            }
            let range = HLS.DateRange(id: b.id, rangeClass: "com.apple.hls.interstitial", startDate: date(when), clientAttributes: client)
            // before the segment it falls in (the last one for a post-roll)
            let i = max(0, (starts.lastIndex { $0 <= when } ?? 0))
            segments[i].markers.append(.dateRange(range))
        }
        return HLS.write(HLS.MediaPlaylist.vod(segments))
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

    /// The session's top-rendition timeline: what the tracking JSON describes.
    func topTimeline(_ session: ServeSession) async -> Result<(ServeSession, SessionTimeline), Refusal> {
        guard let top = (try? await media.content(session.content))?.renditions.first?.rendition.name else {
            return .failure(Refusal(status: 503, message: "content not available"))
        }
        switch await timelines(session) {
        case .failure(let r): return .failure(r)
        case .success(let (s, all)):
            guard let t = all[top] else { return .failure(Refusal(status: 503, message: "content not available")) }
            return .success((s, t))
        }
    }

    /// `GET /v1/sessions/ID/tracking[?nextToken=T]`: MediaTailor's client-side tracking JSON
    /// (`TrackingJSON`): every break, or with a token only what starts after it; 400 for a token
    /// that is not ours.
    func tracking(_ id: String, nextToken: String?) async -> HTTPResponse {
        guard let session = sessions.touch(id) else { return .error(404, "no session '\(id)'") }
        let page: TrackingToken.Page?
        do { page = try TrackingToken.page(nextToken) } catch { return .error(400, error.reason) }
        switch await topTimeline(session) {
        case .failure(let r): return r.response
        case .success(let (s, t)): return .json(TrackingReport.json(session: s, timeline: t, page: page))
        }
    }

    /// `GET /v1/sessions/ID/assets/RENDITION/B.json` (or `…/assets/B.json`: the top rendition):
    /// an interstitial's asset list, the break's ads the session's plan plays, in that rendition
    /// (`{"ASSETS":[{"URI":…,"DURATION":…}]}`).
    func assetList(_ id: String, rendition: String?, breakIndex: Int?) async -> HTTPResponse {
        guard let session = sessions.touch(id) else { return .error(404, "no session '\(id)'") }
        guard let bi = breakIndex, session.breaks.indices.contains(bi) else { return .error(404, "no such break") }
        guard let content = try? await media.content(session.content), let top = content.renditions.first?.rendition.name else {
            return .error(503, "content not available")
        }
        let name = rendition ?? top
        guard let rung = content.renditions.first(where: { $0.rendition.name == name })?.rendition else { return .error(404, "no rendition '\(name)'") }
        guard case .success(let s) = await planned(session), let plan = s.plan else { return .error(503, "the session's plan cannot be made now") }
        var assets: [[String: Any]] = []
        for (ai, ad) in session.breaks[bi].ads.enumerated() where plan.slots[bi][ai] == .play {
            if case .ready(_, let d) = media.ad(mediaURL: ad.mediaURL, rendition: rung) {
                assets.append(["URI": "/v1/sessions/\(id)/ads/\(bi)/\(ai)/\(name).m3u8", "DURATION": TrackingReport.round3(d)])
            }
        }
        return .json(["ASSETS": assets])
    }

    /// `GET /v1/sessions/ID/ads/B/A/RENDITION.m3u8`: one ad's media playlist (an interstitial's
    /// asset), its segment URLs signed with their beacon place so that their fetch fires the
    /// ad's server-side beacons.
    func adAsset(_ id: String, breakIndex: Int?, adIndex: Int?, rendition: String) async -> HTTPResponse {
        guard let session = sessions.touch(id) else { return .error(404, "no session '\(id)'") }
        guard let bi = breakIndex, let ai = adIndex, session.breaks.indices.contains(bi), session.breaks[bi].ads.indices.contains(ai) else {
            return .error(404, "no such ad")
        }
        guard let rung = await self.rung(session.content, named: rendition),
              case .ready(let segments, _) = media.ad(mediaURL: session.breaks[bi].ads[ai].mediaURL, rendition: rung) else {
            return .error(404, "ad not ready in '\(rendition)'")
        }
        let list = segments.enumerated().map { k, s in
            HLS.Segment(uri: SegmentURL(path: s.path, beacon: .init(session: id, rendition: rendition, breakIndex: bi, ad: ai, segment: k))
                            .text(signedBy: signature, cdn: policy(for: session.content).config.cdn), duration: s.duration)
        }
        return .text(HLS.write(HLS.MediaPlaylist.vod(list)), contentType: HLS.mimeType)
    }
}

extension ServeService {
    /// The audio renditions of an MPEG-TS session's master when its content has other languages
    /// (an HLS origin's alternate audio), in group `audio`: the default's packed-audio playlist
    /// (`/v1/sessions/ID/audio.m3u8`, the top rung's sound; the variants keep it muxed too) and
    /// each other language's (`/v1/sessions/ID/audio-N.m3u8`). The default is a rendition of its
    /// own, not the variants' sound (RFC 8216 §4.3.4.2.1 allows that too), because VLC 3 loses
    /// its clock when a rendition plays beside a variant's muxed sound. None without other languages.
    static func packedAudioRenditions(_ id: String, content: PreparedContent, all: [String: SessionTimeline]) -> [HLS.Rendition] {
        let languages = languageTimelines(content, all)
        guard !languages.isEmpty else { return [] }
        return audioGroup(id, main: content.audioTracks.first { $0.isDefault }.map(audioRendition), others: languages.map { audioRendition($0.track) },
                          query: "")
    }

    /// The `AUDIO` group (`audio`) of a session's master with languages, VOD or live, MPEG-TS or
    /// CMAF: the main language (`/v1/sessions/ID/audio.m3u8`, the default; named "main" when
    /// `main` is nil) and each other one (`…/audio-N.m3u8`), with the origin's `NAME`,
    /// `LANGUAGE`, `AUTOSELECT` and `CHANNELS` (a `NAME` already in the group gets its place:
    /// RFC 8216 §4.3.4.1.1), `query` after each URI (`?segments=cmaf`).
    static func audioGroup(_ id: String, main: HLS.Rendition?, others: [HLS.Rendition], query: String) -> [HLS.Rendition] {
        var out = [HLS.Rendition(type: .audio, groupID: cmafAudio, name: main?.name ?? "main", language: main?.language, isDefault: true,
                                 autoselect: true, channels: main?.channels, uri: "/v1/sessions/\(id)/\(cmafAudio).m3u8" + query)]
        for (n, l) in others.enumerated() {
            let name = out.contains { $0.name == l.name } ? "\(l.name) (\(n + 2))" : l.name
            out.append(HLS.Rendition(type: .audio, groupID: cmafAudio, name: name, language: l.language, autoselect: l.autoselect,
                                     channels: l.channels, uri: "/v1/sessions/\(id)/\(cmafAudio)-\(n + 1).m3u8" + query))
        }
        return out
    }

    /// An origin's audio track as the `EXT-X-MEDIA` that `audioGroup` names it by.
    static func audioRendition(_ t: AudioTrack) -> HLS.Rendition {
        HLS.Rendition(type: .audio, groupID: cmafAudio, name: t.name, language: t.language, autoselect: t.autoselect, channels: t.channels)
    }

    /// N of an `audio-N` playlist name, as an index (0 for `audio-1`); nil for another name.
    static func packedAudioIndex(_ name: String) -> Int? {
        guard name.hasPrefix(cmafAudio + "-"), let n = Int(name.dropFirst(cmafAudio.count + 1)), n >= 1, n <= 64 else { return nil }
        return n - 1
    }

    /// `playlist` (a language rung's MPEG-TS media playlist) with each segment's sound instead:
    /// `PATH.a.aac`, only its clock shift kept (no new-stream mark; beacons fire on the video).
    static func packedAudio(_ playlist: HLS.MediaPlaylist) -> HLS.MediaPlaylist {
        var p = playlist
        for i in p.segments.indices {
            let uri = p.segments[i].uri
            let path = uri.split(separator: "?", maxSplits: 1).first.map(String.init) ?? uri
            let shift = uri.split(separator: "?", maxSplits: 1).dropFirst().first?.split(separator: "&").first { $0.hasPrefix("o=") }
            p.segments[i].uri = path + packedAudioSuffix + (shift.map { "?" + $0 } ?? "")
        }
        return p
    }
}
