import Ads
import Foundation
import HTTPServer
import Threads
import Interlude
import Timing

/// `interlude serve`'s service: sessions, per-session playlists, tracking and operations over a
/// `ServeMedia` store, answering HTTP through `HTTPServer`.
///
/// Routes: `POST /v1/session/NAME`, `GET /v1/master/NAME/index.m3u8?k=v…`,
/// `GET /v1/dash/NAME/index.mpd?k=v…`, `GET /v1/sessions/ID/index.mpd`,
/// `GET /v1/sessions/ID/master.m3u8[?segments=cmaf]`, `GET /v1/sessions/ID/RENDITION.m3u8[?mode=interstitials]`,
/// `GET /v1/sessions/ID/tracking`, `GET /v1/sessions/ID/assets/[RENDITION/]B.json`,
/// `GET /v1/sessions/ID/ads/B/A/RENDITION.m3u8`, `GET /v1/segments/PATH`, `GET /health`,
/// `GET /metrics`. A live channel's name (`--live`) takes the same session routes.
public final class ServeService: Sendable {
    /// The configuration.
    public let config: ServeConfig
    /// The store.
    public let media: any ServeMedia
    /// The sessions.
    public let sessions: any SessionStore
    /// Fires server-side beacons and Error URLs.
    public let beacons: BeaconSender
    /// Which beacons fire (each once): the session's own record, or Redis across nodes.
    public let ledger: any BeaconLedger
    /// The counters behind `/metrics`.
    public let metrics = ServeMetrics()
    /// The live channels (`--live`), polled while the service runs; nil: none.
    public let live: LiveChannels?
    /// This node's live viewers.
    public let liveViewers = LiveViewers()
    /// Where the fleet keeps its live viewers (`--redis`): any node answers any live session;
    /// nil: a live session is this node's.
    public let liveStore: (any LiveViewerStore)?
    /// Signs ad segment URLs' beacon places (a fleet shares one key through Redis).
    public let signature: SegmentSignature
    /// Stored segments' sizes in bytes, by path (the variants' bit rates count them).
    let sizeCache = Locked<[String: Int]>([:])
    /// Stored segments as CMAF tracks (the DASH answers' media), made once and kept.
    let cmafTracks = CMAFTracks()
    let log: ServeLog
    /// The playback configurations in use (`--config`), replaced whole by a reload.
    private let playbackInUse: Locked<PlaybackConfigurations>
    /// The server and the expiry timer, from `start` to `stop`.
    private struct Running {
        var server: HTTPServer?
        var expiry: DispatchSourceTimer?
    }
    private let running = Locked(Running())

    /// A service (not listening yet: `start`). Without a `ledger`, fired beacons are recorded
    /// in the sessions (`SessionBeaconLedger`). Without `beacons`, a `BeaconSender` of its own
    /// (5 s timeout). `live` channels are polled from `start` to `stop`.
    public init(config: ServeConfig, media: any ServeMedia, sessions: any SessionStore = MemorySessionStore(),
                beacons: BeaconSender? = nil, ledger: (any BeaconLedger)? = nil, live: LiveChannels? = nil,
                signature: SegmentSignature = .random(), log: ServeLog = .standardError, liveStore: (any LiveViewerStore)? = nil) {
        // nil, not a default `BeaconSender()`: its initialiser is SPI, which a public default argument cannot call
        self.config = config; self.media = media; self.sessions = sessions; self.beacons = beacons ?? BeaconSender(); self.log = log; self.live = live
        self.ledger = ledger ?? SessionBeaconLedger(sessions: sessions)
        self.signature = signature
        self.liveStore = liveStore
        playbackInUse = Locked(config.playback)
    }

    /// The ad policies of `content`: its playback configuration's (`--config`), or the command
    /// line's; the configuration too, for its aliases.
    func policy(for content: String) -> (config: ServeConfig, configuration: PlaybackConfigurations.Configuration?) {
        playbackInUse.withLock { inUse in
            guard let c = inUse.byContent[content] else { return (config, nil) }
            return (c.config, c)
        }
    }

    /// Reads `--config` again (SIGHUP): the new configurations replace the ones in use, for the
    /// sessions started from now on (a session keeps the ads it was decided with; a VOD
    /// session's playlists, once made, never change); a file that cannot be read or checked is
    /// refused in one log line and the configurations in use are kept. Returns whether it took.
    @discardableResult
    public func reloadConfigurations() -> Bool {
        guard let file = config.configurationFile else { return false }
        var base = config
        base.playback = .none
        do {
            let next = try PlaybackConfigurations.load(file: file, base: base)
            playbackInUse.withLock { $0 = next }
            log.event("config_reloaded", ["file": file, "configurations": next.byName.keys.sorted()])
            return true
        } catch {
            log.event("config_refused", ["file": file, "error": "\(error)"])
            return false
        }
    }

    /// Starts listening on the configured address; returns the port.
    @discardableResult
    public func start() throws -> UInt16 {
        let s = try HTTPServer(options: config.httpOptions, answer: { [self] request in answer(request) })
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
        let every = min(30, max(0.05, config.sessionIdleTimeout / 4))
        timer.schedule(deadline: .now() + every, repeating: every)
        timer.setEventHandler { [self] in expireIdle() }
        timer.resume()
        running.withLock { $0 = Running(server: s, expiry: timer) }
        live?.start()
        log.event("listening", ["host": config.host, "port": Int(s.port)])
        return s.port
    }

    /// Graceful shutdown: stop accepting, finish the requests in flight (up to `grace` seconds), stop.
    public func stop(grace: Double = 10) {
        let s = running.withLock { r in
            defer { r.expiry?.cancel(); r = Running() }
            return r.server
        }
        live?.stop()
        guard let s else { return }
        log.event("stopping", ["inFlight": s.requestsInFlight])
        s.shutdown(grace: grace)
        log.event("stopped")
    }

    /// Drops idle sessions now.
    public func expireIdle() {
        let viewersGone = liveViewers.expire(idle: config.sessionIdleTimeout, now: monotonicSeconds())
        if viewersGone > 0 { metrics.sessionsExpired(viewersGone); log.event("sessions_expired", ["count": viewersGone, "live": true]) }
        let gone = sessions.expire(idle: config.sessionIdleTimeout, now: monotonicSeconds())
        guard !gone.isEmpty else { return }
        // What each session pinned: the timelines it kept (see `mediaPlaylist`).
        for s in gone { for t in s.timelines.values { media.unpin(t.items.map(\.segment.path)) } }
        metrics.sessionsExpired(gone.count)
        log.event("sessions_expired", ["count": gone.count])
    }

    /// Answers one request (the HTTP server's handler): at once what is a lookup (a segment, a
    /// playlist already written, health), later what awaits the ad server, the store or a live
    /// viewer (its connection suspended meanwhile, no thread waiting). Each is counted and logged
    /// when its response is made.
    public func answer(_ request: HTTPRequest) -> HTTPAnswer {
        let started = monotonicSeconds()
        switch route(request) {
        case .now(let response): return .now(answered(request, response, since: started))
        case .later(let work): return .later { [self] in answered(request, await work(), since: started) }
        }
    }

    private func answered(_ request: HTTPRequest, _ response: HTTPResponse, since started: Double) -> HTTPResponse {
        var response = response
        // every answer's header (`allowOrigin`); a kept playlist's answer has it already, and
        // keeps its headers as made (queued as it is: `PreparedResponse`)
        if response.headers[Self.allowOrigin.name] != Self.allowOrigin.value { response.headers[Self.allowOrigin.name] = Self.allowOrigin.value }
        metrics.answered(response.status)
        log.request(method: request.method, path: request.path, status: response.status, milliseconds: (monotonicSeconds() - started) * 1000)
        return response
    }

    func route(_ r: HTTPRequest) -> HTTPAnswer {
        guard let p = RoutePath(r.path) else { return .now(.error(404, "not found")) }
        let get = r.method == "GET" || r.method == "HEAD"
        let interstitials = r.queryValue("mode") == "interstitials"
        func wrongMethod() -> HTTPAnswer { .now(.error(405, "method \(r.method) not allowed here")) }
        // built only when answered: a JSON body serialized for every request was a third of a
        // playlist request's CPU (perf, issue 36)
        func notFound() -> HTTPAnswer { .now(.error(404, "not found")) }
        if r.method == "OPTIONS" {
            // a browser's preflight (a POSTed session with a JSON body): what a cross-origin page may send
            return .now(HTTPResponse(status: 204, headers: ["Access-Control-Allow-Methods": "GET, HEAD, POST",
                                                            "Access-Control-Allow-Headers": "Content-Type", "Access-Control-Max-Age": "86400"]))
        }
        if p.count == 1 && p[0] == "health" { return get ? .now(.json(["status": "ok", "sessions": sessions.count + liveViewers.count])) : wrongMethod() }
        if p.count == 1 && p[0] == "metrics" {
            guard get else { return wrongMethod() }
            return .later { [self] in
                let gauges = media as? any ServeMediaGauges
                let seen = await live?.breaksSeen() ?? [:]
                return .text(metrics.text(sessions: sessions.count + liveViewers.count, queue: gauges?.queuedEncodes() ?? 0,
                                          storeBytes: gauges?.storeBytes() ?? 0, encodes: media.encodeCounts(), breaksSeen: seen),
                             contentType: "text/plain; version=0.0.4")
            }
        }
        guard p.count >= 3, p[0] == "v1" else { return notFound() }
        switch p[1] {
        case "session" where p.count == 3:
            guard r.method == "POST" else { return wrongMethod() }
            return .later { [self] in await createSession(content: p[2].string, body: r.body, userAgent: r.headers["user-agent"] ?? "") }
        case "master" where p.count == 4 && p[3] == "index.m3u8":
            guard get else { return wrongMethod() }
            return .later { [self] in await implicitSession(content: p[2].string, request: r) }
        case "dash" where p.count == 4 && p[3] == "index.mpd":
            guard get else { return wrongMethod() }
            return .later { [self] in await implicitSession(content: p[2].string, request: r, dash: true) }
        case "segments":
            return get ? segment(p.string(from: 2), request: r) : wrongMethod()
        case "subtitles":
            return get ? subtitleSegment((2..<p.count).map { p[$0].string }[...], request: r) : wrongMethod()
        case "sessions":
            guard get else { return wrongMethod() }
            let id = p[2].string
            if let v = liveViewers.touch(id) { return liveRoute(v, p, r) }
            if let record = storedLiveRecord(id) {
                // a live session another node started (or this node dropped): taken over here
                return .later { [self] in
                    guard let v = await adoptLiveViewer(id, record: record) else { return .error(404, "no session '\(id)'") }
                    return await liveRoute(v, p, r).response()
                }
            }
            if p.count == 4 && p[3] == "tracking" { return .later { [self] in await tracking(id, nextToken: r.queryValue("nextToken")) } }
            if p.count == 5 && p[3] == "subtitles" && p[4].hasSuffix(".m3u8") {
                return subtitlePlaylist(id, track: Int(p[4].dropping(5)), cmaf: Self.wantsCMAF(r), interstitials: interstitials)
            }
            if p.count == 4 && p[3].hasSuffix(".m3u8") && Self.wantsCMAF(r) { return cmafPlaylist(id, name: p[3].dropping(5)) }
            if p.count == 4 && p[3] == "master.m3u8" { return master(id, interstitials: interstitials) }
            if p.count == 4 && p[3] == Self.mpdKey { return dashManifest(id) }
            if p.count == 4 && p[3].hasSuffix(".m3u8") { return mediaPlaylist(id, rendition: p[3].dropping(5), interstitials: interstitials) }
            if p.count == 5 && p[3] == "assets" && p[4].hasSuffix(".json") {
                return .later { [self] in await assetList(id, rendition: nil, breakIndex: Int(p[4].dropping(5))) }
            }
            if p.count == 6 && p[3] == "assets" && p[5].hasSuffix(".json") {
                return .later { [self] in await assetList(id, rendition: p[4].string, breakIndex: Int(p[5].dropping(5))) }
            }
            if p.count == 7 && p[3] == "ads" && p[6].hasSuffix(".m3u8") {
                return .later { [self] in await adAsset(id, breakIndex: Int(p[4].string), adIndex: Int(p[5].string), rendition: p[6].dropping(5)) }
            }
            return notFound()
        default:
            return notFound()
        }
    }
}
