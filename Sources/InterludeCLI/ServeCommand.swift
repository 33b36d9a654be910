// `interlude serve`: argument parsing, the store and the service put together, signals. The work
// is `Serve.ServeService` (HTTP side) and `Serve.MediaStore` (the store).
import Foundation
import Playback
import Serve
import Threads

let serveUsage = """
    usage: interlude serve --content NAME=SOURCE [--content …] --ads TAG_TEMPLATE [options]
           interlude serve --live NAME=PLAYLIST [--live …] --ads TAG_TEMPLATE [options]

    Server-side ad insertion for HLS and DASH (VOD and live), MediaTailor-shaped: each viewer's session gets its own
    playlists (content cut frame-exactly at the breaks, shared by every session; ads transcoded
    once per rendition and shared), tracking fired server-side or reported to the player.

      GET  /v1/master/NAME/index.m3u8?k=v…   a session, answered with its master playlist
                                             (&segments=cmaf: HLS with CMAF segments)
      GET  /v1/dash/NAME/index.mpd?k=v…      a session, answered with its DASH MPD (live: a
                                             redirect to its dynamic MPD)
      POST /v1/session/NAME                  {"adsParams": {…}, "reportingMode": "server"|"client"}
      GET  /v1/sessions/ID/tracking          client-side tracking JSON;  /health, /metrics

    options:
      --listen HOST:PORT         IPv4 address and port (default 127.0.0.1:8080)
      --content NAME=SOURCE      an MP4 (packaged once into an HLS ladder), an HLS
                                 multivariant playlist or a static DASH MPD (path or http(s)
                                 URL; its subtitles and audio languages carried through;
                                 AES-128 and SAMPLE-AES (FairPlay) MPEG-TS HLS and cenc/cbcs
                                 CMAF served as they came, breaks at segment boundaries);
                                 repeatable
      --live NAME=PLAYLIST       a live channel: HLS (sliding media or multivariant playlist,
                                 MPEG-TS or CMAF, its sound muxed or CMAF audio renditions:
                                 the default and up to 3 other languages) or DASH (a dynamic
                                 MPD, up to 4 audio AdaptationSets), http(s) URL or
                                 path, polled at its target duration (its WebVTT subtitles,
                                 or a DASH origin's WebVTT/TTML in MP4, carried into HLS and,
                                 as wvtt, DASH); its SCTE-35 breaks
                                 (CUE-OUT/-CONT/CUE-IN, DATERANGE, MPD Events, in-band, emsg)
                                 replaced per viewer by ads fitted to the break and slate;
                                 AES-128 and SAMPLE-AES MPEG-TS served as they came (HLS),
                                 cenc/cbcs CMAF too (DASH, and HLS with CMAF segments when
                                 it has an HLS key), breaks at segment boundaries; repeatable
      --ads TAG_TEMPLATE         VAST/VMAP tag URL or path, with MediaTailor's variables
                                 ([session.id], [player_params.NAME], [session.avail_duration_secs] …)
      --ads-method GET|POST      how the ad request goes out (default GET)
      --ads-header 'NAME: VALUE' a header of a POSTed ad request; repeatable
      --ads-body TEMPLATE|@FILE  the body of a POSTed ad request, with the tag's variables,
                                 each escaped for the body's type (JSON, XML or a form)
      --content-segment-prefix URL
                                 a CDN in front: playlists give content segments under URL
                                 (http(s), no query) instead of this service's address
      --ad-segment-prefix URL    the same for ad and slate segments
      --live-prefetch-window SECS
                                 live: a break signalled ahead has its viewers' ad requests
                                 spread over up to SECS before it is due (default 0: at once)
      --live-preroll-max SECS    live: each session starts with a pre-roll of at most SECS
                                 (the ads that are transcoded and fit; none: no pre-roll)
      --live-preroll-ads TAG_TEMPLATE
                                 the pre-roll's own ad tag (default: --ads)
      --bumper-start URL         a clip (http(s), at most 10 s) played at the start of every
                                 ad break, transcoded like an ad, no beacons
      --bumper-end URL           the same, played just before the end of every ad break
      --config FILE              named playback configurations (JSON, docs/SERVE.md): the ad
                                 policies per content or channel, over these options; read
                                 again on SIGHUP (a bad file is refused in one line, the
                                 configurations in use kept)
      --store DIR                the store's folder (default serve-store)
      --store-max-mb N           the store's size bound (default 20480; none with --redis: the
                                 store is shared by the fleet)
      --renditions LADDER        e.g. 720p:1280x720@3000,360p:640x360@800 (default from the source)
      --slate FILE               an MP4 whose first frame fills breaks an ad cannot (default black)
      --reporting server|client  who fires beacons by default (default server)
      --fill-with content|slate  VOD: an ad not transcoded when the session starts is left out
                                 (content, the default) or replaced by slate; live always slates
      --clock stream|shared      segments moved onto each session's clock (default; FFmpeg
                                 needs it) or the store's bytes as they are
      --session-timeout SECS     idle time before a session is dropped (default 600)
      --ads-timeout SECS         ad server timeout, each wrapper too (default 3)
      --avail-duration SECS      [session.avail_duration_secs] (default 60)
      --personalization-threshold SECS
                                 live: a break whose ready ads leave more than SECS unfilled
                                 plays the channel's own content instead of ads and slate
                                 (MediaTailor's personalization threshold; default: off)
      --avail-suppression MODE[,VALUE[,FILL]]
                                 live: breaks left to the channel's content, from the live
                                 edge when a session starts (MediaTailor's avail suppression):
                                 behind-live-edge,VALUE (breaks begun VALUE or more before it)
                                 or after-live-edge,VALUE[,partial] (breaks begun before it, or
                                 within VALUE after it; partial: one under way is filled for
                                 what is left); VALUE HH:MM:SS or seconds (default off)
      --threads N                HTTP threads; bounds session starts waiting for the ADS (default 32)
      --max-connections-per-client N
                                 connections one client address may hold (default 64; 0: no
                                 cap, for a proxy or CDN in front); a request's head must be in
                                 within 10 s of connecting, its body within 10 s of its head
      --redis URL                redis://HOST[:PORT][/DB] or unix:///PATH: sessions (TTL = the
                                 session timeout) and fired beacons in Redis, shared by every
                                 node; while it is down new sessions get 503, cached ones play

    Log: one JSON object a line on stderr, every request (written in batches, at most 0.1 s late)
    and every event (at once).
    SIGINT or SIGTERM: stop accepting, finish requests in flight, exit 0. SIGHUP: read --config
    again (sessions keep what they were decided with).
    exit status: 1 when the service cannot start (a source, the store, the address); 2 for bad usage.
    """

/// `serve`'s arguments walked by the scanner every command uses (`--name value` or `--name=value`,
/// each option once but `--content` and `--live`, no positionals), the values checked by
/// `ServeConfig.make`.
func parseServe(_ args: [String]) throws -> ServeConfig {
    var scanner = ArgumentScanner(args, repeatable: ServeConfig.repeatableOptions)
    var options: [(name: String, value: String)] = []
    while let arg = scanner.next() {
        let name = try scanner.name(of: arg)
        guard !name.isEmpty else { throw UsageError("unexpected argument '\(arg)': serve takes options only") }
        guard ServeConfig.optionNames.contains(name) else { throw UsageError("unknown option '\(name)' (see interlude serve --help)") }
        options.append((name, try scanner.value(for: name, in: arg)))
    }
    return try ServeConfig.make(options)
}

/// Runs `interlude serve ARGS`; returns the exit status.
func runServe(_ args: [String]) async -> Int32 {
    if args.contains("-h") || args.contains("--help") { print(serveUsage); return 0 }
    let config: ServeConfig
    do { config = try parseServe(args) } catch {
        FileHandle.standardError.write(Data("interlude serve: \(error)\n".utf8))
        return 2
    }
    // FFmpeg's own messages (a live TS's SCTE-35 stream has no start time …) would break the
    // log's one JSON object a line
    setMediaLogging(verbose: false)
    let store: MediaStore
    do {
        var options = StoreOptions(root: URL(fileURLWithPath: config.storeDirectory, isDirectory: true),
                                   contents: Dictionary(uniqueKeysWithValues: config.contents.map { ($0.name, $0.source) }),
                                   ladder: try config.renditions.map(Ladder.parse))
        options.slateFile = config.slate
        options.maxBytes = config.storeMaxBytes
        // Local ad media only for a local tag (its VMAP names files beside it); the HTTP side
        // drops local media from a network tag's ads before the store is asked.
        options.allowLocalAdMedia = !(config.adsTemplate.lowercased().hasPrefix("http://") || config.adsTemplate.lowercased().hasPrefix("https://"))
        // with Redis, ad transcodes are queued for `interlude worker` processes sharing the store
        if let redis = config.redisURL {
            options.jobQueue = try RedisAdQueue(url: redis)   // a shared folder: the store never evicts (docs/SERVE.md)
        }
        store = try MediaStore(options: options)
        for c in config.contents {
            FileHandle.standardError.write(Data("interlude serve: packaging '\(c.name)' (once; later starts reuse the store)…\n".utf8))
            let prepared = try await store.content(c.name)
            let subtitles = prepared.subtitles.isEmpty ? "" : ", subtitles " + prepared.subtitles.map { $0.language ?? $0.name }.joined(separator: ", ")
            FileHandle.standardError.write(Data("interlude serve: '\(c.name)': \(prepared.renditions.map(\.rendition.name).joined(separator: ", ")), \(String(format: "%.3f", prepared.duration.seconds)) s\(subtitles)\n".utf8))
            for note in prepared.notes { FileHandle.standardError.write(Data("interlude serve: '\(c.name)': \(note)\n".utf8)) }
        }
    } catch {
        FileHandle.standardError.write(Data("interlude serve: \(error)\n".utf8))
        return 1
    }
    var sessions: any SessionStore = MemorySessionStore()
    var ledger: (any BeaconLedger)? = nil
    var signature = SegmentSignature.random()
    var liveStore: (any LiveViewerStore)? = nil
    if let url = config.redisURL {
        do {
            let shared = try RedisSessionStore.shared(url: url, idleTimeout: config.sessionIdleTimeout)
            (sessions, ledger, signature) = (shared.0, shared.1, shared.2)
            liveStore = RedisLiveViewerStore(client: shared.0.client, ttl: config.sessionIdleTimeout)
        } catch {
            FileHandle.standardError.write(Data("interlude serve: \(error)\n".utf8))
            return 1
        }
    }
    var live: LiveChannels?
    if !config.lives.isEmpty {
        do {
            let channels = try LiveChannels(config.lives.map { ($0.name, $0.source) },
                                            folder: URL(fileURLWithPath: config.storeDirectory, isDirectory: true), media: store,
                                            log: .standardError, fleet: liveStore)
            // the first poll here: a source that cannot be read is said at once, not in every session's 503
            for c in config.lives {
                do { try await channels.channels[c.name]!.poll() } catch {
                    FileHandle.standardError.write(Data("interlude serve: live channel '\(c.name)': \(error)\n".utf8))
                    return 1
                }
            }
            live = channels
        } catch {
            FileHandle.standardError.write(Data("interlude serve: \(error)\n".utf8))
            return 1
        }
    }
    let service = ServeService(config: config, media: store, sessions: sessions, ledger: ledger, live: live, signature: signature,
                               liveStore: liveStore)
    let port: UInt16
    do { port = try service.start() } catch {
        FileHandle.standardError.write(Data("interlude serve: \(error)\n".utf8))
        return 1
    }
    for c in config.contents + config.lives { print("http://\(config.host):\(port)/v1/master/\(c.name)/index.m3u8") }
    fflush(nil)   // every stream: the URL reaches a pipe at once
    await waitForTermination(onHangup: { service.reloadConfigurations() })
    service.stop(grace: 10)
    return 0
}

/// Returns at the first SIGINT or SIGTERM; calls `onHangup` at each SIGHUP.
private func waitForTermination(onHangup: @escaping @Sendable () -> Void) async {
    signal(SIGINT, SIG_IGN)
    signal(SIGTERM, SIG_IGN)
    signal(SIGHUP, SIG_IGN)
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        let resumed = Locked(false)
        var sources: [DispatchSourceSignal] = []
        for s in [SIGINT, SIGTERM] {
            let source = DispatchSource.makeSignalSource(signal: s, queue: DispatchQueue(label: "interlude.serve.signal"))
            source.setEventHandler {
                resumed.withLock { resumed in
                    guard !resumed else { return }
                    resumed = true
                    done.resume()
                }
            }
            source.resume()
            sources.append(source)
        }
        let hangup = DispatchSource.makeSignalSource(signal: SIGHUP, queue: DispatchQueue(label: "interlude.serve.reload"))
        hangup.setEventHandler(handler: onHangup)
        hangup.resume()
        sources.append(hangup)
        signalSources = sources
    }
}

/// Kept alive for the process's life.
nonisolated(unsafe) private var signalSources: [DispatchSourceSignal] = []
