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
}
