import Ads
import Foundation
import HTTPServer
import Redis
import Timing

/// Who fires a session's tracking beacons (MediaTailor's `reportingMode`).
public enum ReportingMode: String, Sendable, Hashable {
    /// The service fires each beacon when the viewer fetches the segment that holds it.
    case server
    /// The player fires them, from `GET /v1/sessions/ID/tracking`; the service fires nothing.
    case client
}

/// What takes an ad's place in a break when the ad is not in the store yet (or failed).
public enum BreakFill: String, Sendable, Hashable {
    /// The slate, for the ad's declared duration: the break keeps its planned length.
    case slate
    /// Nothing: the break is shorter by the ad and content resumes sooner (VOD content is never skipped).
    case content
}

/// Which clock a session's segments carry.
public enum SegmentClock: String, Sendable, Hashable {
    /// Every run moved onto the session's stream clock, timestamps rising across the whole
    /// playlist (what FFmpeg's HLS reader needs); a segment's bytes are shared by the sessions
    /// whose breaks before it are as long.
    case stream
    /// The store's bytes as they are, each run on its own clock after `EXT-X-DISCONTINUITY`
    /// (hls.js, AVPlayer, GStreamer): content segments byte-identical for every session.
    case shared
}

/// One `--content NAME=SOURCE`.
public struct ContentSource: Sendable, Hashable {
    /// The name in URLs (`/v1/session/NAME`).
    public var name: String
    /// An MP4 path or an HLS multivariant playlist (path or http(s) URL), as the store reads it.
    public var source: String

    /// A named source.
    public init(name: String, source: String) { self.name = name; self.source = source }
}

/// `interlude serve`'s configuration, parsed from its arguments.
public struct ServeConfig: Sendable {
    /// Address to listen on (IPv4).
    public var host = "127.0.0.1"
    /// Port to listen on (0: any free one).
    public var port: UInt16 = 8080
    /// The content sources, by name.
    public var contents: [ContentSource] = []
    /// The live channels (`--live NAME=PLAYLIST`): sliding HLS playlists, by name.
    public var lives: [ContentSource] = []
    /// The longest ad or slate segment the store makes, whole seconds (the store's segment
    /// target): a live playlist's target duration is at least this from its first version on.
    public var liveSegmentTarget = 6
    /// The ad tag template (MediaTailor's macros, see `TagTemplate`): an http(s) URL or a local
    /// path (a local tag's relative media paths are local files; a network tag's never are).
    public var adsTemplate = ""
    /// How the ad request goes out besides its URL: `GET`, or `POST` with headers and a body
    /// template (`--ads-method`, `--ads-header`, `--ads-body`).
    public var adsRequest = ADSRequestTemplate()
    /// Where playlists send players for segments: a CDN in front (`--content-segment-prefix`,
    /// `--ad-segment-prefix`); none: paths on the service.
    public var cdn = CDNPrefixes.none
    /// Clips played at the start and before the end of every ad break (`--bumper-start`,
    /// `--bumper-end`); none by default.
    public var bumpers = Bumpers.none
    /// Live sessions start with a pre-roll (`--live-preroll-max`, `--live-preroll-ads`); nil: none.
    public var livePreroll: LivePreroll?
    /// Live ad prefetch: a break signalled ahead has its viewers' ad requests spread over up to
    /// this many seconds before it is due (`--live-prefetch-window`); 0: each asks at once.
    public var livePrefetchWindow: Double = 0
    /// Live: how long after a break ends, behind the oldest segment a viewer's playlist lists,
    /// the viewer keeps its ads, pod and fired beacons (`LiveViewer.retireOldAvails`); 10 minutes.
    public var liveAvailRetirement = MediaTime(seconds: 600)
    /// `--config FILE`: named playback configurations (`PlaybackConfigurations`), read again on
    /// SIGHUP; nil: every content under these options.
    public var configurationFile: String?
    /// The configurations read from `configurationFile` when the configuration was made.
    public var playback = PlaybackConfigurations.none
    /// The store's folder.
    public var storeDirectory = "serve-store"
    /// The ladder (`NAME:WxH@KBPS,…`), as the store parses it; nil: from the source's size.
    public var renditions: String?
    /// A slate picture or video, as the store reads it; nil: the store's default (black).
    public var slate: String?
    /// Sessions' default reporting mode (a session's POST may choose).
    public var reporting: ReportingMode = .server
    /// Seconds a session lives without a request.
    public var sessionIdleTimeout: Double = 600
    /// What takes the place of a VOD ad not transcoded when the session starts (or failed):
    /// nothing by default (MediaTailor's VOD behaviour: the ad is left out of that session and
    /// ready for the next); slate only when configured. Live breaks always fill with slate what
    /// no ready ad covers.
    public var fill: BreakFill = .content
    /// Seconds the ad decision server (and each wrapper) may take before the session plays content.
    public var adsTimeout: Double = 3
    /// `[session.avail_duration_secs]`: the avail's planned length in seconds.
    public var availDuration = 60
    /// MediaTailor's personalization threshold for live breaks: when the ads that can play leave
    /// more than this unfilled, the viewer gets the channel's own content for the break instead
    /// of ads and slate; nil: every break plays its ads and slate whatever they fill.
    public var personalizationThreshold: MediaTime?
    /// MediaTailor's avail suppression for live breaks (`AvailSuppression`); nil: every break is filled.
    public var availSuppression: AvailSuppression?
    /// Threads serving HTTP. A session start holds its thread while the ADS answers, so this
    /// bounds the session starts in progress at once (playlists and segments never wait).
    public var threads = 32
    /// Connections one client address may hold at once; 0: no cap (behind a proxy or a CDN,
    /// whose connections all come from a few addresses).
    public var maxConnectionsPerClient = HTTPServerOptions.defaultMaxConnectionsPerClient
    /// The segments' clock.
    public var clock: SegmentClock = .stream
    /// The store's size bound in bytes (least recently used units beyond it are removed).
    public var storeMaxBytes: Int64 = 20 << 30

    /// `--redis URL`: sessions, fired beacons and the transcode queue in Redis, shared by every
    /// node (nil: this node's memory and its own workers, the single-node default).
    public var redisURL: String?

    /// The defaults.
    public init() {}

    /// The HTTP server's options for this configuration: the address, the threads, the cap of
    /// connections per client address (the rest: `HTTPServerOptions`' defaults).
    public var httpOptions: HTTPServerOptions {
        HTTPServerOptions(host: host, port: port, threads: threads, maxConnectionsPerClient: maxConnectionsPerClient)
    }

    /// A configuration error: one line.
    public struct ParseError: Error, CustomStringConvertible {
        /// One line for the terminal.
        public var description: String
    }

    /// The options `serve` takes, each with a value.
    public static let optionNames: Set<String> = [
        "--listen", "--content", "--live", "--ads", "--store", "--renditions", "--slate", "--reporting", "--fill-with",
        "--session-timeout", "--ads-timeout", "--avail-duration", "--clock", "--store-max-mb", "--threads", "--redis",
        "--max-connections-per-client", "--personalization-threshold", "--avail-suppression",
        "--ads-method", "--ads-header", "--ads-body", "--content-segment-prefix", "--ad-segment-prefix",
        "--bumper-start", "--bumper-end", "--live-preroll-max", "--live-preroll-ads", "--config",
        "--live-prefetch-window",
    ]
    /// The options that may be given more than once (each names one more content or channel, or
    /// one more header of the ad request).
    public static let repeatableOptions: Set<String> = ["--content", "--live", "--ads-header"]
    /// The largest `--ads-body` (or the file it names).
    public static let maxAdsBodyBytes = 64 << 10

    /// A configuration from `serve`'s options, each with its value, in the order given. Walking
    /// the command line (`--name value` or `--name=value`, `--`, an option given twice) is the
    /// CLI's, as for every command; this checks each value and what must be there.
    public static func make(_ options: [(name: String, value: String)]) throws -> ServeConfig {
        var c = ServeConfig()
        try c.apply(options)
        guard !c.contents.isEmpty || !c.lives.isEmpty else {
            throw ParseError(description: "serve needs at least one --content NAME=SOURCE or --live NAME=PLAYLIST")
        }
        guard !c.adsTemplate.isEmpty else { throw ParseError(description: "serve needs --ads TAG_TEMPLATE") }
        if let file = c.configurationFile { c.playback = try PlaybackConfigurations.load(file: file, base: c) }
        return c
    }

    /// This configuration with `options` applied over it, in order (a later value wins; a
    /// repeatable option adds to what is there: `--ads-header` to the headers): what `make`
    /// does from the defaults, and a playback configuration (`PlaybackConfigurations`) from the
    /// command line's. Throws the first bad value in one line.
    public mutating func apply(_ options: [(name: String, value: String)]) throws {
        var c = self
        var adsMethod: AdHTTPRequest.Method? = c.adsRequest.method == .post ? .post : nil
        var adsHeaders = c.adsRequest.headers
        var adsBody: String? = c.adsRequest.method == .post ? c.adsRequest.body : nil
        var contentPrefix = c.cdn.content, adPrefix = c.cdn.ads, bumperStart = c.bumpers.start, bumperEnd = c.bumpers.end
        var prerollMax = c.livePreroll?.maxDuration, prerollAds = c.livePreroll?.adsTemplate
        for (a, v) in options {
            switch a {
            case "--listen":
                guard let colon = v.lastIndex(of: ":"), let port = UInt16(v[v.index(after: colon)...]) else {
                    throw ParseError(description: "--listen takes HOST:PORT, not '\(v)'")
                }
                c.host = String(v[..<colon]).isEmpty ? "127.0.0.1" : String(v[..<colon])
                c.port = port
            case "--content", "--live":
                guard let eq = v.firstIndex(of: "="), eq != v.startIndex, v.index(after: eq) != v.endIndex else {
                    throw ParseError(description: "\(a) takes NAME=SOURCE, not '\(v)'")
                }
                let name = String(v[..<eq])
                guard name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                    throw ParseError(description: "content name '\(name)' may hold only letters, digits, '-' and '_'")
                }
                guard !(c.contents + c.lives).contains(where: { $0.name == name }) else { throw ParseError(description: "content '\(name)' given twice") }
                let source = ContentSource(name: name, source: String(v[v.index(after: eq)...]))
                if a == "--live" { c.lives.append(source) } else { c.contents.append(source) }
            case "--ads": c.adsTemplate = v
            case "--config":
                guard !v.isEmpty else { throw ParseError(description: "--config takes a file") }
                c.configurationFile = v
            case "--ads-method":
                guard let m = AdHTTPRequest.Method(rawValue: v.uppercased()) else { throw ParseError(description: "--ads-method is GET or POST, not '\(v)'") }
                adsMethod = m
            case "--ads-header":
                guard let colon = v.firstIndex(of: ":") else { throw ParseError(description: "--ads-header takes 'NAME: VALUE', not '\(v)'") }
                adsHeaders.append(ADSRequestTemplate.Header(name: String(v[..<colon]),
                                                            value: v[v.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
            case "--ads-body":
                adsBody = try Self.readBody(v)
            case "--live-preroll-max":
                guard let t = MediaTime(decimal: v), t > .zero, t <= MediaTime(seconds: 600) else {
                    throw ParseError(description: "--live-preroll-max takes seconds in (0, 600], not '\(v)'")
                }
                prerollMax = t
            case "--live-prefetch-window":
                guard let s = Double(v), s >= 0, s <= 600 else { throw ParseError(description: "--live-prefetch-window takes seconds in [0, 600], not '\(v)'") }
                c.livePrefetchWindow = s
            case "--live-preroll-ads":
                guard !v.isEmpty else { throw ParseError(description: "--live-preroll-ads takes a tag template") }
                prerollAds = v
            case "--bumper-start": bumperStart = v
            case "--bumper-end": bumperEnd = v
            case "--content-segment-prefix": contentPrefix = v
            case "--ad-segment-prefix": adPrefix = v
            case "--store": c.storeDirectory = v
            case "--renditions": c.renditions = v
            case "--slate": c.slate = v
            case "--reporting":
                guard let m = ReportingMode(rawValue: v) else { throw ParseError(description: "--reporting is server or client, not '\(v)'") }
                c.reporting = m
            case "--fill-with":
                guard let f = BreakFill(rawValue: v) else { throw ParseError(description: "--fill-with is slate or content, not '\(v)'") }
                c.fill = f
            case "--session-timeout":
                guard let s = Double(v), s > 0 else { throw ParseError(description: "--session-timeout takes seconds > 0, not '\(v)'") }
                c.sessionIdleTimeout = s
            case "--ads-timeout":
                guard let s = Double(v), s > 0, s <= 60 else { throw ParseError(description: "--ads-timeout takes seconds in (0, 60], not '\(v)'") }
                c.adsTimeout = s
            case "--avail-duration":
                guard let s = Int(v), s > 0 else { throw ParseError(description: "--avail-duration takes whole seconds > 0, not '\(v)'") }
                c.availDuration = s
            case "--personalization-threshold":
                guard let t = MediaTime(decimal: v), t >= .zero, t <= MediaTime(seconds: 3_600) else {
                    throw ParseError(description: "--personalization-threshold takes seconds in [0, 3600], not '\(v)'")
                }
                c.personalizationThreshold = t
            case "--avail-suppression":
                c.availSuppression = try AvailSuppression.parse(v)
            case "--clock":
                guard let k = SegmentClock(rawValue: v) else { throw ParseError(description: "--clock is stream or shared, not '\(v)'") }
                c.clock = k
            case "--store-max-mb":
                guard let n = Int64(v), n > 0 else { throw ParseError(description: "--store-max-mb takes a whole number > 0, not '\(v)'") }
                c.storeMaxBytes = n << 20
            case "--threads":
                guard let n = Int(v), (1...256).contains(n) else { throw ParseError(description: "--threads takes 1…256, not '\(v)'") }
                c.threads = n
            case "--max-connections-per-client":
                guard let n = Int(v), (0...1_000_000).contains(n) else {
                    throw ParseError(description: "--max-connections-per-client takes 0 (no cap) or a whole number up to 1000000, not '\(v)'")
                }
                c.maxConnectionsPerClient = n
            case "--redis":
                guard (try? RedisURL(v)) != nil else { throw ParseError(description: "--redis takes redis://HOST[:PORT][/DB] or unix:///PATH, not '\(v)'") }
                c.redisURL = v
            default:
                throw ParseError(description: "unknown option '\(a)' (see interlude serve --help)")
            }
        }
        do { c.cdn = try CDNPrefixes(content: contentPrefix, ads: adPrefix) } catch {
            throw ParseError(description: "\(error.kind == .content ? "--content-segment-prefix" : "--ad-segment-prefix"): \(error)")
        }
        do { c.bumpers = try Bumpers(start: bumperStart, end: bumperEnd) } catch {
            throw ParseError(description: "\(error.place == .start ? "--bumper-start" : "--bumper-end"): \(error)")
        }
        if let prerollMax {
            c.livePreroll = LivePreroll(maxDuration: prerollMax, adsTemplate: prerollAds)
        } else if prerollAds != nil {
            throw ParseError(description: "--live-preroll-ads goes with --live-preroll-max SECS")
        }
        if adsMethod == .post {
            let lower = c.adsTemplate.lowercased()
            guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
                throw ParseError(description: "--ads-method POST needs an http(s) --ads tag, not a file")
            }
            do {
                c.adsRequest = try ADSRequestTemplate(method: .post, headers: adsHeaders, body: adsBody ?? "")
            } catch {
                throw ParseError(description: "--ads-header: \(error)")
            }
        } else if !adsHeaders.isEmpty || adsBody != nil {
            throw ParseError(description: "--ads-header and --ads-body go with --ads-method POST (a GET request has neither)")
        } else {
            c.adsRequest = ADSRequestTemplate()
        }
        self = c
    }

    /// `--ads-body`'s value: the template itself, or `@FILE` for the contents of a file (UTF-8,
    /// at most `maxAdsBodyBytes`).
    static func readBody(_ v: String) throws -> String {
        guard v.hasPrefix("@") else {
            guard v.utf8.count <= maxAdsBodyBytes else { throw ParseError(description: "--ads-body is over \(maxAdsBodyBytes) bytes") }
            return v
        }
        let path = String(v.dropFirst())
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw ParseError(description: "--ads-body: no file '\(path)'")
        }
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        guard attributes?[.type] as? FileAttributeType == .typeRegular else { throw ParseError(description: "--ads-body: '\(path)' is not a regular file") }
        guard let size = attributes?[.size] as? NSNumber, size.intValue <= maxAdsBodyBytes,
              let data = FileManager.default.contents(atPath: path) else {
            throw ParseError(description: "--ads-body: '\(path)' cannot be read or is over \(maxAdsBodyBytes) bytes")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw ParseError(description: "--ads-body: '\(path)' is not UTF-8") }
        return text
    }
}
