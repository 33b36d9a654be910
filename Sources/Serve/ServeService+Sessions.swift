import Ads
import Foundation
import HTTPServer
import Timing

extension ServeService {
    /// `POST /v1/session/NAME` with `{"adsParams": {…}, "reportingMode": "server"|"client"}`
    /// (both optional; an empty body is `{}`).
    func createSession(content name: String, body: Data, userAgent: String) async -> HTTPResponse {
        var params: [String: String] = [:]
        var mode = policy(for: name).config.reporting
        if !body.isEmpty {
            guard let object = try? JSONSerialization.jsonObject(with: body), let dict = object as? [String: Any] else {
                return .error(400, "the body is not a JSON object")
            }
            if let raw = dict["adsParams"] {
                guard let ads = raw as? [String: Any] else { return .error(400, "adsParams must be an object") }
                for (k, v) in ads {
                    switch v {
                    case let s as String: params[k] = s
                    case let n as NSNumber: params[k] = n.stringValue
                    default: return .error(400, "adsParams.\(k) must be a string, number or boolean")
                    }
                }
            }
            if let raw = dict["reportingMode"] {
                guard let s = raw as? String, let m = ReportingMode(rawValue: s.lowercased()) else {
                    return .error(400, "reportingMode must be \"server\" or \"client\"")
                }
                mode = m
            }
        }
        if live?.contains(name) == true {
            switch await newLiveViewer(channel: name, params: params, reporting: mode, userAgent: userAgent) {
            case .failure(let e): return e.response
            case .success(let v):
                var answer = ["manifestUrl": "/v1/sessions/\(v.id)/master.m3u8", "trackingUrl": "/v1/sessions/\(v.id)/tracking"]
                // an encrypted channel's sessions are HLS with MPEG-TS segments only, or with
                // CMAF segments only when its segments are sample-encrypted CMAF
                if let said = v.context.channel.encryptedCMAFSaid {
                    // sample-encrypted CMAF: DASH, and HLS with CMAF segments when it has an HLS key
                    answer["manifestUrl"] = said.hls ? "/v1/sessions/\(v.id)/master.m3u8?segments=cmaf" : nil
                    answer["dashManifestUrl"] = "/v1/sessions/\(v.id)/\(Self.mpdKey)"
                } else if await !v.context.channel.isEncrypted { answer["dashManifestUrl"] = "/v1/sessions/\(v.id)/\(Self.mpdKey)" }
                return .json(answer)
            }
        }
        switch await newSession(content: name, params: params, reporting: mode, userAgent: userAgent) {
        case .failure(let e): return e.response
        case .success(let session):
            var answer = ["trackingUrl": "/v1/sessions/\(session.id)/tracking"]
            // encrypted content names only the dialect it is served in (its segments go out as they came)
            let content = try? await media.content(name)
            // (content that cannot be read now: named as before, MPEG-TS)
            let hls: Dialect? = content.map { Self.hlsDialect($0) } ?? .hlsTS
            switch hls {
            case .hlsTS: answer["manifestUrl"] = "/v1/sessions/\(session.id)/master.m3u8"
            case .hlsCMAF: answer["manifestUrl"] = "/v1/sessions/\(session.id)/master.m3u8?segments=cmaf"   // HLS with CMAF segments only
            default: break
            }
            if content.flatMap({ Self.encryptedRefusal($0, asking: .dash) }) == nil { answer["dashManifestUrl"] = "/v1/sessions/\(session.id)/\(Self.mpdKey)" }
            return .json(answer)
        }
    }

    /// `GET /v1/master/NAME/index.m3u8?k=v…` (`GET /v1/dash/NAME/index.mpd?k=v…`, `dash`): a
    /// session from the query (`ads.k`, `playerParams.k` or plain `k`; `mode` and `segments`
    /// are the playlist's), answered with its master playlist (`segments=cmaf`: the one of CMAF
    /// segments; `dash`: its MPD). A live channel's session with `dash` is answered with a redirect
    /// (302) to its own MPD's URL, which a player fetches again as the channel goes on.
    func implicitSession(content name: String, request: HTTPRequest, dash: Bool = false) async -> HTTPResponse {
        var params: [String: String] = [:]
        for (k, v) in request.query where k != "mode" && k != "segments" && k != "periods" {
            if k.hasPrefix("ads.") { params[String(k.dropFirst(4))] = v }
            else if k.hasPrefix("playerParams.") { params[String(k.dropFirst(13))] = v }
            else if params[k] == nil { params[k] = v }
        }
        if let channel = live?.channels[name] {
            let said = channel.encryptedCMAFSaid
            if let said, let refusal = Self.encryptedCMAFRefusal(name, said, dash: dash, singlePeriod: Self.wantsSinglePeriod(request)) {
                return refusal.response
            }
            if said == nil, dash || Self.wantsCMAF(request), await channel.isEncrypted { return Self.encryptedLiveRefusal(name).response }
            switch await newLiveViewer(channel: name, params: params, reporting: policy(for: name).config.reporting, userAgent: request.headers["user-agent"] ?? "") {
            case .failure(let e): return e.response
            case .success(let v):
                // a dynamic MPD is fetched again: from the session's own URL, not this one (which makes a session)
                if dash {
                    let query = Self.wantsSinglePeriod(request) ? Self.singlePeriodQuery : ""
                    return HTTPResponse(status: 302, headers: ["Location": "/v1/sessions/\(v.id)/\(Self.mpdKey)\(query)"], body: Data())
                }
                return liveMaster(v, cmaf: said != nil || Self.wantsCMAF(request))
            }
        }
        switch await newSession(content: name, params: params, reporting: policy(for: name).config.reporting, userAgent: request.headers["user-agent"] ?? "") {
        case .failure(let e): return e.response
        case .success(let session):
            if dash { return await dashManifest(session.id).response() }
            // (encrypted CMAF has no MPEG-TS form: its HLS is the CMAF one)
            let cmafOnly = (try? await media.content(name)).flatMap(Self.hlsDialect) == .hlsCMAF
            if Self.wantsCMAF(request) || cmafOnly {
                return await cmafPlaylist(session.id, name: "master").response()
            }
            return await master(session.id, interstitials: request.queryValue("mode") == "interstitials").response()
        }
    }

    /// A failure that answers a request.
    struct Refusal: Error {
        var status: Int
        var message: String
        var response: HTTPResponse { .error(status, message) }
    }

    /// A 503 for a session the store cannot take (Redis down), logged.
    func sessionStoreDown(_ why: String) -> Refusal {
        log.event("session_failed", ["error": why])
        return Refusal(status: 503, message: "sessions cannot be created now: \(why)")
    }

    /// Creates a session: the content packaged (a lookup once the store has it), the ad decision
    /// made (every failure of the ADS becomes a session without breaks), stored.
    func newSession(content name: String, params given: [String: String], reporting: ReportingMode, userAgent: String) async -> Result<ServeSession, Refusal> {
        guard config.contents.contains(where: { $0.name == name }) else { return .failure(Refusal(status: 404, message: "no content named '\(name)'")) }
        guard sessions.acceptsNewSessions else { return .failure(sessionStoreDown("the session store is unavailable")) }
        let id = ServeSession.newID()
        // the content's playback configuration (`--config`), its aliases applied to the parameters
        let (config, configuration) = policy(for: name)
        let params: [String: String]
        do { params = try configuration?.aliased(given) ?? given } catch { return .failure(Refusal(status: 400, message: "\(error)")) }
        // one request per avail (`[avail.index]`) when the content has ad markers, as MediaTailor's VOD
        let tag: @Sendable (Int) -> (tag: String, request: AdHTTPRequest) = { avail in
            let values = TagTemplate.Values(sessionID: id, playerParams: params, availDurationSeconds: config.availDuration,
                                            availIndex: avail, userAgent: userAgent)
            return (TagTemplate.expand(config.adsTemplate, values), config.adsRequest.request(values))
        }
        let media = self.media, timeout = config.adsTimeout, sender = beacons
        let outcome: Result<(PreparedContent, AdDecision), Refusal>
        do {
            let content = try await media.content(name)
            let decision = await AdDecision.decide(perAvail: tag, content: content, timeout: timeout, sender: sender)
            outcome = .success((content, decision))
        } catch {
            outcome = .failure(Refusal(status: 503, message: "content '\(name)' cannot be served: \(error)"))
        }
        guard case .success(let (_, decision)) = outcome else {
            if case .failure(let r) = outcome { log.event("session_failed", ["content": name, "error": r.message]) ; return .failure(r) }
            return .failure(Refusal(status: 500, message: "internal"))
        }
        for r in decision.requests { metrics.adsRequest(r.seconds, failed: r.failed) }
        // the configuration's bumpers around each break's ads
        let breaks = decision.breaks.map { b in var b = b; b.ads = config.bumpers.wrap(b.ads); return b }
        let session = ServeSession(id: id, content: name, reporting: reporting, playerParams: params, breaks: breaks)
        do { try sessions.insert(session) } catch { return .failure(sessionStoreDown("\(error)")) }
        metrics.sessionCreated()
        log.event("session_created", ["session": id, "content": name, "reporting": reporting.rawValue, "breaks": decision.breaks.count,
                                      "ads": decision.breaks.reduce(0) { $0 + $1.ads.count }, "adsSeconds": decision.latency,
                                      "problems": decision.problems])
        return .success(session)
    }
}
