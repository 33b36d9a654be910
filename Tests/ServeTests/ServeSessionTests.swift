import Foundation
import Playback
@testable import Serve
import TestSupport
import Testing
import Timing

/// Sessions as MediaTailor has them: configuration, the tag template's macros, POST and
/// implicit sessions, bad bodies, unknown ids and content, idle expiry.
@Suite struct ServeSessionTests {
    @Test func theConfigurationParsesAndRefusesInOneLine() async throws {
        let c = try ServeConfig.make([("--listen", "0.0.0.0:9000"), ("--content", "a=x.mp4"), ("--content", "b=https://o/m.m3u8"),
                                      ("--ads", "https://ads/t?s=[session.id]"), ("--reporting", "client"), ("--fill-with", "content"),
                                      ("--session-timeout", "5"), ("--store", "/tmp/s")])
        #expect(c.host == "0.0.0.0" && c.port == 9000)
        #expect(c.contents == [ContentSource(name: "a", source: "x.mp4"), ContentSource(name: "b", source: "https://o/m.m3u8")])
        #expect(c.reporting == .client && c.fill == .content && c.sessionIdleTimeout == 5 && c.storeDirectory == "/tmp/s")
        #expect(c.personalizationThreshold == nil)
        let threshold = try ServeConfig.make([("--live", "ch=https://o/l.m3u8"), ("--ads", "t"), ("--personalization-threshold", "2.5")])
        #expect(threshold.personalizationThreshold == MediaTime(value: 2_500, timescale: 1_000))
        #expect(try AvailSuppression.parse("off") == nil)
        #expect(try AvailSuppression.parse("behind-live-edge") == .behindLiveEdge(.zero))
        #expect(try AvailSuppression.parse("behind-live-edge,00:45:00") == .behindLiveEdge(MediaTime(seconds: 2_700)))
        #expect(try AvailSuppression.parse("after-live-edge,30,partial") == .afterLiveEdge(MediaTime(seconds: 30), partial: true))
        for bad in ["", "on", "off,5", "behind-live-edge,00:61:00", "behind-live-edge,-1", "behind-live-edge,0,partial",
                    "after-live-edge,0,most", "after-live-edge,0,full,x", "after-live-edge,nan"] {
            #expect(throws: ServeConfig.ParseError.self, "\(bad)") { try AvailSuppression.parse(bad) }
        }
        // from the live edge E when the session starts (ticks): behind, on or behind E - value;
        // after, from E to E + value, and one under way at E unless partial
        let e: Int64 = 900_000
        #expect(AvailSuppression.behindLiveEdge(.zero).suppresses(breakStart: e, edge: e))
        #expect(!AvailSuppression.behindLiveEdge(.zero).suppresses(breakStart: e + 1, edge: e))
        #expect(!AvailSuppression.behindLiveEdge(MediaTime(seconds: 10)).suppresses(breakStart: e - 90_000, edge: e))
        #expect(AvailSuppression.behindLiveEdge(MediaTime(seconds: 10)).suppresses(breakStart: e - 900_000, edge: e))
        #expect(AvailSuppression.afterLiveEdge(MediaTime(seconds: 10), partial: false).suppresses(breakStart: e + 90_000, edge: e))
        #expect(!AvailSuppression.afterLiveEdge(MediaTime(seconds: 10), partial: false).suppresses(breakStart: e + 900_000, edge: e))
        #expect(AvailSuppression.afterLiveEdge(.zero, partial: false).suppresses(breakStart: e - 1, edge: e))
        #expect(!AvailSuppression.afterLiveEdge(.zero, partial: true).suppresses(breakStart: e - 1, edge: e))
        #expect(!AvailSuppression.afterLiveEdge(.zero, partial: true).suppresses(breakStart: e, edge: e))
        let bads: [[(name: String, value: String)]] = [
            [("--content", "a=x"), ("--ads", "t"), ("--avail-suppression", "sometimes")],
            [("--content", "a=x"), ("--ads", "t"), ("--personalization-threshold", "-1")],
            [("--content", "a=x"), ("--ads", "t"), ("--personalization-threshold", "soon")],
            [("--listen", "nope")], [("--content", "=x"), ("--ads", "t")], [("--content", "a=x")], [("--ads", "t")],
            [("--content", "a=x"), ("--ads", "t"), ("--reporting", "both")], [("--content", "a/b=x"), ("--ads", "t")], [("--bogus", "1")],
        ]
        for bad in bads {
            #expect(throws: ServeConfig.ParseError.self) { try ServeConfig.make(bad) }
        }
        // every option the CLI lets through is one the configuration takes: an empty value is
        // refused for what it is, never as an unknown option
        for name in ServeConfig.optionNames {
            do {
                _ = try ServeConfig.make([(name, "")])
            } catch {
                #expect(!"\(error)".hasPrefix("unknown option"), "\(name): \(error)")
            }
        }
    }

    /// `[scte.…]`: the fields of the SCTE-35 signal that opened a live break, empty when the
    /// signal does not carry one (or there is no signal: VOD), unknown names left alone.
    @Test func scteVariablesComeFromTheBreaksSignal() throws {
        func values(_ scte: SCTEValues?) -> TagTemplate.Values {
            TagTemplate.Values(sessionID: "s", playerParams: [:], availDurationSeconds: 30, random: 1, scte: scte)
        }
        let insert = try SCTE35Section(parsing: LiveOriginSCTE35.spliceInsert(eventID: 4242, outOfNetwork: true, pts: 900_000, breakDuration: 2_700_000))
        let t = "https://ads/v?e=[scte.event_id]&n=[scte.avail_num]&s=[scte.segmentation_event_id]&u=[scte.segmentation_upid]&f=[scte.archive_allowed_flag]&x=[scte.bogus]"
        #expect(TagTemplate.expand(t, values(SCTEValues(insert))) == "https://ads/v?e=4242&n=0&s=&u=&f=&x=[scte.bogus]")
        #expect(TagTemplate.expand(t, values(nil)) == "https://ads/v?e=&n=&s=&u=&f=&x=[scte.bogus]")
        // a time_signal opening a provider placement opportunity (0x34 = 52), event 77
        let signal = try SCTE35Section(parsing: LiveOriginSCTE35.timeSignal(pts: 900_000, eventID: 77, typeID: 0x34, duration: 2_700_000))
        let u = "[scte.segmentation_event_id]/[scte.segmentation_type_id]/[scte.segment_num]/[scte.event_id]"
        #expect(TagTemplate.expand(u, values(SCTEValues(signal))) == "77/52/0/")
        // a UPID: printable bytes as text (percent-encoded in the URL), others as hex
        var d = try #require(signal.segmentation.first)
        d.upidType = 0x09
        d.upid = Array("SIGNAL:abc 1".utf8)
        #expect(SCTEValues(signal, descriptor: d).segmentationUPID == "SIGNAL:abc 1")
        #expect(TagTemplate.expand("[scte.segmentation_upid]", values(SCTEValues(signal, descriptor: d))) == "SIGNAL%3Aabc%201")
        d.upid = [0x01, 0xFF, 0x20]
        #expect(SCTEValues(signal, descriptor: d).segmentationUPID == "01ff20")
    }

    @Test func theTagTemplateTakesMediaTailorsVariablesEncoded() {
        let v = TagTemplate.Values(sessionID: "abc", playerParams: ["user": "a b&c", "dev": "tv"], availDurationSeconds: 30,
                                   availIndex: 2, random: 7, userAgent: "VLC/3")
        let t = "https://ads/v?sid=[session.id]&u=[player_params.user]&d=[player_params.dev]&m=[player_params.none]"
            + "&dur=[session.avail_duration_secs]&ms=[session.avail_duration_ms]&i=[avail.index]&r=[avail.random]&ua=[session.user_agent]&cb=[CACHEBUSTING]"
        #expect(TagTemplate.expand(t, v) == "https://ads/v?sid=abc&u=a%20b%26c&d=tv&m=&dur=30&ms=30000&i=2&r=7&ua=VLC%2F3&cb=[CACHEBUSTING]")
    }

    @Test func aPostedSessionAnswersItsURLsAndTheADSGetsItsParameters() async throws {
        let ads = try HTTPTestServer()
        defer { ads.stop() }
        ads.route("/vast", body: vast(id: "a1", media: "https://cdn/a1.mp4", tracker: ads.baseURL))
        let media = try FixtureMedia()
        let s = try RunningService(media: media, adsTemplate: ads.url("/vast?sid=[session.id]&u=[player_params.user]"))
        let r = try await curl(s.url("/v1/session/main"), method: "POST", body: #"{"adsParams": {"user": "x y", "n": 3}, "reportingMode": "client"}"#)
        #expect(r.status == 200)
        let j = try #require(r.json)
        let manifest = try #require(j["manifestUrl"] as? String)
        let tracking = try #require(j["trackingUrl"] as? String)
        let id = String(manifest.dropFirst("/v1/sessions/".count).prefix { $0 != "/" })
        #expect(manifest == "/v1/sessions/\(id)/master.m3u8" && tracking == "/v1/sessions/\(id)/tracking")
        #expect(id.count == 32)
        #expect(ads.requests.map(\.target) == ["/vast?sid=\(id)&u=x%20y"])
        let master = try await curl(s.url(manifest))
        #expect(master.status == 200)
        #expect(master.text.contains("/v1/sessions/\(id)/720p.m3u8") && master.text.contains("/v1/sessions/\(id)/360p.m3u8"))
        #expect(s.service.sessions.touch(id)?.reporting == .client)
    }

    @Test func badBodiesAre400WithAJSONError() async throws {
        let media = try FixtureMedia()
        let s = try RunningService(media: media, adsTemplate: "/nonexistent/tag.xml")
        for body in ["not json", "[1,2]", #"{"adsParams": 5}"#, #"{"adsParams": {"a": [1]}}"#, #"{"reportingMode": "both"}"#] {
            let r = try await curl(s.url("/v1/session/main"), method: "POST", body: body)
            #expect(r.status == 400, "\(body)")
            #expect(r.json?["error"] is String, "\(body)")
        }
        #expect(try await curl(s.url("/v1/session/nope"), method: "POST", body: "{}").status == 404)
        #expect(try await curl(s.url("/v1/sessions/0123/master.m3u8")).status == 404)
        #expect(try await curl(s.url("/v1/sessions/0123/tracking")).status == 404)
        #expect(try await curl(s.url("/v1/session/main")).status == 405)
        #expect(try await curl(s.url("/nothing")).status == 404)
        #expect(try await curl(s.url("/health")).json?["status"] as? String == "ok")
    }

    @Test func theMasterURLCreatesASessionFromItsQuery() async throws {
        let ads = try HTTPTestServer()
        defer { ads.stop() }
        ads.route("/vast", body: vast(id: "a1", media: "https://cdn/a1.mp4", tracker: ads.baseURL))
        let media = try FixtureMedia()
        let s = try RunningService(media: media, adsTemplate: ads.url("/vast?u=[player_params.user]&k=[player_params.k]"))
        let r = try await curl(s.url("/v1/master/main/index.m3u8?ads.user=alice&k=9"))
        #expect(r.status == 200)
        #expect(r.text.hasPrefix("#EXTM3U\n"))
        #expect(r.text.contains(",RESOLUTION=1280x720,CODECS=\"avc1.64001f,mp4a.40.2\""))
        // the one ad request; the fixture store has no such media (401): the session's plan,
        // decided with its first playlist, leaves the ad out and fires its Error URL once
        #expect(ads.requests.first?.target == "/vast?u=alice&k=9")
        #expect(ads.requests.filter { $0.target.hasPrefix("/vast") }.count == 1)
        #expect(s.service.sessions.count == 1)
    }

    @Test func idleSessionsExpire() async throws {
        let media = try FixtureMedia()
        // 3 s idle: long enough for the next request to come on a loaded machine (CI: at 0.3 s the
        // session had expired before the test's second curl), short enough to watch it go
        let s = try RunningService(media: media, adsTemplate: "/nonexistent/tag.xml") { $0.sessionIdleTimeout = 3 }
        let j = try #require(try await curl(s.url("/v1/session/main"), method: "POST", body: "").json)
        let manifest = try #require(j["manifestUrl"] as? String)
        #expect(try await curl(s.url(manifest)).status == 200)
        #expect(await eventually(30) { s.service.sessions.count == 0 })
        #expect(try await curl(s.url(manifest)).status == 404)
        #expect(try await curl(s.url("/metrics")).text.contains("interlude_serve_sessions_expired_total 1"))
    }

    @Test func everyRequestIsOneJSONLogLineEvenForAHostilePath() async throws {
        let media = try FixtureMedia()
        let s = try RunningService(media: media, adsTemplate: "/nonexistent/tag.xml")
        #expect(try await curl(s.url("/x%22y%5Cz%0A%E2%82%AC/%01")).status == 404)
        #expect(try await curl(s.url("/health")).status == 200)
        let requests = s.log.compactMap { line -> [String: Any]? in
            #expect(!line.contains("\n"))
            return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        }.filter { $0["event"] as? String == "request" }
        #expect(requests.count == 2)
        #expect(requests.first?["path"] as? String == "/x\"y\\z\n€/\u{01}")
        #expect(requests.first?["status"] as? Int == 404 && requests.first?["method"] as? String == "GET")
        #expect(requests.allSatisfy { $0["ms"] is Double && ($0["time"] as? String)?.hasSuffix("Z") == true })
    }
}
