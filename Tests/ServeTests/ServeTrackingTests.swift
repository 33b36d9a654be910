import Ads
import Foundation
@testable import Serve
import TestSupport
import Testing
import Timing

/// Tracking: server-side beacons reach a loopback ad server once each, when the ad segment
/// holding them is fetched; client-side sessions answer MediaTailor's tracking JSON and fire nothing.
@Suite struct ServeTrackingTests {
    static let adURL = "https://cdn.example/a1.mp4"

    func world(_ reporting: String) async throws -> (HTTPTestServer, RunningService, String, String) {
        let ads = try HTTPTestServer()
        ads.route("/vmap", body: vmap(midroll: "00:00:10.000", vast(id: "a1", media: Self.adURL, tracker: ads.url("/t"), seconds: 6)))
        let media = try FixtureMedia()
        media.setAd(Self.adURL, .ready(FixtureMedia.adSegments("a1", rendition: "R", seconds: MediaTime(seconds: 6)), duration: MediaTime(seconds: 6)))
        let s = try RunningService(media: media, adsTemplate: ads.url("/vmap")) { $0.clock = .shared }
        let j = try #require(try await curl(s.url("/v1/session/main"), method: "POST", body: #"{"reportingMode": "\#(reporting)"}"#).json)
        let id = String((j["manifestUrl"] as! String).dropFirst("/v1/sessions/".count).prefix { $0 != "/" })
        let playlist = try await curl(s.url("/v1/sessions/\(id)/720p.m3u8")).text
        return (ads, s, id, playlist)
    }

    @Test func serverSideBeaconsFireOnceWhenTheirSegmentIsFetched() async throws {
        let (ads, s, _, playlist) = try await world("server")
        defer { ads.stop() }
        let uris = playlist.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
        let adSegments = uris.filter { $0.contains("/ads/") }
        #expect(adSegments.count == 3)   // 0-2 s, 2-4 s, 4-6 s
        func beacons() -> [String] { ads.requests.map(\.path).filter { $0.hasPrefix("/t/") } }
        for u in uris.filter({ !$0.contains("/ads/") }) { _ = try await curl(s.url(u)) }
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(beacons().isEmpty, "content segments hold no beacon")
        _ = try await curl(s.url(adSegments[0]))
        // 0-2 s holds impression, start and the first quartile (1.5 s)
        #expect(await eventually(30) { Set(beacons()) == ["/t/imp", "/t/start", "/t/q1"] })
        _ = try await curl(s.url(adSegments[1]))   // 2-4 s: the midpoint (3 s)
        #expect(await eventually(30) { Set(beacons()) == ["/t/imp", "/t/start", "/t/q1", "/t/mid"] })
        _ = try await curl(s.url(adSegments[0]))   // again: nothing new
        _ = try await curl(s.url(adSegments[2]))   // 4-6 s: the third quartile (4.5 s) and complete (the last segment)
        #expect(await eventually(30) { beacons().count == 6 })
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(Set(beacons()) == ["/t/imp", "/t/start", "/t/q1", "/t/mid", "/t/q3", "/t/complete"])
        #expect(beacons().count == 6)
        #expect(try await curl(s.url("/metrics")).text.contains("interlude_serve_beacons_fired_total 6"))
    }

    @Test func clientSideTrackingIsMediaTailorsJSONAndFiresNothing() async throws {
        let (ads, s, id, playlist) = try await world("client")
        defer { ads.stop() }
        for u in playlist.split(separator: "\n").map(String.init).filter({ !$0.hasPrefix("#") }) { _ = try await curl(s.url(u)) }
        let j = try #require(try await curl(s.url("/v1/sessions/\(id)/tracking")).json)
        let avails = try #require(j["avails"] as? [[String: Any]])
        #expect(j["nonLinearAvails"] is [Any] && j.keys.contains("nextToken"))
        #expect(avails.count == 1)
        let avail = avails[0]
        #expect(avail["availId"] as? String == "mid1")
        #expect(avail["startTimeInSeconds"] as? Double == 10 && avail["durationInSeconds"] as? Double == 6)
        #expect(avail["startTime"] as? String == "PT10S" && avail["duration"] as? String == "PT6S")
        let ad = try #require((avail["ads"] as? [[String: Any]])?.first)
        #expect(ad["adId"] as? String == "a1" && ad["startTimeInSeconds"] as? Double == 10 && ad["durationInSeconds"] as? Double == 6)
        let events = try #require(ad["trackingEvents"] as? [[String: Any]])
        let byType = Dictionary(uniqueKeysWithValues: events.map { ($0["eventType"] as! String, $0) })
        #expect(Set(byType.keys) == ["impression", "start", "firstQuartile", "midpoint", "thirdQuartile", "complete"])
        for (type, at) in [("impression", 10.0), ("start", 10), ("firstQuartile", 11.5), ("midpoint", 13), ("thirdQuartile", 14.5), ("complete", 16)] {
            #expect(byType[type]?["startTimeInSeconds"] as? Double == at, "\(type)")
            #expect((byType[type]?["beaconUrls"] as? [String])?.count == 1, "\(type)")
            #expect(byType[type]?["eventId"] is String && byType[type]?["startTime"] is String && byType[type]?["durationInSeconds"] is Double)
        }
        #expect((byType["midpoint"]?["beaconUrls"] as? [String]) == [ads.url("/t/mid?ad=a1")])
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(ads.requests.filter { $0.path.hasPrefix("/t/") }.isEmpty, "client-side: the service fires nothing")
    }

    /// The session's first `EXT-X-PROGRAM-DATE-TIME`: the date of stream time zero.
    static func programDate(_ playlist: String) -> Date? {
        playlist.split(separator: "\n").first { $0.hasPrefix("#EXT-X-PROGRAM-DATE-TIME:") }
            .flatMap { MediaTailorSchema.date(String($0.dropFirst("#EXT-X-PROGRAM-DATE-TIME:".count))) }
    }

    @Test func vodTrackingHasEveryDocumentedKeyWithItsTypeAndNoOther() async throws {
        let (ads, s, id, playlist) = try await world("client")
        defer { ads.stop() }
        let j = try #require(try await curl(s.url("/v1/sessions/\(id)/tracking")).json)
        #expect(MediaTailorSchema.violations(j) == [], "\(j)")
        // the dates are the playlist's EXT-X-PROGRAM-DATE-TIME at the same stream time
        let zero = try #require(Self.programDate(playlist))
        let avail = try #require((j["avails"] as? [[String: Any]])?.first)
        let ad = try #require((avail["ads"] as? [[String: Any]])?.first)
        let mid = try #require((ad["trackingEvents"] as? [[String: Any]])?.first { $0["eventType"] as? String == "midpoint" })
        for (value, at) in [(avail["availProgramDateTime"], 10.0), (ad["adProgramDateTime"], 10), (mid["eventProgramDateTime"], 13)] {
            let d = try #require((value as? String).flatMap(MediaTailorSchema.date), "\(value ?? "nil")")
            #expect(abs(d.timeIntervalSince(zero) - at) < 0.0015, "\(value ?? "nil") is not stream time \(at)")
        }
        #expect(avail["adType"] as? String == "avail" && avail["adMarkerDuration"] is NSNull)
        #expect(ad["vastAdId"] as? String == "a1" && ad["creativeId"] as? String == "cr-a1" && ad["creativeSequence"] as? String == "1")
    }

    @Test func nextTokenAsksOnlyForWhatIsNewer() async throws {
        let (ads, s, id, _) = try await world("client")
        defer { ads.stop() }
        func tracking(_ token: String?) async throws -> CurlResult {
            let q = token.map { "?nextToken=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") } ?? ""
            return try await curl(s.url("/v1/sessions/\(id)/tracking\(q)"))
        }
        // no token: everything, and a token past the last event listed (complete, at 16 s)
        let all = try #require(try await tracking(nil).json)
        let token = try #require(all["nextToken"] as? String)
        #expect(!token.isEmpty && (all["avails"] as? [Any])?.count == 1)
        #expect(TrackingToken(text: token)?.after == 16_000)
        // asked again with it: nothing newer, the same token back (as MediaTailor answers)
        let again = try #require(try await tracking(token).json)
        #expect((again["avails"] as? [Any])?.isEmpty == true && again["nextToken"] as? String == token, "\(again)")
        // an empty token is no token
        #expect((try await tracking("").json?["avails"] as? [Any])?.count == 1)
        // from 12 s on: the midpoint (13 s), third quartile and complete of the ad, in its avail
        let later = try #require(try await tracking(TrackingToken(after: 12_000).text).json)
        let avails = try #require(later["avails"] as? [[String: Any]])
        let events = (avails.first?["ads"] as? [[String: Any]])?.first?["trackingEvents"] as? [[String: Any]] ?? []
        #expect(avails.count == 1 && events.map { $0["eventType"] as? String ?? "" } == ["midpoint", "thirdQuartile", "complete"], "\(later)")
        #expect(MediaTailorSchema.violations(later) == [])
        #expect((later["nextToken"] as? String).flatMap { TrackingToken(text: $0)?.after } == 16_000)
        // a token that is not ours: 400 in one line
        for bad in ["garbage", Data("12s".utf8).base64EncodedString()] {
            let r = try await tracking(bad)
            #expect(r.status == 400 && r.text.split(separator: "\n").count == 1, "\(bad): \(r.status) \(r.text)")
        }
    }

    /// A planned ad with every event's beacon at `tracker`.
    static func planned(_ id: String, sequence: Int, tracker: String = "https://t.example") -> PlannedAd {
        let events = ["start", "firstQuartile", "midpoint", "thirdQuartile", "complete"]
        return PlannedAd(id: id, mediaURL: "https://cdn.example/\(id).mp4", declaredDuration: MediaTime(seconds: 4),
                         impressions: [URLTemplate("\(tracker)/imp?ad=\(id)")], errorURLs: [],
                         tracking: Dictionary(uniqueKeysWithValues: events.map { ($0, [URLTemplate("\(tracker)/\($0)?ad=\(id)")]) }),
                         title: id, adSystem: "fixture", creativeId: "cr-\(id)", sequence: sequence)
    }

    /// A cut exactly at an event's offset: the event's frame is the content's, so it is not owed
    /// (nor `complete`); the ad lasts what played; the ads after the cut are not the builder's to
    /// list (the live viewer leaves them out).
    @Test func anAdCutAtAnEventsOffsetOwesNeitherItNorComplete() throws {
        let ads = [Self.planned("x", sequence: 1), Self.planned("y", sequence: 2)]
        let brk = PlannedBreak(id: "b1", position: .midroll(.zero), ads: ads)
        let four = MediaTime(seconds: 4), one = MediaTime(seconds: 1)
        let avail = TrackingJSON.Avail(planned: brk, start: MediaTime(seconds: 100), duration: MediaTime(seconds: 5), markerDuration: MediaTime(seconds: 8),
                                       contentTime: .zero, ads: [
                                           TrackingJSON.Ad(planned: ads[0], index: 0, start: MediaTime(seconds: 100), length: four, played: four),
                                           TrackingJSON.Ad(planned: ads[1], index: 1, start: MediaTime(seconds: 104), length: four, played: one),
                                       ])
        let j = TrackingJSON.response([avail], programDate: Date(timeIntervalSince1970: 0))
        #expect(MediaTailorSchema.violations(j) == [])
        let listed = try #require((j["avails"] as? [[String: Any]])?.first?["ads"] as? [[String: Any]])
        func types(_ ad: [String: Any]) -> [String] { (ad["trackingEvents"] as? [[String: Any]] ?? []).map { $0["eventType"] as? String ?? "" } }
        #expect(types(listed[0]) == ["impression", "start", "firstQuartile", "midpoint", "thirdQuartile", "complete"])
        #expect(types(listed[1]) == ["impression", "start"], "the first quartile falls at the cut (1 s)")
        #expect(listed[1]["duration"] as? String == "PT1S" && listed[1]["startTime"] as? String == "PT1M44S")
        let ids = (listed[0]["trackingEvents"] as? [[String: Any]] ?? []).map { $0["eventId"] as? String ?? "" }
        #expect(Set(ids).count == ids.count && ids.first == "b1-ad-1-impression", "one id per event: \(ids)")
        // the server-side rule is the same one
        let due = AdBeacons.due(ads[1], in: brk, duration: four, contentTime: .zero, serverSide: true)
        #expect(AdBeacons.owed(due, played: MediaTime(value: 3, timescale: 2), length: four).map(\.event) == ["impression", "start", "firstQuartile"])
        #expect(AdBeacons.owed(due, played: four, length: four).map(\.event) == due.map(\.event))
    }

    /// Paging over a break without ads (slate only) and one with: what starts after the token.
    @Test func pagingListsWhatStartsAfterTheToken() throws {
        let ad = Self.planned("x", sequence: 1)
        let slateOnly = TrackingJSON.Avail(planned: PlannedBreak(id: "s", position: .midroll(.zero), ads: []), start: MediaTime(seconds: 10),
                                           duration: MediaTime(seconds: 6), markerDuration: nil, contentTime: .zero, ads: [])
        let withAd = TrackingJSON.Avail(planned: PlannedBreak(id: "a", position: .midroll(.zero), ads: [ad]), start: MediaTime(seconds: 30),
                                        duration: MediaTime(seconds: 4), markerDuration: nil, contentTime: .zero,
                                        ads: [TrackingJSON.Ad(planned: ad, index: 0, start: MediaTime(seconds: 30), length: MediaTime(seconds: 4), played: MediaTime(seconds: 4))])
        let zero = Date(timeIntervalSince1970: 0)
        func page(_ ms: Int64) -> TrackingToken.Page { TrackingToken.Page(token: TrackingToken(after: ms), sent: TrackingToken(after: ms).text) }
        func ids(_ j: [String: Any]) -> [String] { (j["avails"] as? [[String: Any]] ?? []).map { $0["availId"] as? String ?? "" } }
        func after(_ j: [String: Any]) -> Int64? { (j["nextToken"] as? String).flatMap { TrackingToken(text: $0)?.after } }
        let all = TrackingJSON.response([slateOnly, withAd], programDate: zero)
        #expect(ids(all) == ["s", "a"] && after(all) == 34_000)
        let fromFive = TrackingJSON.response([slateOnly, withAd], programDate: zero, page: page(5_000))
        #expect(ids(fromFive) == ["s", "a"] && after(fromFive) == 34_000)
        let fromTen = TrackingJSON.response([slateOnly, withAd], programDate: zero, page: page(10_000))
        #expect(ids(fromTen) == ["a"] && after(fromTen) == 34_000)
        let fromEnd = TrackingJSON.response([slateOnly, withAd], programDate: zero, page: page(34_000))
        #expect(ids(fromEnd).isEmpty && fromEnd["nextToken"] as? String == page(34_000).sent)
        #expect(TrackingJSON.response([], programDate: zero)["nextToken"] is NSNull, "nothing listed yet: no position to page from")
        #expect(MediaTailorSchema.violations(fromTen) == [])
    }

    @Test func tokensAndDurationsReadAndWriteAsDocumented() throws {
        let t = TrackingToken(after: 16_000)
        #expect(TrackingToken(text: t.text) == t)
        #expect(t.text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }, "no character a query must escape: \(t.text)")
        let standard = Data("16000".utf8).base64EncodedString()
        #expect(TrackingToken(text: standard) == t && TrackingToken(text: standard.replacingOccurrences(of: "+", with: " ")) == t)
        for bad in ["", "garbage", Data("-1".utf8).base64EncodedString(), Data("1_2".utf8).base64EncodedString(), Data("١٢".utf8).base64EncodedString(),
                    String(repeating: "A", count: 100)] {
            #expect(TrackingToken(text: bad) == nil, "\(bad)")
        }
        #expect(throws: TrackingToken.Refusal.self) { try TrackingToken.page("garbage") }
        #expect(try TrackingToken.page("") == nil && TrackingToken.page(nil) == nil)
        // Java's Duration.toString, as MediaTailor's payloads show (PT1M46.08S)
        for (ms, iso) in [(0, "PT0S"), (6_000, "PT6S"), (1_500, "PT1.5S"), (106_080, "PT1M46.08S"), (120_000, "PT2M"), (3_723_004, "PT1H2M3.004S")] as [(Int64, String)] {
            #expect(TrackingJSON.iso(ms) == iso)
            #expect(MediaTailorSchema.duration(iso).map { ($0 * 1000).rounded() } == Double(ms))
        }
        #expect(TrackingJSON.millis(MediaTime(value: 1_001, timescale: 30_000)) == 33)   // 33.37 ms
    }

    /// A two-ad pod (4 s each) with every quartile's beacon.
    static func pod(media: [String], tracker: String) -> String {
        let ads = media.enumerated().map { i, m in
            let id = "ad\(i + 1)"
            let events = ["start": "start", "firstQuartile": "q1", "midpoint": "mid", "thirdQuartile": "q3", "complete": "complete"]
                .sorted { $0.key < $1.key }
                .map { #"<Tracking event="\#($0.key)"><![CDATA[\#(tracker)/\#($0.value)?ad=\#(id)]]></Tracking>"# }.joined()
            return """
                <Ad id="\(id)" sequence="\(i + 1)"><InLine><AdSystem>fixture</AdSystem><AdTitle>\(id)</AdTitle>
                <Impression><![CDATA[\(tracker)/imp?ad=\(id)]]></Impression>
                <Creatives><Creative id="cr\(i + 1)"><Linear><Duration>00:00:04</Duration><TrackingEvents>\(events)</TrackingEvents>
                <MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="320" height="180"><![CDATA[\(m)]]></MediaFile></MediaFiles>
                </Linear></Creative></Creatives></InLine></Ad>
                """
        }
        return "<VAST version=\"4.1\">" + ads.joined() + "</VAST>"
    }

    /// A live break of 8 s (two 4 s ads planned) ended by its CUE-IN after 5.5 s: the second ad is
    /// cut 1.5 s in. The tracking JSON reports it as played (1.5 s, impression, start and first
    /// quartile at 1 s; no midpoint, third quartile or complete) and the service, reporting
    /// server-side, fires nothing after the cut.
    @Test func aLiveAdCutShortIsReportedAsPlayedAndFiresNothingAfterTheCut() async throws {
        let rig = try await ServeLiveSessionTests.Rig.start(breaks: [
            LiveOriginBreak(start: .frame(377), duration: MediaTime(seconds: 8), endsAfter: MediaTime(value: 11, timescale: 2), signal: .dateRange(.timeSignal)),
        ])
        defer { rig.stop() }
        rig.ads.route("/vast.xml", HTTPTestServer.Response(body: Self.pod(media: rig.adURLs, tracker: rig.ads.url("/t"))))
        try await rig.warm()
        guard let variant = try await ServeLiveSessionTests.startSession(rig) else { return }
        let (entries, _, _, _) = try await ServeLiveSessionTests.follow(rig, playlist: variant, steps: 10, into: rig.root.appendingPathComponent("cut"))
        #expect(entries.contains { $0.tags.contains("#EXT-X-CUE-IN") }, "content came back after the break")
        let id = variant.split(separator: "/")[2]
        let j = try #require(try await curl(rig.url("/v1/sessions/\(id)/tracking")).json)
        #expect(MediaTailorSchema.violations(j) == [], "\(j)")
        let avail = try #require((j["avails"] as? [[String: Any]])?.first, "\(j)")
        let start = try #require(avail["startTimeInSeconds"] as? Double)
        #expect(avail["durationInSeconds"] as? Double == 5.5 && avail["duration"] as? String == "PT5.5S", "\(avail)")
        #expect(avail["adMarkerDuration"] as? String == "PT8S", "the signalled length: \(avail["adMarkerDuration"] ?? "nil")")
        let listed = avail["ads"] as? [[String: Any]] ?? []
        #expect(listed.map { $0["adId"] as? String ?? "" } == ["ad1", "ad2"])
        guard listed.count == 2 else { return }
        func events(_ ad: [String: Any]) -> [String: Double] {
            Dictionary(uniqueKeysWithValues: (ad["trackingEvents"] as? [[String: Any]] ?? []).map {
                ($0["eventType"] as? String ?? "", ((($0["startTimeInSeconds"] as? Double ?? -1) - start) * 1000).rounded() / 1000)
            })
        }
        #expect(listed[0]["durationInSeconds"] as? Double == 4)
        #expect(events(listed[0]) == ["impression": 0, "start": 0, "firstQuartile": 1, "midpoint": 2, "thirdQuartile": 3, "complete": 4])
        #expect(listed[1]["durationInSeconds"] as? Double == 1.5 && listed[1]["duration"] as? String == "PT1.5S", "\(listed[1])")
        #expect((((listed[1]["startTimeInSeconds"] as? Double ?? 0) - start) * 1000).rounded() == 4000)
        #expect(events(listed[1]) == ["impression": 4, "start": 4, "firstQuartile": 5], "no event after the cut: \(events(listed[1]))")
        let impression = (listed[1]["trackingEvents"] as? [[String: Any]])?.first { $0["eventType"] as? String == "impression" }
        #expect(impression?["durationInSeconds"] as? Double == 1.5, "the impression lasts what played")
        // paging: asked again with its token, nothing newer
        let token = try #require(j["nextToken"] as? String)
        let again = try #require(try await curl(rig.url("/v1/sessions/\(id)/tracking?nextToken=\(token)")).json)
        #expect((again["avails"] as? [Any])?.isEmpty == true && again["nextToken"] as? String == token, "\(again)")
        // server-side: ad 1 whole, ad 2 up to its first quartile, nothing after the cut
        func beacons() -> Set<String> { Set(rig.ads.requests.map(\.target).filter { $0.hasPrefix("/t/") }) }
        let want: Set<String> = ["/t/imp?ad=ad1", "/t/start?ad=ad1", "/t/q1?ad=ad1", "/t/mid?ad=ad1", "/t/q3?ad=ad1", "/t/complete?ad=ad1",
                                 "/t/imp?ad=ad2", "/t/start?ad=ad2", "/t/q1?ad=ad2"]
        #expect(await eventually(30) { beacons() == want })
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(beacons() == want, "fired: \(beacons().sorted())")
    }
}

/// MediaTailor's client-side tracking JSON, key for key, as AWS documents it: every key of the
/// response, an avail, an ad, its `mediaFiles` and a tracking event, with its JSON type; nothing
/// else. Sources: the schema (https://docs.aws.amazon.com/mediatailor/latest/ug/ad-reporting-client-side-ad-tracking-schema.html)
/// and the full payloads of https://docs.aws.amazon.com/mediatailor/latest/ug/ad-id-client-side-tracking-api.html and
/// https://docs.aws.amazon.com/mediatailor/latest/ug/ad-reporting-client-side-ad-tracking-schema-player-controls.html.
enum MediaTailorSchema {
    /// A JSON type.
    enum Kind: Hashable { case string, number, array, object, null }

    static let response: [String: Set<Kind>] = [
        "avails": [.array], "dashAvailabilityStartTime": [.string, .null], "hlsAnchorMediaSequenceNumber": [.string, .null],
        "nextToken": [.string, .null], "nonLinearAvails": [.array],
    ]
    static let avail: [String: Set<Kind>] = [
        "adBreakTrackingEvents": [.array], "adMarkerDuration": [.string, .null], "ads": [.array], "adType": [.string], "availId": [.string],
        "availProgramDateTime": [.string, .null], "duration": [.string], "durationInSeconds": [.number], "meta": [.object, .null],
        "nonLinearAdsList": [.array], "startTime": [.string], "startTimeInSeconds": [.number],
    ]
    static let ad: [String: Set<Kind>] = [
        "adId": [.string], "adParameters": [.string], "adProgramDateTime": [.string, .null], "adSystem": [.string], "adTitle": [.string],
        "adVerifications": [.array], "companionAds": [.array], "creativeId": [.string], "creativeSequence": [.string], "duration": [.string],
        "durationInSeconds": [.number], "extensions": [.array], "icons": [.array], "mediaFiles": [.object], "skipOffset": [.string, .null],
        "startTime": [.string], "startTimeInSeconds": [.number], "trackingEvents": [.array], "vastAdId": [.string],
    ]
    static let mediaFiles: [String: Set<Kind>] = ["mediaFilesList": [.array], "mezzanine": [.string]]
    static let event: [String: Set<Kind>] = [
        "beaconUrls": [.array], "duration": [.string], "durationInSeconds": [.number], "eventId": [.string],
        "eventProgramDateTime": [.string, .null], "eventType": [.string], "startTime": [.string], "startTimeInSeconds": [.number],
    ]

    static func kind(_ v: Any) -> Kind? {
        if v is NSNull { return .null }
        if v is String { return .string }
        if v is [Any] { return .array }
        if v is [String: Any] { return .object }
        // Foundation on Linux reads `true` as an NSNumber too: a boolean is not a number here
        if v is NSNumber, String(describing: type(of: v)) != "__NSCFBoolean" { return .number }
        return nil
    }

    /// What departs from the schema: a key missing, one more, a wrong type, an ISO 8601
    /// duration that does not say its `…InSeconds`, a program date that is no date.
    static func violations(_ j: [String: Any]) -> [String] {
        var out: [String] = []
        func check(_ o: [String: Any], _ schema: [String: Set<Kind>], _ at: String) {
            for k in Set(schema.keys).subtracting(o.keys) { out.append("\(at): no \(k)") }
            for k in Set(o.keys).subtracting(schema.keys) { out.append("\(at): undocumented \(k)") }
            for (k, kinds) in schema { if let v = o[k], !(kind(v).map(kinds.contains) ?? false) { out.append("\(at).\(k): \(v) is not \(kinds)") } }
            for (iso, seconds) in [("duration", "durationInSeconds"), ("startTime", "startTimeInSeconds")] {
                if let d = o[iso] as? String, let s = o[seconds] as? Double, duration(d).map({ abs($0 - s) < 0.0005 }) != true {
                    out.append("\(at): \(iso) \(d) is not \(seconds) \(s)")
                }
            }
            for k in ["availProgramDateTime", "adProgramDateTime", "eventProgramDateTime"] {
                if let d = o[k] as? String, date(d) == nil { out.append("\(at).\(k): \(d) is no ISO 8601 date") }
            }
        }
        check(j, response, "response")
        for (i, a) in (j["avails"] as? [Any] ?? []).enumerated() {
            guard let a = a as? [String: Any] else { out.append("avails[\(i)] is no object"); continue }
            check(a, avail, "avails[\(i)]")
            for (n, ad) in (a["ads"] as? [Any] ?? []).enumerated() {
                guard let ad = ad as? [String: Any] else { out.append("avails[\(i)].ads[\(n)] is no object"); continue }
                check(ad, self.ad, "avails[\(i)].ads[\(n)]")
                if let m = ad["mediaFiles"] as? [String: Any] { check(m, mediaFiles, "avails[\(i)].ads[\(n)].mediaFiles") }
                for (e, ev) in (ad["trackingEvents"] as? [Any] ?? []).enumerated() {
                    guard let ev = ev as? [String: Any] else { out.append("event \(e) is no object"); continue }
                    check(ev, event, "avails[\(i)].ads[\(n)].trackingEvents[\(e)]")
                    if !((ev["beaconUrls"] as? [Any])?.allSatisfy { $0 is String } ?? false) { out.append("beaconUrls of event \(e) are not strings") }
                }
            }
        }
        return out.sorted()
    }

    /// Seconds of an ISO 8601 duration `PT[nH][nM][n[.f]S]`.
    static func duration(_ s: String) -> Double? {
        guard s.hasPrefix("PT"), s.count > 2 else { return nil }
        var total = 0.0, number = ""
        for c in s.dropFirst(2) {
            if c.isNumber || c == "." { number.append(c); continue }
            guard let n = Double(number) else { return nil }
            switch c { case "H": total += n * 3600; case "M": total += n * 60; case "S": total += n; default: return nil }
            number = ""
        }
        return number.isEmpty ? total : nil
    }

    /// An ISO 8601 date with or without fractional seconds.
    static func date(_ s: String) -> Date? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let d = f.date(from: s) { return d }
        f.formatOptions = [.withInternetDateTime]
        return f.date(from: s)
    }
}
