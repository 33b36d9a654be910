import Foundation
import Interlude
import HTTPServer
import Manifest
import Timing

extension ServeService {
    /// A live viewer on channel `name`: starts at the first segment of the channel's window; when
    /// that is inside a break, its ad request is answered before the session is (the rest of the
    /// break plays ads that fit, or slate).
    func newLiveViewer(channel name: String, params given: [String: String], reporting: ReportingMode, userAgent: String) async -> Result<LiveViewer, Refusal> {
        guard let live, let channel = live.channels[name], let store = media as? any LiveMedia else {
            return .failure(Refusal(status: 404, message: "no content named '\(name)'"))
        }
        let id = ServeSession.newID()
        let (config, configuration) = policy(for: name)
        let params: [String: String]
        do { params = try configuration?.aliased(given) ?? given } catch { return .failure(Refusal(status: 400, message: "\(error)")) }
        func make() async -> LiveViewer? {
            guard let rungs = await live.rungs(of: name), let w = await channel.window(rendition: rungs[0].key),
                  let first = config.livePreroll != nil ? Self.prerollStart(w) : Self.liveStart(w, leastTarget: config.liveSegmentTarget)
            else { return nil }
            let context = liveContext(channel, media: store, config: config, playerParams: params, userAgent: userAgent)
            let v = LiveViewer(id: id, channelName: name, reporting: reporting, rungs: rungs, startPTS: first.firstPTS, context: context,
                               subtitles: await channel.subtitleRenditions(), languages: await live.languages(of: name))
            await v.prepare()
            return v
        }
        guard let viewer = await make() else {
            log.event("session_failed", ["content": name, "error": "live channel has no segments yet"])
            return .failure(Refusal(status: 503, message: "live channel '\(name)' has no segments yet"))
        }
        guard await viewer.share() else {
            log.event("session_failed", ["content": name, "error": "the live session could not be stored in redis"])
            return .failure(Refusal(status: 503, message: "sessions cannot be created now: redis does not take the live session"))
        }
        liveViewers.insert(viewer)
        metrics.sessionCreated()
        log.event("session_created", ["session": id, "content": name, "live": true, "reporting": reporting.rawValue])
        return .success(viewer)
    }

    /// Where a new live viewer starts: far enough back in what the channel holds that its first
    /// playlist already lasts three of its target durations (and the one it stays behind the
    /// edge), else at the first segment held.
    /// Where a viewer with a live pre-roll starts: at the newest segment it may publish (ending
    /// one target duration before the edge), so that its first playlist is the pre-roll and
    /// about one segment of the channel, and a player starting three target durations from the
    /// end starts at the pre-roll (a playlist that has removed nothing may be that short).
    static func prerollStart(_ w: LiveWindow) -> LiveSegment? {
        guard let last = w.segments.last else { return nil }
        let limit = last.firstPTS + last.duration.mpegTicks - LiveViewer.hold(w)
        return w.segments.last { $0.firstPTS + $0.duration.mpegTicks <= limit } ?? w.segments.first
    }

    static func liveStart(_ w: LiveWindow, leastTarget: Int) -> LiveSegment? {
        guard let last = w.segments.last else { return nil }
        let edge = last.firstPTS + last.duration.mpegTicks
        let target = MediaTime.max(w.targetDuration.rescaled(to: 1, rounding: .up), MediaTime(seconds: Int64(leastTarget)))
        let want = (target * 3 + w.targetDuration * 2).mpegTicks
        return w.segments.last { edge - $0.firstPTS >= want } ?? w.segments.first
    }

    /// What a live viewer on `channel` needs of this service under `config` (the channel's
    /// policies): one place for a viewer this node starts and one it takes over.
    func liveContext(_ channel: LiveChannel, media store: any LiveMedia, config: ServeConfig, playerParams: [String: String],
                     userAgent: String) -> LiveViewer.Context {
        var context = LiveViewer.Context(channel: channel, media: store, adsTemplate: config.adsTemplate, playerParams: playerParams,
                                         userAgent: userAgent, adsTimeout: config.adsTimeout, defaultAvail: config.availDuration,
                                         beacons: beacons, metrics: metrics, longestSegment: config.liveSegmentTarget,
                                         signature: signature, log: log, personalizationThreshold: config.personalizationThreshold,
                                         availSuppression: config.availSuppression)
        context.adsRequest = config.adsRequest
        context.cdn = config.cdn
        context.bumpers = config.bumpers
        context.preroll = config.livePreroll
        context.prefetchWindow = config.livePrefetchWindow
        context.availRetirement = config.liveAvailRetirement
        context.store = liveStore
        return context
    }

    /// A live session's request: its master or media playlist, or its tracking.
    /// With `?segments=cmaf`, its playlists with CMAF segments (`LiveViewer.cmafPlaylist`):
    /// `master.m3u8`, each rung's video, `audio.m3u8` (the top rung's sound).
    /// An encrypted channel's sessions (`LiveChannel.isEncrypted`) answer 409 for what would
    /// remux its segments: CMAF playlists and segments, the MPD; a channel of sample-encrypted
    /// CMAF (`LiveChannel.isEncryptedCMAF`) for its MPEG-TS playlists and the MPD (its subtitle
    /// playlists, WebVTT, serve both).
    func liveRoute(_ v: LiveViewer, _ p: RoutePath, _ r: HTTPRequest) -> HTTPAnswer {
        if p.count == 4 && p[3] == "tracking" { return .later { [self] in await liveTracking(v, nextToken: r.queryValue("nextToken")) } }
        let cmaf = Self.wantsCMAF(r)
        let answer = liveAnswer(v, p, r, cmaf: cmaf)
        let dash = (p.count == 4 && p[3] == Self.mpdKey) || (p.count == 6 && p[3] == "dash")
        if let said = v.context.channel.encryptedCMAFSaid {
            // (its subtitle playlists, WebVTT, serve every form)
            if p.count == 5 && p[3] == "subtitles" { return answer }
            return Self.encryptedCMAFRefusal(v.channelName, said, dash: dash, singlePeriod: dash && Self.wantsSinglePeriod(r), ts: !dash && !cmaf)
                .map { .now($0.response) } ?? answer
        }
        guard cmaf || dash else { return answer }
        return .later {
            if await v.context.channel.isEncrypted { return Self.encryptedLiveRefusal(v.channelName).response }
            return await answer.response()
        }
    }

    /// What a session of encrypted live channel `name` (MPEG-TS segments kept as they came)
    /// cannot have, CMAF and DASH: 409, one line.
    static func encryptedLiveRefusal(_ name: String) -> Refusal {
        Refusal(status: 409, message: "live channel '\(name)' is encrypted (sent as it came): its sessions are HLS with MPEG-TS segments only (master.m3u8)")
    }

    /// What a session of live channel `name` of sample-encrypted CMAF (`said`) cannot have, 409
    /// in one line; nil for what it can. Its segments have no MPEG-TS form (`ts`: asked for it);
    /// a DASH origin's no HLS (its MPD names no HLS key, `dash` false); its MPD is multi-period
    /// only (each content Period under the origin's initialization segments: `singlePeriod`).
    static func encryptedCMAFRefusal(_ name: String, _ said: LiveChannel.EncryptedCMAF, dash: Bool, singlePeriod: Bool, ts: Bool = false) -> Refusal? {
        let forms = said.hls ? "DASH (index.mpd) and HLS with CMAF segments (master.m3u8?segments=cmaf)" : "DASH only (index.mpd; its origin names no HLS key)"
        let start = "live channel '\(name)' is sample-encrypted CMAF (sent as it came): its sessions are "
        if dash { return singlePeriod ? Refusal(status: 409, message: start + "multi-period DASH (no ?periods=single: each content Period has the origin's initialization segments)") : nil }
        if ts || !said.hls { return Refusal(status: 409, message: start + forms) }
        return nil
    }

    private func liveAnswer(_ v: LiveViewer, _ p: RoutePath, _ r: HTTPRequest, cmaf: Bool) -> HTTPAnswer {
        if p.count == 4 && p[3] == "master.m3u8" { return .now(liveMaster(v, cmaf: cmaf)) }
        if p.count == 4 && p[3] == Self.mpdKey { return .later { [self] in await liveMPD(v, singlePeriod: Self.wantsSinglePeriod(r), origin: RequestOrigin.of(r)) } }
        if p.count == 6 && p[3] == "dash" { return .later { [self] in await liveDASHSegment(v, representation: p[4].string, name: p[5].string) } }
        if p.count == 5 && p[3] == "subtitles" && p[4].hasSuffix(".m3u8") && !cmaf {
            guard let track = Int(p[4].dropping(5)), v.subtitles.indices.contains(track) else { return .now(.error(404, "no such subtitle track")) }
            return .later { [self] in
                guard let text = await v.subtitlePlaylist(track: track) else { return await unavailable(v) }
                return HTTPResponse(status: 200, headers: ["Content-Type": HLS.mimeType, "Cache-Control": "no-cache"], body: Data(text.utf8))
            }
        }
        guard p.count == 4 && p[3].hasSuffix(".m3u8") else { return .now(.error(404, "not found")) }
        let name = p[3].dropping(5)
        // with other languages: `audio.m3u8` the top rung's sound, `audio-N.m3u8` language N's
        // rung's (packed audio, or with `?segments=cmaf` CMAF audio)
        if let rung = Self.liveAudioRung(v, name) {
            return .later { [self] in
                await livePlaylist(v, rendition: rung.key) { cmaf ? await v.cmafPlaylist(rung: $0, audio: true) : await v.packedAudioPlaylist(rung: $0) }
            }
        }
        guard cmaf else { return .later { [self] in await livePlaylist(v, rendition: name) { await v.playlist(rung: $0) } } }
        if name == LiveViewer.cmafAudio, let top = v.rungs.first {
            return .later { [self] in await livePlaylist(v, rendition: top.rendition.name) { await v.cmafPlaylist(rung: $0, audio: true) } }
        }
        return .later { [self] in await livePlaylist(v, rendition: name) { await v.cmafPlaylist(rung: $0, audio: false) } }
    }

    /// The rung whose sound audio playlist `name` of a viewer with other languages is: `audio`
    /// the top rung, `audio-N` language N's rung; nil for another name or without languages.
    static func liveAudioRung(_ v: LiveViewer, _ name: String) -> LiveRung? {
        guard !v.languages.isEmpty else { return nil }
        if name == LiveViewer.cmafAudio { return v.rungs.first }
        return packedAudioIndex(name).flatMap { v.languages.indices.contains($0) ? v.languages[$0].rung : nil }
    }

    /// `?periods=single`: a live MPD as one Period (`SessionMPD.liveSinglePeriod`).
    static let singlePeriodQuery = "?periods=single"

    /// Whether `r` asks for a live MPD of one Period.
    static func wantsSinglePeriod(_ r: HTTPRequest) -> Bool { r.queryValue("periods") == "single" }

    /// The record the fleet's store holds for live viewer `id` (one `GET` of Redis); nil when
    /// there is none, or without a fleet or live channels.
    func storedLiveRecord(_ id: String) -> Data? {
        guard let liveStore, live != nil, ServeSession.isWellFormedID(id) else { return nil }
        return try? liveStore.load(id)
    }

    /// Live viewer `id` made on this node from its stored `record` (`storedLiveRecord`: the same
    /// channel, rungs, policies and everything it decided and published) and kept among this
    /// node's viewers; nil when the record is not a viewer's or its channel is not followed here.
    func adoptLiveViewer(_ id: String, record data: Data) async -> LiveViewer? {
        guard let live, let record = LiveViewerRecord.decode(data, id: id), let channel = live.channels[record.channel],
              let store = media as? any LiveMedia, let rungs = await live.rungs(of: record.channel),
              let reporting = ReportingMode(rawValue: record.reporting) else { return nil }
        let context = liveContext(channel, media: store, config: policy(for: record.channel).config, playerParams: record.playerParams,
                                  userAgent: record.userAgent)
        let v = LiveViewer(id: id, channelName: record.channel, reporting: reporting, rungs: rungs, startPTS: record.startPTS, context: context,
                           programDate: Date(timeIntervalSinceReferenceDate: record.programDate), subtitles: await channel.subtitleRenditions(),
                           languages: await live.languages(of: record.channel))
        await v.restore(record)
        let kept = liveViewers.insertIfAbsent(v)
        if kept === v { log.event("session_adopted", ["session": id, "content": record.channel, "live": true, "version": record.version]) }
        return kept
    }

    /// `GET /v1/sessions/ID/master.m3u8` of a live viewer.
    /// (`cmaf`: the one of its CMAF playlists.)
    func liveMaster(_ v: LiveViewer, cmaf: Bool = false) -> HTTPResponse {
        .text(cmaf ? v.cmafMaster() : v.master(), contentType: "application/vnd.apple.mpegurl")
    }

    /// `GET /v1/sessions/ID/RENDITION.m3u8` of a live viewer: its playlist (`text` of the rung:
    /// MPEG-TS or CMAF), advanced.
    func livePlaylist(_ v: LiveViewer, rendition: String, text playlist: (LiveRung) async -> String?) async -> HTTPResponse {
        let started = monotonicSeconds()
        guard let rung = v.rung(named: rendition) else { return .error(404, "no rendition '\(rendition)'") }
        defer { metrics.playlistServed(monotonicSeconds() - started) }
        guard let text = await playlist(rung) else { return await unavailable(v) }
        return HTTPResponse(status: 200, headers: ["Content-Type": "application/vnd.apple.mpegurl", "Cache-Control": "no-cache"],
                            body: Data(text.utf8))
    }

    /// What a live viewer with no playlist to give answers: 404 when its session is over (it is
    /// forgotten here), else 503 (the channel has nothing for it now).
    func unavailable(_ v: LiveViewer) async -> HTTPResponse {
        guard await v.isGone else { return .error(503, "live channel not available") }
        liveViewers.remove(v.id)
        return .error(404, "no session '\(v.id)'")
    }

    /// `GET /v1/sessions/ID/index.mpd` of a live viewer: its dynamic MPD (`LiveViewer.mpd`),
    /// advanced; `?periods=single` as one Period (its `Location` keeps the query). `Location` is
    /// absolute from the request's `origin` (`RequestOrigin`); only the path when it has none.
    func liveMPD(_ v: LiveViewer, singlePeriod: Bool, origin: String?) async -> HTTPResponse {
        let started = monotonicSeconds()
        defer { metrics.playlistServed(monotonicSeconds() - started) }
        let location = (origin ?? "") + "/v1/sessions/\(v.id)/\(Self.mpdKey)" + (singlePeriod ? Self.singlePeriodQuery : "")
        guard let text = await v.mpd(location: location, singlePeriod: singlePeriod, bytes: { [self] in segmentBytes($0) }) else {
            return await unavailable(v)
        }
        return HTTPResponse(status: 200, headers: ["Content-Type": DASH.mimeType, "Cache-Control": "no-cache"], body: Data(text.utf8))
    }

    /// `GET /v1/sessions/ID/dash/REP/N.m4s` of a live viewer: segment `N` (the media sequence
    /// number its MPD's template names) of Representation `REP` (a rung's name: its video; `audio`:
    /// the top rung's sound) as a CMAF media segment on the session's clock. An ad's video segment
    /// fires the beacons it holds, as its HLS URL does. 404 for a number the window does not list.
    func liveDASHSegment(_ v: LiveViewer, representation: String, name: String) async -> HTTPResponse {
        guard name.hasSuffix(".m4s"), (1...13).contains(name.utf8.count - 4), name.utf8.dropLast(4).allSatisfy({ (48...57).contains($0) }),
              let number = Int(name.dropLast(4)) else { return .error(404, "no segment '\(name.prefix(40))'") }
        if representation.hasPrefix(Self.textRepresentation) { return await liveTextSegment(v, representation: representation, number: number) }
        // `audio` the top rung's sound, `audio-N` language N's rung's (`liveAudioRung`)
        let language = representation.hasPrefix(LiveViewer.cmafAudio + "-") ? Self.liveAudioRung(v, representation) : nil
        let audio = representation == LiveViewer.cmafAudio || language != nil
        guard let rung = language ?? (audio ? v.rungs.first : v.rung(named: representation)) else {
            return .error(404, "no representation '\(representation.prefix(40))'")
        }
        guard let item = await v.item(rung: rung, number: number), let file = media.file(forSegment: item.segment.path) else {
            return .error(404, "segment \(number) of '\(representation.prefix(40))' is not in the session's window")
        }
        if !audio, case .ad(let b, let a, let k, _, _) = item.kind {
            await fireLiveBeacons(v, rendition: rung.rendition.name, avail: b, ad: a, segment: k)
        }
        // sample-encrypted CMAF: the origin's video or audio segment as it came
        if let e = item.segment.encryption, e.isCMAF {
            guard let kept = audio ? e.sound.flatMap({ media.file(forSegment: $0.path) }) : file else {
                return .error(404, "segment \(number) of '\(representation.prefix(40))' has no sound")
            }
            return HTTPResponse(status: 200, headers: ["Content-Type": audio ? "audio/mp4" : "video/mp4"], file: kept)
        }
        return cmafResponse(audio ? .audio : .video, of: item.segment.path, file: file, shift: item.shift.mpegTicks)
    }

    /// The prefix of a live MPD's text Representations (`text-K`: subtitle track `K`).
    static let textRepresentation = "text-"

    /// `GET /v1/sessions/ID/dash/text-K/N.m4s` of a live viewer: the WebVTT-in-MP4 segment
    /// (`WebVTTMP4`) beside its video segment `N`: a content item's the channel's cues of track
    /// `K` in its span, an ad's or slate's empty; `tfdt` its first frame's wire PTS, as the MPD's
    /// timeline says. 404 for a track the channel lacks or a number the window does not list.
    func liveTextSegment(_ v: LiveViewer, representation: String, number: Int) async -> HTTPResponse {
        let digits = representation.utf8.dropFirst(Self.textRepresentation.utf8.count)
        guard (1...2).contains(digits.count), digits.allSatisfy({ (48...57).contains($0) }), let track = Int(String(digits)!),
              v.subtitles.indices.contains(track), let channel = live?.channels[v.channelName] else {
            return .error(404, "no representation '\(representation.prefix(40))'")
        }
        // the top rung's item of that number, at its first frame's wire PTS (where the MPD's timeline puts it)
        guard let top = v.rungs.first, let item = await v.item(rung: top, number: number), item.endPTS > item.startPTS else {
            return .error(404, "segment \(number) of '\(representation)' is not in the session's window")
        }
        let wire = LiveViewer.wirePTS(of: item).mpegTicks
        var cues: [WebVTT.Cue] = []
        if case .content = item.kind {
            cues = await channel.subtitleCues(track: track, from: item.startPTS, to: item.endPTS) ?? []
        }
        let body = WebVTTMP4.segment(sequence: UInt32(truncatingIfNeeded: number), start: UInt64(clamping: wire), duration: item.endPTS - item.startPTS, cues: cues)
        // not marked cacheable: an origin's subtitles may reach the channel a poll after its
        // video, and the same number then gets its late cues (as the HLS subtitle segments)
        return HTTPResponse(status: 200, headers: ["Content-Type": WebVTTMP4.mimeType], body: body)
    }

    /// `GET /v1/sessions/ID/tracking[?nextToken=T]` of a live viewer (see `tracking(_:nextToken:)`).
    func liveTracking(_ v: LiveViewer, nextToken: String?) async -> HTTPResponse {
        let page: TrackingToken.Page?
        do { page = try TrackingToken.page(nextToken) } catch { return .error(400, error.reason) }
        let body = await v.trackingJSON(page: page)
        return HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: body)
    }

    /// Fires the beacons an ad segment of a live viewer holds, each once: once for the viewer
    /// (its own record) and, with a shared ledger (Redis), once across every node
    /// (`live/AVAIL/AD/EVENT` keys of the session).
    func fireLiveBeacons(_ v: LiveViewer, rendition: String, avail b: Int, ad a: Int, segment k: Int) async {
        var due = await v.claimBeacons(rendition: rendition, avail: b, ad: a, segment: k)
        if ledger.isShared, !due.isEmpty {
            func key(_ event: String) -> String { "live/\(b)/\(a)/\(event)" }
            let granted = Set(ledger.claim(due.map { key($0.event) }, session: v.id))
            due = due.filter { granted.contains(key($0.event)) }
        }
        for d in due {
            for url in d.urls {
                beacons.fire(TrackedBeacon(event: d.event, streamTime: .zero, contentTime: .zero, url: url, adId: d.adID, breakId: d.breakID))
            }
            log.event("beacon", ["session": v.id, "ad": d.adID, "beacon": d.event, "urls": d.urls.count])
        }
        metrics.beacons(due.reduce(0) { $0 + $1.urls.count })
    }
}
