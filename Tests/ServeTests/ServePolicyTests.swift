import Ads
import Interlude
import Foundation
@testable import Serve
import TestSupport
import Testing
import Timing

/// The ad request as a POST with headers and a body template (MediaTailor's
/// `AdDecisionServerConfiguration.HttpRequest`): the options, the body's escaping by its type,
/// a VOD session's request as the ad server receives it, redirects, and a failure that plays content.
@Suite struct ServeADSPostTests {
    static let json = #"{"sid": "[session.id]", "user": "[player_params.user]", "secs": [session.avail_duration_secs]}"#

    @Test func theOptionsParseAndRefuseInOneLine() throws {
        let body = FileManager.default.temporaryDirectory.appendingPathComponent("ads-body-\(UUID().uuidString).json")
        try Data(Self.json.utf8).write(to: body)
        defer { try? FileManager.default.removeItem(at: body) }
        let base: [(name: String, value: String)] = [("--content", "a=x.mp4"), ("--ads", "https://ads/t?s=[session.id]")]
        let c = try ServeConfig.make(base + [("--ads-method", "post"), ("--ads-header", "X-Api-Key: k1"),
                                             ("--ads-header", "Content-Type: application/json; charset=utf-8"), ("--ads-body", "@" + body.path)])
        #expect(c.adsRequest.method == .post && c.adsRequest.body == Self.json)
        #expect(c.adsRequest.headers == [.init(name: "X-Api-Key", value: "k1"), .init(name: "Content-Type", value: "application/json; charset=utf-8")])
        #expect(try ServeConfig.make(base).adsRequest == ADSRequestTemplate())
        let fifo = FileManager.default.temporaryDirectory.appendingPathComponent("ads-fifo-\(UUID().uuidString)")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        defer { try? FileManager.default.removeItem(at: fifo) }
        let bads: [([(name: String, value: String)], String)] = [
            (base + [("--ads-method", "PUT")], "--ads-method is GET or POST"),
            (base + [("--ads-header", "X-A: 1")], "go with --ads-method POST"),
            (base + [("--ads-body", "{}")], "go with --ads-method POST"),
            ([("--content", "a=x.mp4"), ("--ads", "/tmp/vmap.xml"), ("--ads-method", "POST")], "needs an http(s) --ads tag"),
            (base + [("--ads-method", "POST"), ("--ads-header", "Bad Name: 1")], "is not a token"),
            (base + [("--ads-method", "POST"), ("--ads-header", "Host: evil")], "set by the transfer itself"),
            (base + [("--ads-method", "POST"), ("--ads-header", "X-A: 1\r\nX-Evil: 2")], "CR, LF or NUL"),
            (base + [("--ads-method", "POST"), ("--ads-header", "no-colon")], "takes 'NAME: VALUE'"),
            (base + [("--ads-method", "POST"), ("--ads-body", "@/no/such/file")], "no file"),
            (base + [("--ads-method", "POST"), ("--ads-body", "@" + fifo.path)], "not a regular file"),
            (base + [("--ads-method", "POST"), ("--ads-body", String(repeating: "x", count: ServeConfig.maxAdsBodyBytes + 1))], "over"),
        ]
        for (options, message) in bads {
            do {
                _ = try ServeConfig.make(options)
                Issue.record("accepted: \(options)")
            } catch {
                #expect("\(error)".contains(message) && !"\(error)".contains("\n"), "\(error)")
            }
        }
    }

    /// A viewer's parameter cannot change the body's structure: inside a JSON string, XML
    /// character data, or percent-encoded for a form; the type from the header or the body.
    @Test func theBodyTakesTheVariablesEscapedForItsType() throws {
        let hostile = #"x", "admin": true, "y": "</a><b>&"#
        let values = TagTemplate.Values(sessionID: "s1", playerParams: ["user": hostile], availDurationSeconds: 30)
        let json = try ADSRequestTemplate(method: .post, body: Self.json).request(values)
        #expect(json.headers.map(\.name) == ["Content-Type"] && json.headers.first?.value == "application/json")
        let object = try #require(try JSONSerialization.jsonObject(with: json.body) as? [String: Any])
        #expect(object["user"] as? String == hostile && object["sid"] as? String == "s1" && object["secs"] as? Int == 30 && object["admin"] == nil)
        let xml = try ADSRequestTemplate(method: .post, headers: [.init(name: "Content-Type", value: "text/xml")],
                                         body: "<r><u>[player_params.user]</u></r>").request(values)
        #expect(String(decoding: xml.body, as: UTF8.self) == "<r><u>x&quot;, &quot;admin&quot;: true, &quot;y&quot;: &quot;&lt;/a&gt;&lt;b&gt;&amp;</u></r>")
        let form = try ADSRequestTemplate(method: .post, body: "sid=[session.id]&u=[player_params.user]").request(values)
        #expect(form.headers.first?.value == "application/x-www-form-urlencoded")
        #expect(String(decoding: form.body, as: UTF8.self) == "sid=s1&u=x%22%2C%20%22admin%22%3A%20true%2C%20%22y%22%3A%20%22%3C%2Fa%3E%3Cb%3E%26")
        #expect(ADSRequestTemplate().request(values) == .get)
    }

    /// A VOD session whose ad server takes POST only: the request arrives with the method, the
    /// header, the JSON body of the session's values, and its answer fills the break.
    @Test func aVODSessionAsksTheAdServerByPOST() async throws {
        let ads = try HTTPTestServer()
        defer { ads.stop() }
        let answer = vmap(midroll: "00:00:10.000", vast(id: "a1", media: ServePlaylistTests.adURL, tracker: ads.url("/t")))
        ads.setHandler { r in
            r.path == "/ads" ? (r.method == "POST" ? HTTPTestServer.Response(body: answer) : HTTPTestServer.Response(status: 405, body: "POST only")) : nil
        }
        let media = try FixtureMedia()
        media.setAd(ServePlaylistTests.adURL, .ready(FixtureMedia.adSegments("a1", rendition: "R", seconds: MediaTime(seconds: 6)), duration: MediaTime(seconds: 6)))
        let template = try ADSRequestTemplate(method: .post, headers: [.init(name: "X-Api-Key", value: "k1")], body: Self.json)
        let s = try RunningService(media: media, adsTemplate: ads.url("/ads?s=[session.id]")) { $0.adsRequest = template; $0.clock = .shared }
        let r = try await curl(s.url("/v1/session/main"), method: "POST", body: #"{"adsParams": {"user": "a \"b\""}}"#)
        let manifest = try #require(r.json?["manifestUrl"] as? String)
        let id = String(manifest.dropFirst("/v1/sessions/".count).prefix { $0 != "/" })
        let p = try await curl(s.url("/v1/sessions/\(id)/720p.m3u8")).text
        #expect(p.contains("CUE-OUT") && p.contains("/ads/"), "\(p)")
        let asked = ads.requests.filter { $0.path == "/ads" }
        #expect(asked.map(\.method) == ["POST"] && asked.first?.target == "/ads?s=\(id)")
        let request = try #require(asked.first)
        #expect(request.headers["x-api-key"] == "k1" && request.headers["content-type"] == "application/json" && request.headers["expect"] == nil)
        let body = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
        #expect(body["sid"] as? String == id && body["user"] as? String == #"a "b""# && body["secs"] as? Int == 60, "\(body)")
    }

    /// Redirects: 302 and 303 go on with GET (no body), 307 and 308 repeat the POST with its body;
    /// an ad server that refuses the POST (405) leaves the session its content.
    @Test(arguments: [(302, "GET"), (303, "GET"), (307, "POST"), (308, "POST")])
    func aRedirectedPOSTGoesOnAsTheStatusSays(_ status: Int, _ method: String) async throws {
        let ads = try HTTPTestServer()
        defer { ads.stop() }
        ads.route("/first", .redirect(to: "/second", status: status))
        ads.route("/second", body: #"<VAST version="4.1"/>"#)
        let request = try AdHTTPRequest.post(body: Data("a=1".utf8), headers: [(name: "X-A", value: "1")])
        let body = try await HTTPAdFetcher().fetch(try #require(URL(string: ads.url("/first"))), request: request, timeout: 5, maxBytes: 1 << 16)
        #expect(String(decoding: body, as: UTF8.self) == #"<VAST version="4.1"/>"#)
        let second = try #require(ads.requests.first { $0.path == "/second" })
        #expect(ads.requests.first?.method == "POST" && ads.requests.first?.body == Data("a=1".utf8))
        #expect(second.method == method && second.body == (method == "POST" ? Data("a=1".utf8) : Data()), "\(second)")
    }

    @Test func anAdServerRefusingThePOSTLeavesTheContent() async throws {
        let ads = try HTTPTestServer()
        defer { ads.stop() }
        ads.route("/ads", body: "POST only", status: 405)
        let template = try ADSRequestTemplate(method: .post, body: Self.json)
        let s = try RunningService(media: try FixtureMedia(), adsTemplate: ads.url("/ads")) { $0.adsRequest = template; $0.clock = .shared }
        let r = try await curl(s.url("/v1/session/main"), method: "POST", body: "{}")
        #expect(r.status == 200, "\(r.text)")
        let manifest = try #require(r.json?["manifestUrl"] as? String)
        let p = try await curl(s.url(manifest.replacingOccurrences(of: "master", with: "720p"))).text
        #expect(!p.contains("CUE-OUT") && p.contains("/v1/segments/content/720p/seg0.ts"), "\(p)")
        #expect(s.log.contains { $0.contains("405") }, "\(s.log.suffix(5))")
    }
}

/// VOD content with ad markers asks the ad server once per avail, as MediaTailor does:
/// `[avail.index]` numbers them, each VAST answer fills its own avail; a VMAP answer to the
/// first places the session's breaks itself.
@Suite struct ServePerAvailTests {
    static let cues = [MediaTime(seconds: 10), MediaTime(seconds: 20)]
    static let ad1 = "https://cdn.example/a1.mp4", ad2 = "https://cdn.example/a2.mp4"

    func media() throws -> FixtureMedia {
        let m = try FixtureMedia(originCues: Self.cues)
        m.setAd(Self.ad1, .ready(FixtureMedia.adSegments("a1", rendition: "R", seconds: MediaTime(seconds: 4)), duration: MediaTime(seconds: 4)))
        m.setAd(Self.ad2, .ready(FixtureMedia.adSegments("a2", rendition: "R", seconds: MediaTime(seconds: 6)), duration: MediaTime(seconds: 6)))
        return m
    }

    /// A session's 720p playlist on `template`.
    func playlist(_ template: String, media: FixtureMedia) async throws -> (text: String, service: RunningService) {
        let s = try RunningService(media: media, adsTemplate: template) { $0.clock = .shared }
        let r = try await curl(s.url("/v1/session/main"), method: "POST", body: "{}")
        let manifest = try #require(r.json?["manifestUrl"] as? String, "\(r.text)")
        return (try await curl(s.url(manifest.replacingOccurrences(of: "master", with: "720p"))).text, s)
    }

    @Test func eachAvailHasItsOwnRequestAndAnswer() async throws {
        let ads = try HTTPTestServer()
        defer { ads.stop() }
        let answers = [vast(id: "a1", media: Self.ad1, tracker: ads.url("/t")), vast(id: "a2", media: Self.ad2, tracker: ads.url("/t"))]
        ads.setHandler { r in
            guard r.path == "/vast", let i = r.target.split(separator: "i=").last.flatMap({ Int($0) }), (1...2).contains(i) else { return nil }
            return HTTPTestServer.Response(body: answers[i - 1])
        }
        let (p, s) = try await playlist(ads.url("/vast?sid=[session.id]&i=[avail.index]"), media: try media())
        let asked = ads.requests.filter { $0.path == "/vast" }.map { String($0.target.split(separator: "&").last ?? "") }.sorted()
        #expect(asked == ["i=1", "i=2"])
        // avail 1 holds ad 1 (4 s), avail 2 ad 2 (6 s), each after its cue's content
        let segments = p.split(separator: "\n").filter { !$0.hasPrefix("#") }
        let first1 = try #require(segments.firstIndex { $0.contains("/a1/") }), first2 = try #require(segments.firstIndex { $0.contains("/a2/") })
        #expect(first1 < first2 && segments.filter { $0.contains("/a1/") }.count == 2 && segments.filter { $0.contains("/a2/") }.count == 3, "\(p)")
        #expect(p.components(separatedBy: "#EXT-X-CUE-OUT:").count == 3, "two breaks: \(p)")
        let metrics = try await curl(s.url("/metrics")).text
        #expect(metrics.contains("interlude_serve_ads_request_seconds_count 2"), "one request per avail counted")
    }

    @Test func aVMAPAnswerToTheFirstPlacesTheBreaksItself() async throws {
        let ads = try HTTPTestServer()
        defer { ads.stop() }
        ads.route("/vmap", body: vmap(midroll: "00:00:15.000", vast(id: "a1", media: Self.ad1, tracker: ads.url("/t"))))
        let (p, _) = try await playlist(ads.url("/vmap?i=[avail.index]"), media: try media())
        #expect(p.components(separatedBy: "#EXT-X-CUE-OUT:").count == 2, "the VMAP's one break, not one per cue: \(p)")
        #expect(p.split(separator: "\n").filter { $0.contains("/a1/") }.count == 2)
    }

    /// An origin with 100 markers: 64 avails asked for, 8 at a time (the rest left without ads,
    /// said), not 100 requests at once per session start.
    @Test func manyMarkersAreAskedForBoundedAndAFewAtATime() async throws {
        let ads = try HTTPTestServer()
        defer { ads.stop() }
        ads.setHandler { _ in HTTPTestServer.Response(body: #"<VAST version="4.1"/>"#, delay: 0.2) }
        let cues = (1...100).map { MediaTime(value: Int64($0), timescale: 4) }
        let content = PreparedContent(name: "main", duration: MediaTime(seconds: 30), renditions: [], originCues: cues)
        let d = await AdDecision.decide(perAvail: { i in (ads.url("/vast?i=\(i)"), .get) }, content: content, timeout: 5,
                                        sender: BeaconSender(timeout: 3))
        let asked = ads.requests.filter { $0.path == "/vast" }
        #expect(asked.count == AdDecision.maxAvails && d.requests.count == AdDecision.maxAvails)
        #expect(Set(asked.map(\.target)) == Set((1...64).map { "/vast?i=\($0)" }))
        let times = asked.map(\.receivedAt).sorted()
        // 64 answers of 0.2 s each, 8 at a time: at least 7 rounds after the first
        #expect((times.last ?? 0) - (times.first ?? 0) >= 1.2, "\((times.last ?? 0) - (times.first ?? 0)) s")
        #expect(d.problems.contains("36 ad markers past the first 64 left without ads"))
    }

    /// One avail's request failing leaves that avail empty and the other filled.
    @Test func aFailedAvailLeavesOnlyItselfEmpty() async throws {
        let ads = try HTTPTestServer()
        defer { ads.stop() }
        let answer = vast(id: "a2", media: Self.ad2, tracker: ads.url("/t"))
        ads.setHandler { r in r.path == "/vast" ? (r.target.hasSuffix("i=2") ? HTTPTestServer.Response(body: answer) : HTTPTestServer.Response(status: 500, body: "no")) : nil }
        let (p, s) = try await playlist(ads.url("/vast?i=[avail.index]"), media: try media())
        #expect(p.components(separatedBy: "#EXT-X-CUE-OUT:").count == 2 && p.contains("/a2/") && !p.contains("/a1/"), "\(p)")
        #expect(s.log.contains { $0.contains("avail 1: ") && $0.contains("500") }, "\(s.log.suffix(3))")
    }
}

/// A CDN in front (MediaTailor's `CdnConfiguration`): playlists give content segments under
/// the content prefix and ad and slate segments under the ad prefix, queries kept; the prefixes
/// are checked at start.
@Suite struct ServeCDNPrefixTests {
    @Test func theOptionsParseAndRefuseInOneLine() throws {
        let base: [(name: String, value: String)] = [("--content", "a=x.mp4"), ("--ads", "https://ads/t")]
        let c = try ServeConfig.make(base + [("--content-segment-prefix", "https://cdn.example.com/"), ("--ad-segment-prefix", "http://ads-cdn.example.com/x")])
        #expect(c.cdn.content == "https://cdn.example.com" && c.cdn.ads == "http://ads-cdn.example.com/x")
        #expect(try ServeConfig.make(base).cdn == .none)
        for (option, bad) in [("--content-segment-prefix", "cdn.example.com"), ("--content-segment-prefix", "ftp://cdn"),
                              ("--ad-segment-prefix", "https://cdn/?a=1"), ("--ad-segment-prefix", "https://u:p@cdn"),
                              ("--content-segment-prefix", "https://cdn/a b"), ("--content-segment-prefix", "")] {
            do {
                _ = try ServeConfig.make(base + [(option, bad)])
                Issue.record("accepted \(option) \(bad)")
            } catch {
                #expect("\(error)".hasPrefix(option) && "\(error)".contains("not an http(s) URL"), "\(error)")
            }
        }
    }

    @Test func playlistsGiveSegmentsUnderTheirPrefix() async throws {
        let ads = try HTTPTestServer()
        defer { ads.stop() }
        ads.route("/vmap", body: vmap(midroll: "00:00:10.000", vast(id: "a1", media: ServePlaylistTests.adURL, tracker: ads.url("/t"))))
        let media = try FixtureMedia()
        media.setAd(ServePlaylistTests.adURL, .ready(FixtureMedia.adSegments("a1", rendition: "R", seconds: MediaTime(seconds: 6)), duration: MediaTime(seconds: 6)))
        let cdn = try CDNPrefixes(content: "https://cdn.example.com/edge", ads: "https://ads-cdn.example.com")
        for clock in [SegmentClock.shared, .stream] {
            let s = try RunningService(media: media, adsTemplate: ads.url("/vmap")) { $0.cdn = cdn; $0.clock = clock }
            let r = try await curl(s.url("/v1/session/main"), method: "POST", body: "{}")
            let manifest = try #require(r.json?["manifestUrl"] as? String)
            let p = try await curl(s.url(manifest.replacingOccurrences(of: "master", with: "720p"))).text
            let uris = p.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
            #expect(uris.contains { $0.hasPrefix("https://ads-cdn.example.com/v1/segments/ads/a1/720p/seg0.ts?") } && uris.contains { $0.contains("/a1/") }, "\(clock): \(uris)")
            #expect(uris.allSatisfy { $0.hasPrefix($0.contains("/v1/segments/ads/") ? "https://ads-cdn.example.com/v1/segments/" : "https://cdn.example.com/edge/v1/segments/") },
                    "\(clock): \(uris)")
            // the service answers what the CDN forwards: the same path and query on the service
            let first = try #require(uris.first?.replacingOccurrences(of: "https://cdn.example.com/edge", with: ""))
            #expect(try await curl(s.url(first)).status == 200, "\(first)")
            // the master and the interstitials playlist keep their own paths (on the service)
            #expect(try await curl(s.url(manifest)).text.contains("\n/v1/sessions/"))
        }
    }
}

/// Bumpers in VOD: the start bumper before each break's ads, the end bumper after them, no
/// beacons of their own; one not transcoded yet, or over 10 s, is left out and never slated.
@Suite struct ServeBumperTests {
    static let start = "https://cdn.example/bumper-start.mp4", end = "https://cdn.example/bumper-end.mp4"

    func session(startSeconds: Int64 = 2, endReady: Bool = true, fill: BreakFill = .content) async throws -> (playlist: String, tracking: [String: Any], ads: HTTPTestServer) {
        let ads = try HTTPTestServer()
        ads.route("/vmap", body: vmap(midroll: "00:00:10.000", vast(id: "a1", media: ServePlaylistTests.adURL, tracker: ads.url("/t"))))
        let media = try FixtureMedia()
        media.setAd(ServePlaylistTests.adURL, .ready(FixtureMedia.adSegments("a1", rendition: "R", seconds: MediaTime(seconds: 6)), duration: MediaTime(seconds: 6)))
        let s1 = MediaTime(seconds: startSeconds)
        media.setAd(Self.start, .ready(FixtureMedia.adSegments("bs", rendition: "R", seconds: s1), duration: s1))
        media.setAd(Self.end, endReady ? .ready(FixtureMedia.adSegments("be", rendition: "R", seconds: MediaTime(seconds: 1)), duration: MediaTime(seconds: 1)) : .pending)
        let bumpers = try Bumpers(start: Self.start, end: Self.end)
        let s = try RunningService(media: media, adsTemplate: ads.url("/vmap")) { $0.bumpers = bumpers; $0.clock = .shared; $0.fill = fill }
        let r = try await curl(s.url("/v1/session/main"), method: "POST", body: #"{"reportingMode": "client"}"#)
        let manifest = try #require(r.json?["manifestUrl"] as? String), trackingURL = try #require(r.json?["trackingUrl"] as? String)
        let p = try await curl(s.url(manifest.replacingOccurrences(of: "master", with: "720p"))).text
        let tracking = try #require(try await curl(s.url(trackingURL)).json)
        return (p, tracking, ads)
    }

    /// The store paths of the playlist's ad-side segments, in order: "bs", "a1", "be".
    func order(_ p: String) -> [String] {
        p.split(separator: "\n").filter { $0.contains("/v1/segments/ads/") }.map { String($0.split(separator: "/")[3]) }
    }

    @Test func theStartAndEndBumpersWrapTheBreaksAds() async throws {
        let (p, tracking, ads) = try await session()
        defer { ads.stop() }
        #expect(order(p) == ["bs", "a1", "a1", "a1", "be"], "\(p)")
        let avail = try #require((tracking["avails"] as? [[String: Any]])?.first)
        let listed = (avail["ads"] as? [[String: Any]] ?? []).map { $0["adId"] as? String ?? "" }
        #expect(listed == ["bumper-start", "a1", "bumper-end"], "\(listed)")
        #expect((avail["durationInSeconds"] as? Double).map { abs($0 - 9) < 0.01 } == true, "\(avail["durationInSeconds"] ?? "")")
        let bumper = try #require((avail["ads"] as? [[String: Any]])?.first)
        #expect((bumper["trackingEvents"] as? [Any])?.isEmpty == true, "a bumper has no beacons: \(bumper)")
    }

    @Test func aBumperNotReadyOrTooLongIsLeftOutNeverSlated() async throws {
        let (p, _, ads) = try await session(startSeconds: 11, endReady: false, fill: .slate)
        defer { ads.stop() }
        #expect(order(p) == ["a1", "a1", "a1"], "an 11 s start bumper and an end bumper not transcoded yet: \(p)")
        #expect(!p.contains("/v1/segments/slate/"), "\(p)")
    }

    @Test func theOptionsParseAndRefuseInOneLine() throws {
        let base: [(name: String, value: String)] = [("--content", "a=x.mp4"), ("--ads", "https://ads/t")]
        let c = try ServeConfig.make(base + [("--bumper-start", Self.start), ("--bumper-end", Self.end)])
        #expect(c.bumpers.start == Self.start && c.bumpers.end == Self.end)
        #expect(try ServeConfig.make(base).bumpers.isEmpty)
        for (option, bad) in [("--bumper-start", "/local/bumper.mp4"), ("--bumper-end", "ftp://x/b.mp4"), ("--bumper-end", "")] {
            do {
                _ = try ServeConfig.make(base + [(option, bad)])
                Issue.record("accepted \(option) \(bad)")
            } catch {
                #expect("\(error)".hasPrefix(option) && "\(error)".contains("not an http(s) URL"), "\(error)")
            }
        }
    }
}

/// The live pre-roll's options (played in `ServeLiveSessionTests.aLiveSessionStartsWithItsPreroll`).
@Suite struct ServeLivePrerollOptionTests {
    @Test func theOptionsParseAndRefuseInOneLine() throws {
        let base: [(name: String, value: String)] = [("--live", "ch=https://o/l.m3u8"), ("--ads", "https://ads/t")]
        #expect(try ServeConfig.make(base).livePreroll == nil)
        let c = try ServeConfig.make(base + [("--live-preroll-max", "7.5"), ("--live-preroll-ads", "https://ads/pre?s=[session.id]")])
        #expect(c.livePreroll == LivePreroll(maxDuration: MediaTime(value: 15, timescale: 2), adsTemplate: "https://ads/pre?s=[session.id]"))
        for (options, message) in [([("--live-preroll-max", "0")], "takes seconds in (0, 600]"), ([("--live-preroll-max", "601")], "takes seconds in (0, 600]"),
                                   ([("--live-preroll-max", "soon")], "takes seconds"), ([("--live-preroll-ads", "https://ads/pre")], "goes with --live-preroll-max")] {
            do {
                _ = try ServeConfig.make(base + options)
                Issue.record("accepted \(options)")
            } catch {
                #expect("\(error)".contains(message) && !"\(error)".contains("\n"), "\(error)")
            }
        }
    }
}

/// Playback configurations (`--config`): several contents with their own ad servers and
/// policies in one process, aliases for player parameters, a reload that changes an ad server
/// while sessions play, a broken file refused in one line with the configurations in use kept.
@Suite struct ServePlaybackConfigurationTests {
    static func file(_ json: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("playback-\(UUID().uuidString).json")
        try Data(json.utf8).write(to: url)
        return url
    }

    static func base(_ extra: [(name: String, value: String)] = []) throws -> ServeConfig {
        try ServeConfig.make([("--content", "main=x.mp4"), ("--content", "trailer=y.mp4"), ("--live", "ch=https://o/l.m3u8"),
                              ("--ads", "https://ads/base"), ("--bumper-end", "https://cdn/end.mp4")] + extra)
    }

    @Test func aFileIsReadOverTheCommandLineAndCheckedInOneLine() throws {
        let good = #"""
        {"configurations": {
          "sports": {"content": ["main", "ch"], "options": {"ads": "https://ads/sports?e=[player_params.env]", "reporting": "client",
                                                        "ads-method": "POST", "ads-header": ["X-A: 1", "X-B: 2"], "avail-duration": 30},
                     "aliases": {"player_params.env": {"dev": "d", "prod": "p"}}},
          "films": {"content": ["trailer"], "options": {"bumper-start": "https://cdn/start.mp4", "fill-with": "slate"}}}}
        """#
        let p = try PlaybackConfigurations.parse(Data(good.utf8), base: try Self.base())
        let sports = try #require(p.byContent["main"]), films = try #require(p.byContent["trailer"])
        #expect(p.byContent["ch"]?.name == "sports" && sports.name == "sports" && films.name == "films")
        #expect(sports.config.adsTemplate == "https://ads/sports?e=[player_params.env]" && sports.config.reporting == .client)
        #expect(sports.config.adsRequest.method == .post && sports.config.adsRequest.headers.map(\.name) == ["X-A", "X-B"] && sports.config.availDuration == 30)
        #expect(sports.config.bumpers.end == "https://cdn/end.mp4", "the command line's, where the configuration says nothing")
        #expect(films.config.adsTemplate == "https://ads/base" && films.config.bumpers.start == "https://cdn/start.mp4" && films.config.fill == .slate)
        #expect(try sports.aliased(["env": "dev", "other": "x"]) == ["env": "d", "other": "x"])
        #expect(throws: ServeConfig.ParseError.self) { try sports.aliased(["env": "staging"]) }
        let bads: [(String, String)] = [
            ("not json", "not a JSON object"),
            (#"{"configs": {}}"#, "one key, \"configurations\""),
            (#"{"configurations": {"a b": {"content": ["main"]}}}"#, "may hold only letters"),
            (#"{"configurations": {"x": {"content": ["main"], "options": {"listen": ":9"}}}}"#, "'listen' is not an option a configuration sets"),
            (#"{"configurations": {"x": {"content": ["nope"]}}}"#, "no --content or --live named 'nope'"),
            (#"{"configurations": {"x": {"content": ["main"]}, "y": {"content": ["main"]}}}"#, "'main' is in two configurations"),
            (#"{"configurations": {"x": {"content": ["main"], "options": {"reporting": "both"}}}}"#, "configuration 'x': --reporting is server or client"),
            (#"{"configurations": {"x": {"content": ["main"], "options": {"ads-header": ["X: 1"]}}}}"#, "go with --ads-method POST"),
            (#"{"configurations": {"x": {"content": ["main"], "aliases": {"env": {"a": "b"}}}}}"#, "an alias is"),
            (#"{"configurations": {"x": {"content": ["main"], "extra": 1}}}"#, "unknown key 'extra'"),
        ]
        for (json, message) in bads {
            do {
                _ = try PlaybackConfigurations.parse(Data(json.utf8), base: try Self.base())
                Issue.record("accepted \(json)")
            } catch {
                #expect("\(error)".hasPrefix("--config: ") && "\(error)".contains(message) && !"\(error)".contains("\n"), "\(json): \(error)")
            }
        }
        // the command line reads the file when the configuration is made
        let f = try Self.file(good)
        defer { try? FileManager.default.removeItem(at: f) }
        #expect(try Self.base([("--config", f.path)]).playback.byName.keys.sorted() == ["films", "sports"])
        #expect(throws: ServeConfig.ParseError.self) { try Self.base([("--config", "/nonexistent.json")]) }
    }

    /// Two contents, two ad servers, aliases; then a reload moves one content to a third ad
    /// server, and a broken file is refused with the configurations in use kept.
    @Test func twoConfigurationsInOneProcessAndAReload() async throws {
        let a = try HTTPTestServer(), b = try HTTPTestServer(), c = try HTTPTestServer()
        defer { a.stop(); b.stop(); c.stop() }
        for s in [a, b, c] { s.setHandler { _ in HTTPTestServer.Response(body: #"<VAST version="4.1"/>"#) } }
        let json = { (main: HTTPTestServer) in
            #"{"configurations": {"one": {"content": ["main"], "options": {"ads": ""# + main.url("/[player_params.env]/vast") + #""},"#
                + #""aliases": {"player_params.env": {"dev": "d", "prod": "p"}}},"#
                + #""two": {"content": ["trailer"], "options": {"ads": ""# + b.url("/vast?s=[session.id]") + #"", "reporting": "client"}}}}"#
        }
        let f = try Self.file(json(a))
        defer { try? FileManager.default.removeItem(at: f) }
        let media = try FixtureMedia(names: ["main", "trailer"])
        let s = try RunningService(media: media, adsTemplate: c.url("/base")) { config in
            config.contents.append(ContentSource(name: "trailer", source: "fixture"))
            config.configurationFile = f.path
            config.playback = (try? PlaybackConfigurations.load(file: f.path, base: config)) ?? .none
        }
        func start(_ content: String, env: String? = nil) async throws -> (status: Int, json: [String: Any]?) {
            let body = env.map { #"{"adsParams": {"env": "\#($0)"}}"# } ?? "{}"
            let r = try await curl(s.url("/v1/session/\(content)"), method: "POST", body: body)
            return (r.status, r.json)
        }
        #expect(try await start("main", env: "prod").status == 200)
        #expect(a.requests.map(\.target) == ["/p/vast"], "the alias of env=prod: \(a.requests.map(\.target))")
        let trailer = try await start("trailer")
        #expect(trailer.status == 200 && b.requests.count == 1 && c.requests.isEmpty)
        // the configuration's reporting mode is the session's default
        let id = String(((trailer.json?["manifestUrl"] as? String) ?? "").dropFirst("/v1/sessions/".count).prefix { $0 != "/" })
        #expect(s.service.sessions.touch(id)?.reporting == .client)
        let unknown = try await start("main", env: "staging")
        #expect(unknown.status == 400 && a.requests.count == 1, "a value without an alias is refused")

        // a reload: main's ad server is now c
        try Data(json(c).utf8).write(to: f)
        #expect(s.service.reloadConfigurations())
        #expect(try await start("main", env: "dev").status == 200)
        #expect(c.requests.map(\.target) == ["/d/vast"] && a.requests.count == 1, "\(c.requests.map(\.target))")
        // a broken file: refused in one line, the configurations in use kept
        try Data(#"{"configurations": {"one": {"content": ["nope"]}}}"#.utf8).write(to: f)
        #expect(!s.service.reloadConfigurations())
        #expect(s.log.contains { $0.contains("\"event\":\"config_refused\"") && $0.contains("no --content or --live named 'nope'") }, "\(s.log.suffix(3))")
        #expect(try await start("main", env: "prod").status == 200)
        #expect(c.requests.map(\.target) == ["/d/vast", "/p/vast"])
    }
}
