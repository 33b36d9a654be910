import Ads
import Foundation
import Interlude
import Manifest
import Redis
import Serve
import TestSupport
import Testing
import Timing

/// Live ad replacement end to end: a live origin on 127.0.0.1 (ffmpeg-made 2 s segments, a
/// sliding window, breaks signalled by DATERANGE, CUE-OUT/CUE-IN and in-band SCTE-35), the
/// service following it, a viewer's playlist fetched as a player does after each new origin
/// segment, every segment it names downloaded and decoded: content frames in order, each once,
/// the ads' first frame at the signalled PTS, slate for what the pod leaves, content back at the
/// first frame at or after the break's end.
@Suite(.serialized) struct ServeLiveSessionTests {
    /// Two 4 s ads (source 7 and 8) at the channel's size.
    static func ad(_ source: Int) throws -> URL { try TestMedia.clip(sourceID: source, width: 320, height: 180, fps: 30, seconds: 4, gop: 60) }

    /// A VAST pod of the two ads.
    static func pod(media: [String], tracker: String) -> String {
        let ads = media.enumerated().map { i, m in
            """
            <Ad id="ad\(i + 1)" sequence="\(i + 1)"><InLine><AdSystem>fixture</AdSystem><AdTitle>ad\(i + 1)</AdTitle>
            <Impression><![CDATA[\(tracker)/imp?ad=ad\(i + 1)]]></Impression>
            <Creatives><Creative id="cr\(i + 1)"><Linear><Duration>00:00:04</Duration>
            <TrackingEvents>
            <Tracking event="start"><![CDATA[\(tracker)/start?ad=ad\(i + 1)]]></Tracking>
            <Tracking event="midpoint"><![CDATA[\(tracker)/mid?ad=ad\(i + 1)]]></Tracking>
            <Tracking event="complete"><![CDATA[\(tracker)/complete?ad=ad\(i + 1)]]></Tracking>
            </TrackingEvents>
            <MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="320" height="180"><![CDATA[\(m)]]></MediaFile></MediaFiles>
            </Linear></Creative></Creatives></InLine></Ad>
            """
        }
        return "<VAST version=\"4.1\">" + ads.joined() + "</VAST>"
    }

    /// Two breaks of 40 s of content: a DATERANGE `splice_insert` inside segment 6 (6 s), an
    /// in-band one inside segment 12 (4 s).
    static let twoBreaks = [
        LiveOriginBreak(start: .frame(377), duration: MediaTime(seconds: 6), signal: .dateRange(.spliceInsert)),
        LiveOriginBreak(start: .frame(12 * 60 + 23), duration: MediaTime(seconds: 4), signal: .inBand(.spliceInsert)),
    ]

    /// Everything one test needs, torn down in `stop`.
    final class Rig: @unchecked Sendable {
        // @unchecked Sendable: immutable after init; the log box locks itself.
        let origin: LiveOrigin
        let ads: HTTPTestServer
        let store: MediaStore
        let channels: LiveChannels
        let service: ServeService
        let port: UInt16
        let root: URL
        let adURLs: [String]
        /// The service's and the channel's log lines.
        let log = LineBox()

        /// `init` off Swift's concurrency pool: making the origin's media (cold cache: seconds of
        /// ffmpeg, other tests waiting on its lock) held both of the pool's threads on a 2-core
        /// machine, and every service under test waited for the pool (CI: sessions unanswered
        /// for 20 s).
        static func start(breaks: [LiveOriginBreak], seconds: Int = 60, clock: LiveOrigin.Clock = .manual, initial: Int? = nil,
                          vast: HTTPTestServer.Response? = nil, adsTemplate: String? = nil,
                          sizes: [PixelSize] = [PixelSize(width: 320, height: 180)], faults: [LiveOriginFault] = [],
                          personalizationThreshold: MediaTime? = nil, availSuppression: AvailSuppression? = nil,
                          adsRequest: ADSRequestTemplate = ADSRequestTemplate(), cdn: CDNPrefixes = .none,
                          bumpers: Bool = false, preroll: LivePreroll? = nil, prefetchWindow: Double = 0,
                          ledger: (any BeaconLedger)? = nil, liveStore: (any LiveViewerStore)? = nil, cmaf: Bool = false,
                          dash: Bool = false, availRetirement: MediaTime? = nil, sourcePath: String? = nil,
                          subtitles: Bool = false, secondLanguage: Bool = false, aes128: LiveOriginAES128? = nil,
                          textInMP4: LiveOriginDASH.TextFormat? = nil, sampleEncryption: LiveOriginSampleEncryption? = nil,
                          dashSecondPeriodAt: Int? = nil) async throws -> Rig {
            try await offPool {
                try Rig(breaks: breaks, seconds: seconds, clock: clock, initial: initial, vast: vast, adsTemplate: adsTemplate, sizes: sizes,
                        faults: faults, personalizationThreshold: personalizationThreshold, availSuppression: availSuppression,
                        adsRequest: adsRequest, cdn: cdn, bumpers: bumpers, preroll: preroll, prefetchWindow: prefetchWindow, ledger: ledger,
                        liveStore: liveStore, cmaf: cmaf, dash: dash, availRetirement: availRetirement, sourcePath: sourcePath,
                        subtitles: subtitles, secondLanguage: secondLanguage, aes128: aes128, textInMP4: textInMP4, sampleEncryption: sampleEncryption,
                        dashSecondPeriodAt: dashSecondPeriodAt)
            }
        }

        /// `vast`: what the ad server answers (default: the two-ad pod); `adsTemplate`: another
        /// tag; `faults`: what the origin does wrong (`LiveOriginFault`); `sourcePath`: the
        /// origin's path the channel follows when not its default.
        private init(breaks: [LiveOriginBreak], seconds: Int, clock: LiveOrigin.Clock, initial: Int?,
                     vast: HTTPTestServer.Response?, adsTemplate: String?, sizes: [PixelSize], faults: [LiveOriginFault],
                     personalizationThreshold: MediaTime?, availSuppression: AvailSuppression?, adsRequest: ADSRequestTemplate,
                     cdn: CDNPrefixes, bumpers: Bool, preroll: LivePreroll?, prefetchWindow: Double, ledger: (any BeaconLedger)?,
                     liveStore: (any LiveViewerStore)?, cmaf: Bool, dash: Bool, availRetirement: MediaTime?, sourcePath: String?,
                     subtitles: Bool, secondLanguage: Bool, aes128: LiveOriginAES128?, textInMP4: LiveOriginDASH.TextFormat?,
                     sampleEncryption: LiveOriginSampleEncryption?, dashSecondPeriodAt: Int?) throws {
            origin = try LiveOrigin(media: try LiveOriginMedia.make(sizes: sizes, seconds: seconds), breaks: breaks, windowSize: 5, clock: clock,
                                    initialSegments: initial, faults: faults, cmaf: cmaf, dash: dash, subtitles: subtitles,
                                    secondLanguage: secondLanguage, aes128: aes128, textInMP4: textInMP4, sampleEncryption: sampleEncryption,
                                    dashSecondPeriodAt: dashSecondPeriodAt)
            let source = origin.url(sourcePath ?? (dash ? "/live.mpd" : sizes.count > 1 ? "/master.m3u8" : "/live.m3u8"))
            let server = try HTTPTestServer()
            let urls = ["/a7.mp4", "/a8.mp4"].map { server.url($0) }
            server.route("/a7.mp4", HTTPTestServer.Response(headers: ["Content-Type": "video/mp4"], body: try Data(contentsOf: try ServeLiveSessionTests.ad(7))))
            server.route("/a8.mp4", HTTPTestServer.Response(headers: ["Content-Type": "video/mp4"], body: try Data(contentsOf: try ServeLiveSessionTests.ad(8))))
            server.route("/vast.xml", vast ?? HTTPTestServer.Response(body: ServeLiveSessionTests.pod(media: urls, tracker: server.url("/t"))))
            ads = server
            // bumpers: a 2 s start bumper (source 11) and a 1 s end bumper (source 12), warmed like the ads
            var bumperURLs: [String] = []
            if bumpers {
                for (path, source, seconds) in [("/b11.mp4", 11, 2.0), ("/b12.mp4", 12, 1.0)] {
                    let clip = try TestMedia.clip(sourceID: source, width: 320, height: 180, fps: 30, seconds: seconds, gop: 30)
                    server.route(path, HTTPTestServer.Response(headers: ["Content-Type": "video/mp4"], body: try Data(contentsOf: clip)))
                    bumperURLs.append(server.url(path))
                }
            }
            adURLs = urls + bumperURLs
            root = StoreFixture.folder("live")
            var o = StoreOptions(root: root, contents: [:])
            o.segmentTarget = MediaTime(seconds: 2)
            store = try MediaStore(options: o)
            let box = log
            let serveLog = ServeLog { box.append($0) }
            channels = try LiveChannels([("ch", source)], folder: root, media: store, timeout: 5, log: serveLog, fleet: liveStore)
            var config = ServeConfig()
            config.port = 0
            config.lives = [ContentSource(name: "ch", source: source)]
            config.adsTemplate = adsTemplate ?? ads.url("/vast.xml") + "?d=[session.avail_duration_secs]&s=[session.id]&e=[scte.event_id]"
            config.threads = 4
            config.liveSegmentTarget = 2
            config.adsTimeout = 2
            config.personalizationThreshold = personalizationThreshold
            config.availSuppression = availSuppression
            config.adsRequest = adsRequest
            config.cdn = cdn
            if bumpers { config.bumpers = try Bumpers(start: adURLs[2], end: adURLs[3]) }
            config.livePreroll = preroll
            config.livePrefetchWindow = prefetchWindow
            if let availRetirement { config.liveAvailRetirement = availRetirement }
            service = ServeService(config: config, media: store, beacons: BeaconSender(timeout: 3), ledger: ledger, live: channels, log: serveLog,
                                   liveStore: liveStore)
            port = try service.start()
        }

        func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }
        var channel: LiveChannel { channels.channels["ch"]! }

        /// The origin-fault lines logged, by kind.
        var loggedFaults: [String: Int] {
            var out: [String: Int] = [:]
            for line in log.all {
                guard let o = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
                      o["event"] as? String == "live_origin_fault", let kind = o["kind"] as? String else { continue }
                out[kind, default: 0] += 1
            }
            return out
        }

        /// The ads transcoded to the channel's rung before the first break (a first break would
        /// otherwise be slate while they transcode, as in the field).
        @discardableResult
        func warm() async throws -> [LiveRung] {
            try await channel.poll()
            guard let rungs = await channels.rungs(of: "ch") else { throw StoreFixtureError.unknown("no live rung") }
            for rung in rungs {
                for u in adURLs {
                    guard case .ready = try await ServeStoreAdTests.settled(store, u, rung.rendition.name) else {
                        throw StoreFixtureError.unknown("ad \(u) not ready")
                    }
                }
            }
            return rungs
        }

        func stop() {
            let s = service
            Thread.detachNewThread { s.stop(grace: 1) }
            origin.stop(); ads.stop()
            if ProcessInfo.processInfo.environment["KEEP_LIVE_ROOT"] == nil { try? FileManager.default.removeItem(at: root) }
        }
    }

    /// One playlist entry.
    struct Entry: Equatable { var sequence: Int; var uri: String; var duration: String; var tags: [String] }

    /// The entries of a live media playlist, numbered from its media sequence.
    static func entries(_ text: String) -> [Entry] {
        var out: [Entry] = []
        var sequence = 0, tags: [String] = [], duration = ""
        for line in text.split(separator: "\n").map(String.init) {
            if line.hasPrefix("#EXT-X-MEDIA-SEQUENCE:") { sequence = Int(line.dropFirst(22)) ?? 0 }
            else if line.hasPrefix("#EXTINF:") { duration = String(line.dropFirst(8).dropLast()) }
            else if line.hasPrefix("#EXT-X-DISCONTINUITY-SEQUENCE") || line.hasPrefix("#EXTM3U") || line.hasPrefix("#EXT-X-VERSION")
                        || line.hasPrefix("#EXT-X-TARGETDURATION") { continue }
            else if line.hasPrefix("#") { tags.append(line) }
            else if !line.isEmpty { out.append(Entry(sequence: sequence + out.count, uri: line, duration: duration, tags: tags)); tags = [] }
        }
        return out
    }

    /// Follows the viewer's playlist as a player does: after each of `steps` new origin segments,
    /// the playlist, and every segment new in it downloaded at once (an entry must never change
    /// between refreshes). Returns the entries by media sequence and a local VOD playlist over
    /// the downloaded files (their DISCONTINUITY tags kept).
    /// `others`: more viewers' playlists, refreshed at each step too (their entries in `others`).
    /// `stride`: origin segments between two refreshes.
    static func follow(_ rig: Rig, playlist: String, steps: Int, into folder: URL, others: [String] = [],
                       stride: Int = 1) async throws -> (entries: [Entry], playlist: URL, files: [URL], others: [[Entry]]) {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var seen: [Int: Entry] = [:]
        var files: [Int: URL] = [:]
        var otherSeen: [[Int: Entry]] = others.map { _ in [:] }
        for step in 0...steps {
            for (i, o) in others.enumerated() {
                for e in entries(try await curl(rig.url(o)).text) { otherSeen[i][e.sequence] = otherSeen[i][e.sequence] ?? e }
            }
            let text = try await curl(rig.url(playlist)).text
            #expect(text.hasPrefix("#EXTM3U") && (!text.contains("#EXT-X-ENDLIST") || rig.origin.window.ended), "step \(step): \(text.prefix(200))")
            for e in entries(text) {
                if let old = seen[e.sequence] { #expect(old.uri == e.uri, "media sequence \(e.sequence) changed between refreshes"); continue }
                seen[e.sequence] = e
                let r = try await curl(rig.url(e.uri))
                #expect(r.status == 200, "\(e.uri): \(r.status)")
                let file = folder.appendingPathComponent("s\(e.sequence).ts")
                try r.body.write(to: file)
                files[e.sequence] = file
            }
            for _ in 0..<stride { rig.origin.advance() }
            try await rig.channel.poll()
        }
        let ordered = seen.keys.sorted().map { seen[$0]! }
        #expect(ordered.map(\.sequence) == Array((ordered.first?.sequence ?? 0)...(ordered.last?.sequence ?? -1)), "no gap in the media sequence")
        var lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:3", "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:VOD"]
        for (i, e) in ordered.enumerated() {
            if i > 0 && e.tags.contains("#EXT-X-DISCONTINUITY") { lines.append("#EXT-X-DISCONTINUITY") }
            lines += ["#EXTINF:\(e.duration),", "s\(e.sequence).ts"]
        }
        lines.append("#EXT-X-ENDLIST")
        let url = folder.appendingPathComponent("index.m3u8")
        try (lines.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
        return (ordered, url, ordered.compactMap { files[$0.sequence] }, otherSeen.map { o in o.keys.sorted().map { o[$0]! } })
    }

    /// What a decoded frame shows: content frame n, ad (source, n), slate.
    enum Shown: Equatable, CustomStringConvertible {
        case content(Int), ad(Int, Int), slate, unknown
        var description: String {
            switch self { case .content(let n): "c\(n)"; case .ad(let s, let n): "a\(s):\(n)"; case .slate: "slate"; case .unknown: "?" }
        }
    }

    /// What each decoded frame shows; and that presentation times only rise (a player drops
    /// or complains at a frame earlier than the one before: an item longer than its EXTINF).
    /// Decoded off the pool (a minute of frames).
    static func shown(_ url: URL, contentSource: Int) async throws -> [Shown] {
        let frames = try await offPool { try MediaVerifier.videoFrames(url, reader: IdentityReader(output: PixelSize(width: 320, height: 180), sources: [])) }
        for i in frames.indices.dropFirst() {
            if let a = frames[i - 1].pts, let b = frames[i].pts, b <= a {
                Issue.record("frame \(i) at \(b.seconds) s after frame \(i - 1) at \(a.seconds) s")
                break
            }
        }
        return frames.map { f in
            if f.isBlack { return .slate }
            guard let id = f.identity else { return .unknown }
            return id.sourceID == contentSource ? .content(id.frameIndex) : .ad(id.sourceID, id.frameIndex)
        }
    }

    /// A/V at each flash of what a viewer was sent (`url`, its local playlist): the beep's onset
    /// less the flash's time, split into the flashes on the first picture after a change of
    /// encode (`transitions`, seconds) and all others. In MPEG-TS an AAC frame decodes right
    /// only after its own predecessor (the transform's halves overlap): the first frame after
    /// another encode's, at a join or at the origin segment after a cut piece, fades in over
    /// part of a frame, so a sound starting right there is heard up to a frame late.
    static func sync(_ url: URL, transitions: [Double]) async throws -> (atTransitions: [Double?], others: [Double?]) {
        let frames = try await offPool { try MediaVerifier.videoFrames(url, reader: IdentityReader(output: PixelSize(width: 320, height: 180), sources: [])) }
        let onsets = try await MediaVerifier.beepOnsets(url)
        var at: [Double?] = [], others: [Double?] = []
        // not the stream's first picture: not a join, and its beep starts inside the origin's
        // AAC priming frame, whose pre-echo reads 8 ms early
        for f in frames.dropFirst() where f.isFlash {
            guard let t = f.seconds else { continue }
            let o = MediaVerifier.syncOffsets(flashTimes: [t], beepOnsets: onsets)[0]
            if transitions.contains(where: { abs($0 - t) < 0.5 / 30 }) { at.append(o) } else { others.append(o) }
        }
        return (at, others)
    }

    /// The first picture's time (seconds) of each of `files` (a viewer's segments, `entries` their
    /// playlist entries) whose sound is another encode than the segment's before it: a cut piece,
    /// the first segment of an ad or of slate, an origin segment after any of them.
    static func encodeTransitions(_ entries: [Entry], files: [URL]) throws -> [Double] {
        func encode(_ uri: String) -> String {
            let path = String(uri.split(separator: "?")[0])
            if path.contains("/cuts/") { return path }
            if path.contains("/ads/") || path.contains("/slate") { return String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]) }
            return "origin"
        }
        return try entries.indices.dropFirst().filter { encode(entries[$0].uri) != encode(entries[$0 - 1].uri) || entries[$0].uri.contains("/cuts/") }
            .compactMap { i in TSTimestamps.firstVideoPTS(try Data(contentsOf: files[i])).map(\.seconds) }
    }

    /// What the viewer must see over `breaks` from content frame `first` to `last` (exclusive),
    /// given the pod each break gets: [(ad source, frames)] then slate up to the end.
    static func expected(from first: Int, to last: Int, breaks: [(LiveOriginPlacedBreak, [(Int, Int)])]) -> [Shown] {
        var out: [Shown] = []
        var n = first
        for (b, ads) in breaks {
            while n < b.startFrame { out.append(.content(n)); n += 1 }
            var used = 0
            for (source, frames) in ads {
                let take = min(frames, b.endFrame - b.startFrame - used)
                out += (0..<take).map { .ad(source, $0) }
                used += take
            }
            // slate is made at the channel's 30 fps: the rest of the break in its frames
            out += Array(repeating: .slate, count: max(0, b.endFrame - b.startFrame - used))
            n = b.endFrame
        }
        while n < last { out.append(.content(n)); n += 1 }
        return out
    }

    /// Starts a session on the channel; the top variant playlist's path.
    static func startSession(_ rig: Rig) async throws -> String? { try await startSessionVariants(rig).first }

    /// Starts a session on the channel; its variant playlists' paths, top first.
    static func startSessionVariants(_ rig: Rig) async throws -> [String] {
        let created = try await curl(rig.url("/v1/session/ch"), method: "POST", body: "{}")
        #expect(created.status == 200, "\(created.text)")
        guard let manifest = created.json?["manifestUrl"] as? String else { Issue.record("no manifestUrl: \(created.text)"); return [] }
        let master = try await curl(rig.url(manifest)).text
        #expect(master.contains("RESOLUTION=320x180") && master.contains("CODECS=\"avc1."), "\(master)")
        return master.split(separator: "\n").filter { $0.hasPrefix("/v1/sessions/") }.map(String.init)
    }

    /// Checks `shown` against `want`, reporting the first difference.
    static func compare(_ shown: [Shown], _ want: [Shown]) {
        #expect(shown.count == want.count, "frames shown \(shown.count), expected \(want.count)")
        if let i = (0..<min(shown.count, want.count)).first(where: { shown[$0] != want[$0] }) {
            Issue.record("frame \(i): shown \(shown[max(0, i - 2)..<min(shown.count, i + 3)]), expected \(want[max(0, i - 2)..<min(want.count, i + 3)])")
        }
    }

    /// A multivariant source: two rungs, each with its own ad transcodes and slate, the same
    /// frames in both (a player switching rungs at any segment sees one stream).
    @Test func everyRungOfAMultivariantChannelHasTheSameBreak() async throws {
        let rig = try await Rig.start(breaks: [LiveOriginBreak(start: .frame(377), duration: MediaTime(seconds: 6), signal: .dateRange(.spliceInsert))],
                          sizes: [PixelSize(width: 320, height: 180), PixelSize(width: 160, height: 90)])
        defer { rig.stop() }
        let rungs = try await rig.warm()
        #expect(rungs.map { "\($0.info.width)x\($0.info.height)" } == ["320x180", "160x90"])
        let variants = try await Self.startSessionVariants(rig)
        #expect(variants.count == 2, "\(variants)")
        guard variants.count == 2 else { return }
        // both rungs followed at once, as an ABR player's refreshes would
        var entries: [[Entry]] = [[], []], seen: [[Int: Entry]] = [[:], [:]]
        for _ in 0...8 {
            for r in 0..<2 {
                for e in Self.entries(try await curl(rig.url(variants[r])).text) where seen[r][e.sequence] == nil { seen[r][e.sequence] = e; entries[r].append(e) }
            }
            rig.origin.advance()
            try await rig.channel.poll()
        }
        #expect(entries[0].map(\.duration) == entries[1].map(\.duration), "the same items in both rungs")
        #expect(entries[0].map { $0.tags.filter { !$0.hasPrefix("#EXT-X-PROGRAM-DATE-TIME") } } == entries[1].map { $0.tags.filter { !$0.hasPrefix("#EXT-X-PROGRAM-DATE-TIME") } })
        let small = entries[1].filter { $0.uri.contains("/ads/") || $0.uri.contains("/slate/") || $0.uri.contains("/cuts/") }
        #expect(!small.isEmpty && small.allSatisfy { $0.uri.contains("/ch-v1/") || $0.uri.contains("/ch-v1-") || $0.uri.contains("/live/\(rig.channel.storeName)/v1/") }, "the small rung's ads, slate and cuts are its own: \(small.map(\.uri))")
        #expect(rig.ads.requests.filter { $0.target.hasPrefix("/vast.xml") }.count == 1, "one ad request for the break, whatever the rungs")
    }

    /// A viewer refreshing once every three origin segments (a player whose target duration is
    /// the ads' 6 s over a 2 s origin) first sees a break when its start is already seconds below
    /// what may be published: the break waits for the ad server's answer instead of publishing
    /// slate at once, and its ads (transcoded already) fill it whole.
    @Test func aBreakSeenLateIsFilledWithItsReadyAds() async throws {
        let rig = try await Rig.start(breaks: [LiveOriginBreak(start: .segment(8), duration: MediaTime(seconds: 8), signal: .dateRange(.spliceInsert))])
        defer { rig.stop() }
        try await rig.warm()
        guard let variant = try await Self.startSession(rig) else { return }
        let (_, local, _, _) = try await Self.follow(rig, playlist: variant, steps: 8, into: rig.root.appendingPathComponent("late"), stride: 3)
        let shown = try await Self.shown(local, contentSource: rig.origin.media.sourceID)
        guard case .content(let first)? = shown.first, case .content(let last)? = shown.last else { Issue.record("not content at both ends"); return }
        Self.compare(shown, Self.expected(from: first, to: last + 1, breaks: [(rig.origin.breaks[0], [(7, 120), (8, 120)])]))
        let metrics = try await curl(rig.url("/metrics")).text
        #expect(metrics.contains("interlude_live_fill_rate 1"), "\(metrics.split(separator: "\n").filter { $0.contains("fill") })")
    }

    /// An ad server asked by POST (`--ads-method POST`): each live break's request carries the
    /// JSON body with the session's and the break's values (`[scte.event_id]` from the in-band
    /// splice_insert), the configured header, and the answer fills the break.
    @Test func aLiveBreakAsksTheAdServerByPOST() async throws {
        let template = try ADSRequestTemplate(method: .post, headers: [.init(name: "X-Api-Key", value: "k1")],
                                              body: #"{"session": "[session.id]", "event": "[scte.event_id]", "avail": [session.avail_duration_secs]}"#)
        let rig = try await Rig.start(breaks: [LiveOriginBreak(start: .segment(8), duration: MediaTime(seconds: 8), signal: .dateRange(.spliceInsert))],
                                      adsTemplate: nil, adsRequest: template)
        defer { rig.stop() }
        try await rig.warm()
        guard let variant = try await Self.startSession(rig) else { return }
        let (_, local, _, _) = try await Self.follow(rig, playlist: variant, steps: 8, into: rig.root.appendingPathComponent("post"), stride: 3)
        let shown = try await Self.shown(local, contentSource: rig.origin.media.sourceID)
        guard case .content(let first)? = shown.first, case .content(let last)? = shown.last else { Issue.record("not content at both ends"); return }
        Self.compare(shown, Self.expected(from: first, to: last + 1, breaks: [(rig.origin.breaks[0], [(7, 120), (8, 120)])]))
        let asked = rig.ads.requests.filter { $0.path == "/vast.xml" }
        #expect(asked.count == 1 && asked.allSatisfy { $0.method == "POST" }, "\(asked.map { "\($0.method) \($0.target)" })")
        let request = try #require(asked.first)
        #expect(request.headers["x-api-key"] == "k1" && request.headers["content-type"] == "application/json", "\(request.headers)")
        let body = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any], "\(String(decoding: request.body, as: UTF8.self))")
        #expect(body["event"] as? String == String(rig.origin.breaks[0].eventID) && body["avail"] as? Int == 8, "\(body)")
        #expect((body["session"] as? String)?.isEmpty == false)
    }

    /// A CDN in front: the live playlist's content pieces under the content prefix, its ad and
    /// slate segments under the ad prefix, on every refresh.
    @Test func aLivePlaylistGivesSegmentsUnderTheCDNPrefixes() async throws {
        let cdn = try CDNPrefixes(content: "https://cdn.example.com", ads: "https://ads-cdn.example.com")
        let rig = try await Rig.start(breaks: [LiveOriginBreak(start: .segment(6), duration: MediaTime(seconds: 4), signal: .dateRange(.spliceInsert))],
                                      cdn: cdn)
        defer { rig.stop() }
        try await rig.warm()
        guard let variant = try await Self.startSession(rig) else { return }
        var seen: Set<String> = []
        for _ in 0..<10 {
            rig.origin.advance()
            try await rig.channel.poll()
            let uris = try await curl(rig.url(variant)).text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
            seen.formUnion(uris)
            #expect(uris.allSatisfy { $0.hasPrefix("https://cdn.example.com/v1/segments/live/") || $0.hasPrefix("https://cdn.example.com/v1/segments/cuts/")
                || $0.hasPrefix("https://ads-cdn.example.com/v1/segments/ads/") || $0.hasPrefix("https://ads-cdn.example.com/v1/segments/slate/") }, "\(uris)")
        }
        #expect(seen.contains { $0.contains("/v1/segments/ads/") } && seen.contains { $0.contains("/v1/segments/live/") }, "\(seen.sorted())")
    }

    /// Bumpers (MediaTailor's): in a 12 s break, the 2 s start bumper first, the two 4 s ads,
    /// slate, and the 1 s end bumper ending at the break's end, frame for frame; no beacon of
    /// the bumpers (they have none), the ads' as before.
    @Test func bumpersOpenAndCloseALiveBreak() async throws {
        let rig = try await Rig.start(breaks: [LiveOriginBreak(start: .segment(8), duration: MediaTime(seconds: 12), signal: .dateRange(.spliceInsert))],
                                      bumpers: true)
        defer { rig.stop() }
        try await rig.warm()
        guard let variant = try await Self.startSession(rig) else { return }
        let (_, local, _, _) = try await Self.follow(rig, playlist: variant, steps: 11, into: rig.root.appendingPathComponent("bumpers"), stride: 2)
        let shown = try await Self.shown(local, contentSource: rig.origin.media.sourceID)
        guard case .content(let first)? = shown.first, case .content(let last)? = shown.last else { Issue.record("not content at both ends"); return }
        let b = rig.origin.breaks[0]
        var want: [Shown] = (first..<b.startFrame).map { .content($0) }
        want += (0..<60).map { .ad(11, $0) } + (0..<120).map { .ad(7, $0) } + (0..<120).map { .ad(8, $0) }
        want += Array(repeating: .slate, count: b.endFrame - b.startFrame - 330) + (0..<30).map { .ad(12, $0) }
        want += (b.endFrame...last).map { .content($0) }
        Self.compare(shown, want)
    }

    /// A live pre-roll of at most 5 s (MediaTailor's): the session starts with the answer's ads
    /// that fit (ad 7's 4 s; ad 8 does not fit in the second left), then the channel from the
    /// viewer's first frame, every content frame once; the pre-roll asked once with its length,
    /// marked as a break, and its beacons fired when its segments are fetched.
    @Test func aLiveSessionStartsWithItsPreroll() async throws {
        let rig = try await Rig.start(breaks: [], preroll: LivePreroll(maxDuration: MediaTime(seconds: 5)))
        defer { rig.stop() }
        try await rig.warm()
        guard let variant = try await Self.startSession(rig) else { return }
        let (entries, local, _, _) = try await Self.follow(rig, playlist: variant, steps: 6, into: rig.root.appendingPathComponent("preroll"))
        #expect(entries.first?.tags.contains { $0.hasPrefix("#EXT-X-CUE-OUT:DURATION=4") } == true, "\(entries.first.map { $0.tags } ?? [])")
        let shown = try await Self.shown(local, contentSource: rig.origin.media.sourceID)
        guard shown.count > 120, case .content(let first) = shown[120], case .content(let last)? = shown.last else {
            Issue.record("not the pre-roll then content: \(shown.prefix(3)) … \(shown.suffix(3))"); return
        }
        Self.compare(shown, (0..<120).map { .ad(7, $0) } + (first...last).map { .content($0) })
        let asked = rig.ads.requests.filter { $0.path == "/vast.xml" }.map(\.target)
        #expect(asked.count == 1 && asked.first?.hasPrefix("/vast.xml?d=5&") == true, "\(asked)")
        #expect(await eventually(10) { rig.ads.requests.contains { $0.target == "/t/imp?ad=ad1" } }, "the pre-roll ad's impression")
        #expect(!rig.ads.requests.contains { $0.target.hasPrefix("/t/imp?ad=ad2") }, "ad 2 did not play")
    }

    /// With a ledger every node shares (Redis, as `--redis` sets it), a live viewer claims its
    /// beacons there too: the pre-roll ad's impression, which another node already fired for this
    /// session, is not fired again; its other beacons fire once.
    @Test func aLiveBeaconAnotherNodeFiredIsNotFiredAgain() async throws {
        let redis = try RedisProcess()
        defer { redis.stop() }
        let ledger = RedisBeaconLedger(client: try RedisClient(redis.url), ttl: 3600)
        let rig = try await Rig.start(breaks: [], preroll: LivePreroll(maxDuration: MediaTime(seconds: 5)), ledger: ledger)
        defer { rig.stop() }
        try await rig.warm()
        guard let variant = try await Self.startSession(rig) else { return }
        let id = String(variant.dropFirst("/v1/sessions/".count).prefix { $0 != "/" })
        #expect(ledger.claim(["live/0/0/impression"], session: id) == ["live/0/0/impression"], "another node fires the impression")
        _ = try await Self.follow(rig, playlist: variant, steps: 6, into: rig.root.appendingPathComponent("shared-ledger"))
        #expect(await eventually(10) { rig.ads.requests.contains { $0.target == "/t/complete?ad=ad1" } }, "the pre-roll ad's completion")
        #expect(rig.ads.requests.filter { $0.target == "/t/start?ad=ad1" }.count == 1)
        #expect(rig.ads.requests.filter { $0.target == "/t/complete?ad=ad1" }.count == 1)
        #expect(!rig.ads.requests.contains { $0.target == "/t/imp?ad=ad1" }, "the impression another node fired")
        #expect(ledger.claim(["live/0/0/complete"], session: id).isEmpty, "this node's completion is on the shared record")
    }

    /// A live viewer kept in Redis (`RedisLiveViewerStore`): its record holds what it
    /// published, read back whole; records planted in Redis (not JSON, another viewer's id, an
    /// index out of range, a channel not followed, a version never stored) are no session —
    /// a 404, the service unharmed; and a viewer whose record expired is over on this node too.
    @Test func aLiveViewerKeptInRedisAndPlantedRecordsRefused() async throws {
        let redis = try RedisProcess()
        defer { redis.stop() }
        let store = RedisLiveViewerStore(client: try RedisClient(redis.url), ttl: 60)
        let rig = try await Rig.start(breaks: [], liveStore: store)
        defer { rig.stop() }
        try await rig.warm()
        guard let variant = try await Self.startSession(rig) else { return }
        let id = String(variant.dropFirst("/v1/sessions/".count).prefix { $0 != "/" })
        let text = try await curl(rig.url(variant)).text
        let kept = try #require(try store.load(id), "the viewer is not in redis")
        // the version's line, then the JSON
        let head = try #require(kept.firstIndex(of: 10))
        let data = kept[(head + 1)...]
        let record = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(String(decoding: kept[..<head], as: UTF8.self) == "\(record["version"] as? Int ?? -1)")
        let state = try #require(record["state"] as? [String: Any])
        let tracks = try #require(state["tracks"] as? [String: Any])
        #expect(record["version"] as? Int ?? 0 >= 2 && record["channel"] as? String == "ch" && tracks.count == 1, "\(record.keys.sorted())")
        // the playlist kept is the one served
        let playlists = try JSONDecoder().decode([String: LiveRecordTrack].self, from: JSONSerialization.data(withJSONObject: tracks))
        #expect(playlists.values.first?.playlist.text == text)

        func planted(_ change: (inout [String: Any]) -> Void) throws -> Data {
            var o = record
            change(&o)
            return Data("\(o["version"] as? Int ?? 0)\n".utf8) + (try JSONSerialization.data(withJSONObject: o))
        }
        let cases: [(String, (String) throws -> Data)] = [
            ("not JSON", { _ in Data("{\"v\": 1, \"id\": ".utf8) }),
            ("another viewer's id", { _ in try planted { _ in } }),
            ("an index out of range", { fake in try planted { o in
                o["id"] = fake
                var st = o["state"] as! [String: Any]
                st["prerollAvail"] = 99
                o["state"] = st
            } }),
            ("a channel not followed", { fake in try planted { o in o["id"] = fake; o["channel"] = "elsewhere" } }),
            ("a version never stored", { fake in try planted { o in o["id"] = fake; o["version"] = 0 } }),
            ("a head that is not its version", { fake in Data("7".utf8) + (try planted { o in o["id"] = fake }) }),
        ]
        for (what, make) in cases {
            let fake = ServeSession.newID()
            try store.save(fake, try make(fake))
            let r = try await curl(rig.url("/v1/sessions/\(fake)/master.m3u8"))
            #expect(r.status == 404, "\(what): \(r.status) \(r.text.prefix(100))")
        }
        #expect(try await curl(rig.url("/health")).status == 200)
        // expired in redis (the session's idle timeout, on every node): over here too
        _ = try store.client.command("DEL", RedisLiveViewerStore.key(id))
        #expect(try await curl(rig.url(variant)).status == 404)
    }

    /// A break long over (here 2 s after it ended, behind the oldest segment the playlist lists;
    /// 10 minutes by default) keeps only its place in the viewer's record: its ads, pod and fired
    /// beacons dropped (the record stays bounded however long a session plays), gone from the
    /// tracking JSON; the break still in the window keeps everything.
    @Test func aBreakLongOverKeepsOnlyItsPlace() async throws {
        let redis = try RedisProcess()
        defer { redis.stop() }
        let store = RedisLiveViewerStore(client: try RedisClient(redis.url), ttl: 60)
        let rig = try await Rig.start(breaks: [
            LiveOriginBreak(start: .frame(377), duration: MediaTime(seconds: 6), signal: .dateRange(.spliceInsert)),
            LiveOriginBreak(start: .segment(16), duration: MediaTime(seconds: 6), signal: .cueOut),
        ], liveStore: store, availRetirement: MediaTime(seconds: 2))
        defer { rig.stop() }
        try await rig.warm()
        guard let variant = try await Self.startSession(rig) else { return }
        let id = String(variant.dropFirst("/v1/sessions/".count).prefix { $0 != "/" })
        _ = try await Self.follow(rig, playlist: variant, steps: 20, into: rig.root.appendingPathComponent("retire"))
        let kept = try #require(try store.load(id))
        let head = try #require(kept.firstIndex(of: 10))
        let record = try #require(try JSONSerialization.jsonObject(with: kept[(head + 1)...]) as? [String: Any])
        let avails = try #require((record["state"] as? [String: Any])?["avails"] as? [[String: Any]])
        try #require(avails.count == 2, "\(avails.count) avails")
        #expect(avails[0]["retired"] as? Bool == true && (avails[0]["ads"] as? [Any])?.isEmpty == true && avails[0]["pod"] == nil,
                "the first break keeps only its place: \(avails[0].keys.sorted())")
        #expect(avails[1]["retired"] as? Bool == false && (avails[1]["ads"] as? [Any])?.count == 2, "the second keeps its ads")
        let fired = (record["state"] as? [String: Any])?["fired"] as? [String] ?? []
        #expect(!fired.isEmpty && fired.allSatisfy { $0.hasPrefix("1/") }, "only the second break's beacons kept: \(fired)")
        #expect(rig.ads.requests.contains { $0.target == "/t/complete?ad=ad1" }, "the first break's beacons fired before it retired")
        let tracking = try await curl(rig.url("/v1/sessions/\(id)/tracking")).json
        #expect((tracking?["avails"] as? [[String: Any]])?.count == 1, "\(tracking ?? [:])")
    }

    /// Live ad prefetch: a break announced 4 segments ahead (8 s of lead) has 16 viewers' ad
    /// requests spread over the 4 s window (a share of it per session) rather than all at once,
    /// every answer in before the break is due (fill rate 1: no viewer got slate).
    @Test func aBreakSignalledAheadHasItsAdRequestsSpread() async throws {
        var ahead = LiveOriginBreak(start: .segment(12), duration: MediaTime(seconds: 8), signal: .dateRange(.spliceInsert))
        ahead.signalledAhead = 4
        let rig = try await Rig.start(breaks: [ahead], seconds: 60, initial: 6, prefetchWindow: 4)
        defer { rig.stop() }
        try await rig.warm()
        var variants: [String] = []
        for _ in 0..<16 { if let v = try await Self.startSession(rig) { variants.append(v) } }
        #expect(variants.count == 16)
        var last: [String] = []
        for _ in 0..<12 {
            rig.origin.advance()
            try await rig.channel.poll()
            last = []
            for v in variants { last.append(try await curl(rig.url(v)).text) }
            try await Task.sleep(nanoseconds: 1_000_000_000)
        }
        let times = rig.ads.requests.filter { $0.path == "/vast.xml" }.map(\.receivedAt).sorted()
        #expect(times.count == 16, "one request per viewer: \(times.count)")
        if let first = times.first, let latest = times.last {
            #expect(latest - first >= 1.5 && latest - first <= 4.5, "spread over \(latest - first) s")
        }
        #expect(last.allSatisfy { $0.contains("/v1/segments/ads/") }, "every viewer's break has its ads")
        let metrics = try await curl(rig.url("/metrics")).text
        #expect(metrics.contains("interlude_live_fill_rate 1") && metrics.contains("interlude_live_ads_request_delay_seconds_count 16"),
                "\(metrics.split(separator: "\n").filter { $0.contains("fill_rate") || $0.contains("delay_seconds_count") })")
    }

    @Test func aViewerJoiningMidBreakSeesTheRestOfIt() async throws {
        // a 10 s break from frame 377; the viewer joins when the origin's window starts at
        // segment 8 (frame 480): 197 frames (6.567 s) are left, asked as 7 s: ad 7 fits, ad 8 not
        let rig = try await Rig.start(breaks: [LiveOriginBreak(start: .frame(377), duration: MediaTime(seconds: 10), signal: .dateRange(.spliceInsert))],
                          initial: 13)
        defer { rig.stop() }
        try await rig.warm()
        guard let variant = try await Self.startSession(rig) else { return }
        let (entries, local, _, _) = try await Self.follow(rig, playlist: variant, steps: 8, into: rig.root.appendingPathComponent("joiner"))
        #expect(entries.first?.tags.contains { $0.hasPrefix("#EXT-X-CUE-OUT:DURATION=6.567") } == true, "\(entries.first.map { $0.tags } ?? [])")
        let shown = try await Self.shown(local, contentSource: rig.origin.media.sourceID)
        guard case .content(let last)? = shown.last else { Issue.record("the joiner does not end on content"); return }
        var want: [Shown] = (0..<120).map { .ad(7, $0) } + Array(repeating: .slate, count: 77)
        want += (677...last).map { .content($0) }
        Self.compare(shown, want)
        #expect(rig.ads.requests.contains { $0.target.hasPrefix("/vast.xml?d=7&") }, "the rest of the break asked for: \(rig.ads.requests.map(\.target))")
    }

    /// No fill in every form the field answers (an empty VAST, a 204, a 404, a dead server): the
    /// break is slate, content comes back at its end frame, nothing fires.
    @Test(arguments: ["empty", "204", "404", "dead"])
    func aBreakWithoutAdsIsSlateAndContentComesBack(_ answer: String) async throws {
        let vast: HTTPTestServer.Response
        switch answer {
        case "empty": vast = HTTPTestServer.Response(body: "<VAST version=\"4.1\"/>")
        case "204": vast = HTTPTestServer.Response(status: 204, body: "")
        default: vast = HTTPTestServer.Response(status: 404, body: "no")
        }
        let rig = try await Rig.start(breaks: [LiveOriginBreak(start: .frame(377), duration: MediaTime(seconds: 4), signal: .inBand(.spliceInsert))],
                          vast: vast, adsTemplate: answer == "dead" ? "http://127.0.0.1:9/vast.xml" : nil)
        defer { rig.stop() }
        try await rig.warm()
        guard let variant = try await Self.startSession(rig) else { return }
        let (_, local, _, _) = try await Self.follow(rig, playlist: variant, steps: 8, into: rig.root.appendingPathComponent("nofill"))
        let shown = try await Self.shown(local, contentSource: rig.origin.media.sourceID)
        guard case .content(let first)? = shown.first, case .content(let last)? = shown.last else { Issue.record("not content at the ends"); return }
        let want = (first..<377).map { Shown.content($0) } + Array(repeating: .slate, count: 120) + (497...last).map { .content($0) }
        Self.compare(shown, want)
        let metrics = try await curl(rig.url("/metrics")).text
        #expect(metrics.contains("interlude_live_fill_rate 0.0"), "\(metrics)")
        #expect(!rig.ads.requests.contains { $0.target.hasPrefix("/t/") }, "no beacon")
        if answer != "dead" {
            // [scte.event_id]: the in-band splice_insert's splice_event_id
            let eventID = rig.origin.breaks[0].eventID
            #expect(rig.ads.requests.contains { $0.target.hasPrefix("/vast.xml?") && $0.target.hasSuffix("&e=\(eventID)") },
                    "\(rig.ads.requests.map(\.target))")
        }
    }

    /// MediaTailor's personalization threshold: a 10 s break whose two 4 s ads leave 2 s
    /// unfilled plays them and 2 s of slate under a 3 s threshold, and the channel's own content,
    /// every frame once, no markers, under a 1 s one; with no fill at all (an empty VAST) the
    /// content plays too.
    @Test(arguments: [("fill", 3.0), ("fill", 1.0), ("empty", 1.0)])
    func aBreakPastThePersonalizationThresholdPlaysTheContent(_ answer: String, _ threshold: Double) async throws {
        let rig = try await Rig.start(breaks: [LiveOriginBreak(start: .frame(377), duration: MediaTime(seconds: 10), signal: .dateRange(.spliceInsert))],
                                      vast: answer == "empty" ? HTTPTestServer.Response(body: "<VAST version=\"4.1\"/>") : nil,
                                      personalizationThreshold: MediaTime(seconds: threshold, timescale: 1_000))
        defer { rig.stop() }
        try await rig.warm()
        guard let variant = try await Self.startSession(rig) else { return }
        let (entries, local, _, _) = try await Self.follow(rig, playlist: variant, steps: 10, into: rig.root.appendingPathComponent("threshold"))
        let shown = try await Self.shown(local, contentSource: rig.origin.media.sourceID)
        guard case .content(let first)? = shown.first, case .content(let last)? = shown.last, last > 677 else {
            Issue.record("not content at both ends past the break: \(shown.first.map { "\($0)" } ?? "nothing") … \(shown.last.map { "\($0)" } ?? "")")
            return
        }
        let fellBack = rig.log.all.contains { $0.contains("\"live_break_content\"") }
        let markers = entries.flatMap(\.tags).filter { $0.hasPrefix("#EXT-X-CUE-OUT") || $0.hasPrefix("#EXT-X-DATERANGE") }
        if answer == "fill" && threshold == 3 {
            Self.compare(shown, Self.expected(from: first, to: last + 1, breaks: [(rig.origin.breaks[0], [(7, 120), (8, 120)])]))
            #expect(!fellBack && !markers.isEmpty)
        } else {
            Self.compare(shown, (first...last).map { .content($0) })
            #expect(fellBack, "logged: \(rig.log.all.suffix(5))")
            #expect(markers.isEmpty, "\(markers)")
            let id = variant.components(separatedBy: "/")[3]   // /v1/sessions/ID/RENDITION.m3u8
            let tracking = try await curl(rig.url("/v1/sessions/\(id)/tracking"))
            #expect(tracking.status == 200)
            #expect(!(tracking.text.contains("\"adId\"")), "no ad tracked: \(tracking.text.prefix(300))")
        }
    }

    /// MediaTailor's avail suppression, for a viewer joining a 10 s break from frame 377 at frame
    /// 480 (the origin's edge at frame 780): `behind-live-edge,0` and `after-live-edge,0` leave
    /// the break to the channel's content (every frame once, no ad request for it);
    /// `after-live-edge,0,partial` fills what is left of it, as without suppression.
    @Test(arguments: ["behind-live-edge,0", "after-live-edge,00:00:00", "after-live-edge,0,partial"])
    func availSuppressionLeavesJoinedBreaksToTheContent(_ option: String) async throws {
        let rig = try await Rig.start(breaks: [LiveOriginBreak(start: .frame(377), duration: MediaTime(seconds: 10), signal: .dateRange(.spliceInsert))],
                                      initial: 13, availSuppression: try AvailSuppression.parse(option))
        defer { rig.stop() }
        try await rig.warm()
        guard let variant = try await Self.startSession(rig) else { return }
        let (_, local, _, _) = try await Self.follow(rig, playlist: variant, steps: 8, into: rig.root.appendingPathComponent("suppressed"))
        let shown = try await Self.shown(local, contentSource: rig.origin.media.sourceID)
        guard case .content(let last)? = shown.last else { Issue.record("the joiner does not end on content"); return }
        let asked = rig.ads.requests.contains { $0.target.hasPrefix("/vast.xml") }
        if option.hasSuffix("partial") {
            Self.compare(shown, (0..<120).map { .ad(7, $0) } + Array(repeating: .slate, count: 77) + (677...last).map { .content($0) })
            #expect(asked)
        } else {
            guard case .content(let first)? = shown.first else { Issue.record("the joiner does not start on content"); return }
            #expect(first == 480)
            Self.compare(shown, (first...last).map { .content($0) })
            #expect(!asked, "no ad request for a suppressed break: \(rig.ads.requests.map(\.target))")
            #expect(rig.log.all.contains { $0.contains("\"live_break_suppressed\"") })
        }
    }

    @Test func aChannelWithoutSegmentsRefusesSessionsInOneLine() async throws {
        let empty = try HTTPTestServer()
        defer { empty.stop() }
        let root = StoreFixture.folder("live-empty")
        defer { try? FileManager.default.removeItem(at: root) }
        let store = try MediaStore(options: StoreOptions(root: root, contents: [:]))
        let channels = try LiveChannels([("ch", empty.url("/live.m3u8"))], folder: root, media: store, timeout: 2)
        var config = ServeConfig()
        config.port = 0
        config.lives = [ContentSource(name: "ch", source: empty.url("/live.m3u8"))]
        config.adsTemplate = empty.url("/vast.xml")
        let service = ServeService(config: config, media: store, live: channels, log: ServeLog { _ in })
        let port = try service.start()
        defer { Thread.detachNewThread { service.stop(grace: 1) } }
        let r = try await curl("http://127.0.0.1:\(port)/v1/session/ch", method: "POST", body: "{}")
        #expect(r.status == 503)
        #expect(r.text.contains("live channel 'ch' has no segments yet") && r.text.split(separator: "\n").count == 1, "\(r.text)")
    }

    /// A live origin with CMAF segments (fMP4, `EXT-X-MAP`): each segment taken in as MPEG-TS
    /// (its packets copied, its timestamps kept: the playlist's splice times stay on its clock),
    /// its `emsg` SCTE-35 read, then everything as for an MPEG-TS origin: a DATERANGE break inside
    /// a segment, a CUE-OUT one at a boundary and an `emsg` one inside a segment replaced frame-exactly, content frames once each in order, no gap in
    /// the sound at any join, clean in ffmpeg `-xerror` and GStreamer.
    @Test func aCMAFOriginsBreaksAreReplacedFrameExactly() async throws {
        let rig = try await Rig.start(breaks: [
            LiveOriginBreak(start: .frame(377), duration: MediaTime(seconds: 6), signal: .dateRange(.spliceInsert)),
            LiveOriginBreak(start: .segment(12), duration: MediaTime(seconds: 4), signal: .cueOut),
            // SCTE-35 in an emsg box of the segment holding the start (the end: the planned duration)
            LiveOriginBreak(start: .frame(16 * 60 + 23), duration: MediaTime(seconds: 4), signal: .inBand(.spliceInsert)),
        ], seconds: 48, cmaf: true)
        defer { rig.stop() }
        #expect(rig.origin.playlist().contains("#EXT-X-MAP:URI=\"init.mp4\""))
        try await Self.expectOneAdPerBreakFrameExact(rig, steps: 20, folder: "cmaf-viewer")
    }

    /// A viewer followed for `steps` origin segments into `folder` (under the rig's root): its
    /// download clean in ffmpeg `-xerror` and GStreamer, no gap in the sound at a boundary, and
    /// the content's frames once each in order with ad 7 (120 frames) frame-exact at each break.
    static func expectOneAdPerBreakFrameExact(_ rig: Rig, steps: Int, folder: String) async throws {
        try await rig.warm()
        guard let variant = try await startSession(rig) else { return }
        let (_, local, _, _) = try await follow(rig, playlist: variant, steps: steps, into: rig.root.appendingPathComponent(folder))
        let check = try await runOffPool("/usr/bin/ffmpeg", ["-v", "error", "-xerror", "-i", local.path, "-f", "null", "-"])
        #expect(check.status == 0, "ffmpeg -xerror: \(check.stderr)")
        let joins = try await offPool { try HLSPackageCheck.audioJoinProblems(local) }
        #expect(joins.checked > 5 && joins.problems.isEmpty, "\(joins.checked) boundaries: \(joins.problems)")
        let gst = try await offPool { try FieldCheck.check(local, with: .gstreamer) }
        #expect(gst.clean, "\(gst.report)")
        let shown = try await Self.shown(local, contentSource: rig.origin.media.sourceID)
        guard case .content(let first)? = shown.first, case .content(let last)? = shown.last else {
            Issue.record("the viewer does not start and end on content: \(shown.prefix(3)) … \(shown.suffix(3))"); return
        }
        compare(shown, expected(from: first, to: last + 1, breaks: rig.origin.breaks.map { ($0, [(7, 120)]) }))
    }

    /// A live DASH origin (a dynamic MPD, video and audio as separate CMAF AdaptationSets,
    /// `SegmentTimeline` with `$Time$` and `$Number$`): each video segment taken in as MPEG-TS
    /// with the audio of its time, its breaks from the MPD's Events (SCTE-35 binary in XML, and
    /// SCTE-35 as XML) and from `emsg`, each replaced frame-exactly (inside a segment, or at one
    /// for the XML one, the origin schedule's CUE-OUT form); content
    /// frames once each in order, no gap in the sound at any join, clean in ffmpeg `-xerror` and
    /// GStreamer. The MPD starts a second Period at segment 10 (an upstream splice: the XML
    /// Event's and the `emsg` break come after it), whose segments the channel numbers on.
    @Test func aDASHOriginsBreaksAreReplacedFrameExactly() async throws {
        let rig = try await Rig.start(breaks: [
            LiveOriginBreak(start: .frame(377), duration: MediaTime(seconds: 6), signal: .dateRange(.spliceInsert)),
            LiveOriginBreak(start: .segment(12), duration: MediaTime(seconds: 4), signal: .cueOut),
            LiveOriginBreak(start: .frame(17 * 60 + 23), duration: MediaTime(seconds: 4), signal: .inBand(.spliceInsert)),
        ], seconds: 48, dash: true, dashSecondPeriodAt: 10)
        defer { rig.stop() }
        let mpd = rig.origin.mpd()
        #expect(mpd.contains("type=\"dynamic\"") && mpd.contains("contentType=\"audio\""), "\(mpd.prefix(600))")
        try await Self.expectOneAdPerBreakFrameExact(rig, steps: 21, folder: "dash-viewer")
        #expect(rig.loggedFaults.isEmpty, "\(rig.loggedFaults)")
        let later = rig.origin.mpd()
        #expect(later.contains("<Period id=\"p1\"") && later.contains("presentationTimeOffset="), "the origin went on in a second Period: \(later.prefix(800))")
    }

    /// The same origin as HLS of demuxed CMAF (`/demuxed/master.m3u8`: video-only variants, the
    /// sound an audio rendition of its own): the rendition's segments are fetched once each, their
    /// span read from their packets, and muxed into each video segment as a DASH origin's audio is;
    /// the three breaks replaced frame-exactly, content once in order, no gap in the sound at a join.
    @Test func anHLSOriginsAudioRenditionIsCarriedLiveAndBreaksAreReplacedFrameExactly() async throws {
        let rig = try await Rig.start(breaks: [
            LiveOriginBreak(start: .frame(377), duration: MediaTime(seconds: 6), signal: .dateRange(.spliceInsert)),
            LiveOriginBreak(start: .segment(12), duration: MediaTime(seconds: 4), signal: .cueOut),
            LiveOriginBreak(start: .frame(17 * 60 + 23), duration: MediaTime(seconds: 4), signal: .inBand(.spliceInsert)),
        ], seconds: 48, dash: true, sourcePath: "/demuxed/master.m3u8")
        defer { rig.stop() }
        let master = try await curl(rig.origin.url("/demuxed/master.m3u8")).text
        #expect(master.contains("#EXT-X-MEDIA:TYPE=AUDIO") && master.contains("AUDIO=\"aud\""), "\(master)")
        try await Self.expectOneAdPerBreakFrameExact(rig, steps: 21, folder: "demuxed-viewer")
        #expect(rig.loggedFaults.isEmpty, "\(rig.loggedFaults)")
        // the channel's content segments carry the rendition's sound (the variants have none of their own)
        let variant = try #require(try await Self.startSession(rig))
        let content = try await curl(rig.url(variant)).text.split(separator: "\n").filter { $0.hasPrefix("/v1/segments/live/") }
        #expect(content.count >= 3, "\(content)")
        for uri in content.prefix(3) {
            let file = rig.root.appendingPathComponent("demuxed-\(UUID().uuidString).ts")
            try await curl(rig.url(String(uri))).body.write(to: file)
            let audio = try await Tools.ffprobe(["-v", "error", "-select_streams", "a:0", "-show_entries", "packet=pts", "-of", "csv=p=0", file.path])
            let packets = String(decoding: audio.stdout, as: UTF8.self).split(separator: "\n").count
            #expect(packets > 80, "\(uri): \(packets) AAC frames")
        }
    }

    @Test func breaksAreReplacedFrameExactly() async throws {
        let rig = try await Rig.start(breaks: [
            // DATERANGE, inside segment 6, 6 s: ad 7 (4 s), the second ad does not fit, 2 s slate
            LiveOriginBreak(start: .frame(377), duration: MediaTime(seconds: 6), signal: .dateRange(.spliceInsert)),
            // DATERANGE time_signal inside segment 12, 8 s planned, ended after 5 s: both ads
            // planned, the second cut at its frame 30
            LiveOriginBreak(start: .frame(12 * 60 + 10), duration: MediaTime(seconds: 8), endsAfter: MediaTime(seconds: 5),
                            signal: .dateRange(.timeSignal)),
            // CUE-OUT at segment 16's boundary, 6 s: ad 7 and 2 s slate
            LiveOriginBreak(start: .segment(16), duration: MediaTime(seconds: 6), signal: .cueOut),
            // in band splice_insert inside segment 20, 6 s: ad 7 and 2 s slate
            LiveOriginBreak(start: .frame(20 * 60 + 23), duration: MediaTime(seconds: 6), signal: .inBand(.spliceInsert)),
            // in band time_signal inside segment 25, 4 s: ad 7 exactly
            LiveOriginBreak(start: .frame(25 * 60 + 41), duration: MediaTime(seconds: 4), signal: .inBand(.timeSignal)),
        ])
        defer { rig.stop() }
        try await rig.warm()
        guard let variant = try await Self.startSession(rig), let second = try await Self.startSession(rig) else { return }
        let (mine, local, files, others) = try await Self.follow(rig, playlist: variant, steps: 25, into: rig.root.appendingPathComponent("viewer"),
                                                                 others: [second])
        // a second viewer: the same frame-exact pieces, made once for both
        func piecePaths(_ e: [Entry]) -> Set<String> {   // the file, not the viewer's query
            Set(e.map { String($0.uri.split(separator: "?")[0]) }.filter { $0.contains("/cuts/") })
        }
        let cuts = piecePaths(mine)
        #expect(cuts.count >= 8, "a piece before and after each break inside a segment: \(cuts)")
        let theirs = piecePaths(others.first ?? [])
        #expect(cuts == theirs, "both viewers play the same pieces: only mine \(cuts.subtracting(theirs)), only theirs \(theirs.subtracting(cuts))")
        #expect(rig.store.encodeCounts()["cut"] == cuts.count, "each piece (the cut ad too) made once for both: \(rig.store.encodeCounts())")
        // the origin ended (its media ran out): so does the viewer's playlist, all of it listed
        #expect(rig.origin.window.ended)
        #expect(try await curl(rig.url(variant)).text.hasSuffix("#EXT-X-ENDLIST\n"))
        // the tracking JSON: five breaks at the viewer's stream times, the ads that played
        let id = variant.split(separator: "/")[2]
        let tracking = try await curl(rig.url("/v1/sessions/\(id)/tracking")).json
        let avails = tracking?["avails"] as? [[String: Any]] ?? []
        #expect(avails.count == 5, "\(tracking ?? [:])")
        let starts = avails.compactMap { $0["startTimeInSeconds"] as? Double }
        let b0 = rig.origin.breaks
        #expect(starts == b0.map { (Double($0.startFrame) / 30 * 1000).rounded() / 1000 }, "\(starts)")
        #expect(avails.map { ($0["ads"] as? [[String: Any]] ?? []).count } == [1, 2, 1, 1, 1])
        #expect(MediaTailorSchema.violations(tracking ?? [:]) == [])
        // each break's slate: its length less its ads' (the second's cut ad as it played, 1 s)
        func slate(_ a: [String: Any]) -> Double {
            let ads = (a["ads"] as? [[String: Any]] ?? []).reduce(0.0) { $0 + ($1["durationInSeconds"] as? Double ?? 0) }
            return (((a["durationInSeconds"] as? Double ?? -1) - ads) * 1000).rounded() / 1000
        }
        #expect(avails.map(slate) == [2, 0, 2, 2, 0])
        // an independent strict reader
        let check = try await runOffPool("/usr/bin/ffmpeg", ["-v", "error", "-xerror", "-i", local.path, "-f", "null", "-"])
        #expect(check.status == 0, "ffmpeg -xerror: \(check.stderr)")
        // decode times rise in every stream across every join (a strict muxer or player refuses
        // one that goes back)
        for stream in ["v", "a"] {
            let out = try await runOffPool("/usr/bin/ffprobe", ["-v", "error", "-select_streams", stream, "-show_entries", "packet=dts",
                                                                "-of", "csv=p=0", local.path])
            let dts = String(decoding: out.stdout, as: UTF8.self).split(separator: "\n").compactMap { Int64($0.trimmingCharacters(in: CharacterSet(charactersIn: ", "))) }
            #expect(dts.count > 100)
            if let i = dts.indices.dropFirst().first(where: { dts[$0] <= dts[$0 - 1] }) {
                Issue.record("\(stream): decode time \(dts[i]) after \(dts[i - 1]) (packet \(i))")
            }
        }
        // no gap in the sound at any segment boundary, every join of the five breaks included
        // (a player counting decoded samples, Chromium, would drift by each), never a whole AAC
        // frame of overlap
        let joins = try await offPool { try HLSPackageCheck.audioJoinProblems(local) }
        #expect(joins.checked > 20 && joins.problems.isEmpty, "\(joins.checked) boundaries: \(joins.problems)")
        let gst = try await offPool { try FieldCheck.check(local, with: .gstreamer) }
        #expect(gst.clean, "\(gst.report)")
        let shown = try await Self.shown(local, contentSource: rig.origin.media.sourceID)
        let b = rig.origin.breaks
        let firstFrame: Int
        if case .content(let n)? = shown.first { firstFrame = n } else { Issue.record("the viewer does not start on content: \(shown.prefix(3))"); return }
        let lastFrame: Int
        if case .content(let n)? = shown.last { lastFrame = n + 1 } else { Issue.record("the viewer does not end on content"); return }
        let want = Self.expected(from: firstFrame, to: lastFrame, breaks: [
            (b[0], [(7, 120)]), (b[1], [(7, 120), (8, 120)]), (b[2], [(7, 120)]), (b[3], [(7, 120)]), (b[4], [(7, 120)]),
        ])
        Self.compare(shown, want)
        // A/V at every flash: within an AAC frame on the first picture after a change of encode
        // (a join, an origin segment after a cut piece), within 5 ms everywhere else
        let (atTransitions, flashes) = try await Self.sync(local, transitions: try Self.encodeTransitions(mine, files: files))
        #expect(atTransitions.count >= 5 && flashes.count >= 20, "\(atTransitions.count) flashes at transitions, \(flashes.count) others")
        let worstTransition = try #require(MediaVerifier.maxAbsoluteOffset(atTransitions), "a flash at a transition without its beep")
        #expect(worstTransition < 1024.0 / 48_000, "a beep at a change of encode: \(worstTransition * 1000) ms")
        let worst = try #require(MediaVerifier.maxAbsoluteOffset(flashes), "a flash without its beep: \(flashes)")
        #expect(worst <= 0.005, "A/V: worst \(worst * 1000) ms over \(flashes.count) flashes")
        print(String(format: "serve live hls-ts: content frames %d..%d once in order through 5 breaks (ads at 30 fps, 120 frames each, one cut at its frame 30); %d segment boundaries without a gap; A/V worst %.3f ms over %d flashes; %d flashes on the first picture after a change of encode, worst %.3f ms",
                     firstFrame, lastFrame - 1, joins.checked, worst * 1000, flashes.count, atTransitions.count, worstTransition * 1000))
        // each break's first ad frame has the signalled PTS, content resumes at the end frame's PTS
        let ptsOfFiles = try files.map { TSTimestamps.firstVideoPTS(try Data(contentsOf: $0)).map { $0.rescaled(to: 90_000).value } }
        for brk in b {
            let out = brk.startPTS % LivePTS.wrap, back = brk.endPTS % LivePTS.wrap
            #expect(ptsOfFiles.contains(out), "no segment starts at break \(brk.trackerID)'s PTS \(out)")
            #expect(ptsOfFiles.contains(back), "no segment starts where content resumes after \(brk.trackerID), PTS \(back)")
        }
        // metrics: four breaks seen, ads and slate seconds as laid out
        let metrics = try await curl(rig.url("/metrics")).text
        #expect(metrics.contains("interlude_live_breaks_seen_total{channel=\"ch\"} 5"), "\(metrics)")
        func value(_ name: String) -> Double? {
            metrics.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
        }
        let slate = value("interlude_live_slate_seconds_total") ?? -1
        let adSeconds = value("interlude_live_ad_seconds_total") ?? -1
        // two viewers
        #expect(abs(slate - 2 * (2 + 0 + 2 + 2 + 0)) < 0.05, "slate seconds \(slate)")
        #expect(abs(adSeconds - 2 * (4 + 5 + 4 + 4 + 4)) < 0.05, "ad seconds \(adSeconds)")
        #expect(abs((value("interlude_live_fill_rate") ?? -1) - 21.0 / 27.0) < 0.01)
        // server-side beacons: ad 7 completes in each break, ad 8 starts once (cut) and never completes
        let hits = rig.ads.requests.map(\.target)
        #expect(hits.filter { $0 == "/t/complete?ad=ad1" }.count == 5, "\(hits)")
        #expect(hits.filter { $0 == "/t/start?ad=ad2" }.count == 1, "\(hits)")
        #expect(!hits.contains("/t/complete?ad=ad2"), "\(hits)")
        #expect(hits.filter { $0.hasPrefix("/vast.xml") }.count == 2 * 5, "one ad request per break and viewer")
    }
}

/// Players on the live session in real time: the origin publishes a 2 s segment every 2 s, the
/// service polls it, ffmpeg (`-xerror`) and GStreamer (playbin) each play a session of their own
/// for `LIVE_PLAY_SECONDS` (30 in `make test`; `make live-check` plays 180) through breaks of
/// every signalling form, without an error or a warning.
@Suite(.serialized) struct ServeLivePlayTests {
    static var seconds: Int { Int(ProcessInfo.processInfo.environment["LIVE_PLAY_SECONDS"] ?? "") ?? 30 }

    /// The live rig of the players' checks: a real-time origin with a break every 14 s from 8 s
    /// on, cycling through the signalling forms, lasting `seconds` of play and more.
    static func liveRig(seconds: Int, dash: Bool = false, sourcePath: String? = nil, subtitles: Bool = false,
                        secondLanguage: Bool = false, aes128: LiveOriginAES128? = nil) async throws -> ServeLiveSessionTests.Rig {
        let media = max(60, (seconds + 40 + 1) / 2 * 2)
        let forms: [LiveOriginBreak.Signal] = [.dateRange(.spliceInsert), .inBand(.spliceInsert), .cueOut, .inBand(.timeSignal), .dateRange(.timeSignal)]
        var breaks: [LiveOriginBreak] = []
        var at = 8 * 30 + 7, i = 0
        while at + 8 * 30 < media * 30 - 60 {
            let form = forms[i % forms.count]
            let start: LiveOriginBreak.Start = form == .cueOut ? .segment((at / 60) + 1) : .frame(at)
            breaks.append(LiveOriginBreak(start: start, duration: MediaTime(seconds: 6), signal: form))
            at += 14 * 30; i += 1
        }
        let rig = try await ServeLiveSessionTests.Rig.start(breaks: breaks, seconds: media, clock: .realTime, dash: dash, sourcePath: sourcePath,
                                                            subtitles: subtitles, secondLanguage: secondLanguage, aes128: aes128)
        try await rig.warm()
        return rig
    }

    /// The players viewers use, each on a live session of its own for `seconds` (30 in `make
    /// test`, `LIVE_PLAY_SECONDS` for `make live-check`), all at once: Chromium's native HLS
    /// (currentTime advancing, no media error, no warning in its media log), VLC and mpv with
    /// their logs read, GStreamer's playbin and playbin3 (frames rendered, late drops under 5 %),
    /// `ffmpeg -xerror`. At 320×180 a player takes a fraction of a core; the players' rules hold
    /// for a loaded machine (ServeFieldPlayersTests plays six at once too), not for a broken stream.
    @Test func theFieldsPlayersPlayTheLiveSession() async throws {
        let seconds = Self.seconds
        let rig = try await Self.liveRig(seconds: seconds + 20)
        defer { rig.stop() }
        let url = rig.url("/v1/master/ch/index.m3u8")
        try await Self.play([.chromium, .vlc, .mpv, .gstreamer3, .gstreamer, .ffmpeg].map { ($0, url) }, seconds: seconds)
        let metrics = try await curl(rig.url("/metrics")).text
        #expect(metrics.contains("interlude_live_avails_total"), "the players met breaks: \(metrics)")
    }

    /// The same from a live DASH origin (a dynamic MPD, separate video and audio tracks, breaks
    /// as MPD Events and `emsg`): its sessions' HLS playlists in Chromium's native HLS, VLC, mpv,
    /// playbin3 and `ffmpeg -xerror`, and their CMAF ones in playbin3, all at once.
    @Test func theFieldsPlayersPlayALiveSessionOfADASHOrigin() async throws {
        let seconds = Self.seconds
        let rig = try await Self.liveRig(seconds: seconds + 20, dash: true)
        defer { rig.stop() }
        let ts = rig.url("/v1/master/ch/index.m3u8"), cmaf = rig.url("/v1/master/ch/index.m3u8?segments=cmaf")
        try await Self.play([.chromium, .vlc, .mpv, .gstreamer3, .ffmpeg].map { ($0, ts) } + [(.gstreamer3, cmaf)], seconds: seconds)
        let metrics = try await curl(rig.url("/metrics")).text
        #expect(metrics.contains("interlude_live_avails_total"), "the players met breaks: \(metrics)")
        #expect(rig.loggedFaults.isEmpty, "\(rig.loggedFaults)")
    }

    /// The same from a live HLS origin of demuxed CMAF with a WebVTT subtitle rendition
    /// (video-only variants, the sound an audio rendition, the subtitles beside them): its
    /// sessions' HLS (MPEG-TS, the rendition's sound muxed in; the subtitle playlists beside the
    /// top rung's) in Chromium's native HLS, VLC, mpv, playbin3 and `ffmpeg -xerror`, and their
    /// CMAF ones in playbin3, all at once.
    @Test func theFieldsPlayersPlayALiveSessionWithDemuxedAudioAndSubtitles() async throws {
        let seconds = Self.seconds
        let rig = try await Self.liveRig(seconds: seconds + 20, dash: true, sourcePath: "/demuxed/master.m3u8", subtitles: true)
        defer { rig.stop() }
        #expect(await rig.channel.subtitleRenditions().count == 1)
        let ts = rig.url("/v1/master/ch/index.m3u8"), cmaf = rig.url("/v1/master/ch/index.m3u8?segments=cmaf")
        try await Self.play([.chromium, .vlc, .mpv, .gstreamer3, .ffmpeg].map { ($0, ts) } + [(.gstreamer3, cmaf)], seconds: seconds)
        #expect(rig.loggedFaults.isEmpty, "\(rig.loggedFaults)")
    }

    /// The same origin with a second audio language: its sessions' HLS (MPEG-TS: each language a
    /// packed-audio rendition, the main one the top rung's sound, the other its language rung's)
    /// in Chromium's native HLS, mpv, playbin3 and `ffmpeg -xerror`, and their CMAF ones (each
    /// language a CMAF audio rendition) in playbin3, all at once. Not VLC: VLC 3.0's adaptive
    /// demuxer stops refreshing the audio rendition's playlist at the live session's first
    /// discontinuity, and its buffering then reports "buffer deadlock prevented" (3 runs of 3;
    /// with the main language as the variants' own sound, no URI, it picks the other language and
    /// never refreshes that playlist at all), while it plays the same session without the second
    /// language (above) and a VOD session's packed-audio languages clean.
    @Test func theFieldsPlayersPlayALiveSessionWithTwoAudioLanguages() async throws {
        let seconds = Self.seconds
        let rig = try await Self.liveRig(seconds: seconds + 20, dash: true, sourcePath: "/demuxed/master.m3u8", secondLanguage: true)
        defer { rig.stop() }
        #expect(await rig.channel.languages.map(\.rendition.language) == ["de"])
        let ts = rig.url("/v1/master/ch/index.m3u8"), cmaf = rig.url("/v1/master/ch/index.m3u8?segments=cmaf")
        try await Self.play([.chromium, .mpv, .gstreamer3, .ffmpeg].map { ($0, ts) } + [(.gstreamer3, cmaf)], seconds: seconds)
        #expect(rig.loggedFaults.isEmpty, "\(rig.loggedFaults)")
    }

    /// An origin encrypting every segment whole (AES-128): its sessions (the origin's segments as
    /// they came under its key, the ads clear between them, breaks at segment boundaries) in
    /// mpv, playbin3 and `ffmpeg -xerror`, all at once. Not Chromium: its native HLS refuses a
    /// key on another origin than the playlist's (the key server is the origin's here; a web
    /// player needs it on the service's origin). Not VLC 3.0: where content comes back after a
    /// break it restarts its demuxer at the `EXT-X-DISCONTINUITY` but resets its clock only once
    /// the break's stream has drained (an encrypted segment cannot start with the
    /// `discontinuity_indicator` packets VLC resets on at once), buffers a second time, reaches the
    /// live edge and reports `ES_OUT_SET_(GROUP_)PCR is called too late` (4 runs of 4, alone as
    /// well, with or without the lead-in packets); it plays the origin's own encrypted playlist and
    /// the clear channel's sessions (above) clean.
    @Test func theFieldsPlayersPlayAnEncryptedLiveSession() async throws {
        let seconds = Self.seconds
        let rig = try await Self.liveRig(seconds: seconds + 20, aes128: ServeLiveEncryptedTests.aes)
        defer { rig.stop() }
        #expect(await rig.channel.isEncrypted)
        let url = rig.url("/v1/master/ch/index.m3u8")
        try await Self.play([.mpv, .gstreamer3, .ffmpeg].map { ($0, url) }, seconds: seconds)
        #expect(rig.loggedFaults.isEmpty, "\(rig.loggedFaults)")
        let metrics = try await curl(rig.url("/metrics")).text
        #expect(metrics.contains("interlude_live_avails_total"), "the players met breaks: \(metrics)")
    }

    /// Each client plays its URL live for `seconds`, all at once; each must be clean (its report
    /// printed: the figures, frames rendered and late drops, for the record).
    static func play(_ plays: [(FieldCheck.Client, String)], seconds: Int) async throws {
        let verdicts = try await withThrowingTaskGroup(of: (FieldCheck.Client, FieldCheck.Verdict).self) { group in
            for (client, url) in plays {
                group.addTask { (client, try await offPool { try FieldCheck.playLive(url, seconds: seconds, with: client) }) }
            }
            var out: [(FieldCheck.Client, FieldCheck.Verdict)] = []
            for try await v in group { out.append(v) }
            return out
        }
        for (client, v) in verdicts {
            print(v.report)
            #expect(v.clean, "\(client): \(v.report)")
        }
        #expect(verdicts.count == plays.count)
    }

    /// The embedded server alone, no proxy in front, under a slowloris soak while viewers play:
    /// 1,000 half-open connections from 20 addresses (each under the per-client cap), a byte
    /// dripped on each every second and the ones the server closed reopened, and 64 idle ones from
    /// another address; meanwhile Chromium's native HLS and VLC play a live session each for
    /// `seconds` (30 in `make test`, `LIVE_PLAY_SECONDS` in `make live-check`) and must stay
    /// clean, and a good client's `/health` every second is answered within 2 s every time.
    @Test func thePlayersPlayOnThroughASlowloris() async throws {
        let seconds = Self.seconds
        raiseOpenFileLimit(to: 4_000)
        let rig = try await Self.liveRig(seconds: seconds + 20)
        defer { rig.stop() }
        let port = rig.port
        let slow = (1...20).map { RawConnectionSwarm(count: 50, port: port, from: "127.0.2.\($0)", firstBytes: Array("GET / HTTP/1.1\r\nHost: t\r\n".utf8)) }
        let idle = RawConnectionSwarm(count: 64, port: port, from: "127.0.3.1")
        defer { slow.forEach { $0.close() }; idle.close() }
        let stop = LineBox()
        let health = LineBox()
        let attack = Thread {
            var n = 0
            while stop.all.isEmpty {
                usleep(100_000); n += 1
                if n % 5 == 0 { slow.forEach { $0.reopenClosed() }; idle.reopenClosed() }
                if n % 10 == 0 {
                    slow.forEach { $0.send([UInt8(ascii: "X")]) }
                    let start = Date()
                    let c = try? RawHTTPConnection(port: port, from: "127.0.0.1", timeout: 5)
                    c?.send("GET /health HTTP/1.1\r\nHost: good\r\nConnection: close\r\n\r\n")
                    let answered = c.map { $0.readResponse(within: 5).status == 200 } ?? false
                    health.append(answered ? String(format: "%.3f", Date().timeIntervalSince(start)) : "none")
                }
            }
        }
        attack.start()
        let url = rig.url("/v1/master/ch/index.m3u8")
        async let a = offPool { try FieldCheck.playLive(url, seconds: seconds, with: .chromium) }
        async let b = offPool { try FieldCheck.playLive(url, seconds: seconds, with: .vlc) }
        let (x, y) = try await (a, b)
        stop.append("stop")
        while !attack.isFinished { try await Task.sleep(nanoseconds: 50_000_000) }
        let held = slow.map(\.open).reduce(0, +)
        print("slowloris soak: \(held) half-open held at the end; /health \(health.all.count) probes, worst \(health.all.map { Double($0) ?? 99 }.max() ?? 0) s\n\(x.report)\n\(y.report)")
        #expect(x.clean, "chromium under the soak: \(x.report)")
        #expect(y.clean, "vlc under the soak: \(y.report)")
        let times = health.all.map { Double($0) ?? 99 }
        #expect(times.count >= seconds / 2 && times.allSatisfy { $0 < 2 }, "/health under the soak: \(health.all)")
        #expect(held >= 500, "the soak held its connections: \(held) of 1,000 open at the end")
    }
}

/// A rung's track as a live viewer's record keeps it (the playlist is what the test reads).
struct LiveRecordTrack: Decodable {
    var playlist: HLS.LivePlaylist
}
