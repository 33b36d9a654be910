import Foundation
@testable import Serve
import TestSupport
import Testing
import Timing

/// The answers real ad servers give most often — no fill, 204, 404, slow, dead, a bomb, a local
/// file as media, media the store cannot use — each leave the session playing its content.
@Suite struct ServeHostileADSTests {
    /// A session on `template`; its 720p playlist, and how long the session took to start.
    func contentOnly(_ template: String, media: FixtureMedia? = nil, timeout: Double = 0.5) async throws -> (playlist: String, seconds: Double, service: RunningService) {
        let m = try media ?? FixtureMedia()
        let s = try RunningService(media: m, adsTemplate: template) { $0.adsTimeout = timeout; $0.clock = .shared }
        let t0 = Date()
        let r = try await curl(s.url("/v1/session/main"), method: "POST", body: "{}")
        let took = Date().timeIntervalSince(t0)
        #expect(r.status == 200, "\(template): \(r.text)")
        let id = String(((r.json?["manifestUrl"] as? String) ?? "").dropFirst("/v1/sessions/".count).prefix { $0 != "/" })
        let p = try await curl(s.url("/v1/sessions/\(id)/720p.m3u8"))
        #expect(p.status == 200)
        return (p.text, took, s)
    }

    func expectContentOnly(_ playlist: String, _ label: String) {
        #expect(!playlist.contains("CUE-OUT") && !playlist.contains("DISCONTINUITY"), "\(label)")
        #expect(playlist.split(separator: "\n").filter { !$0.hasPrefix("#") } == (0..<5).map { "/v1/segments/content/720p/seg\($0).ts" }, "\(label)")
    }

    @Test func noFill204And404PlayContent() async throws {
        let ads = try HTTPTestServer()
        defer { ads.stop() }
        ads.route("/empty", body: #"<VAST version="4.1"/>"#)
        ads.route("/nocontent", HTTPTestServer.Response(status: 204))
        ads.route("/garbage", body: "this is not xml at all <<<")
        for path in ["/empty", "/nocontent", "/missing", "/garbage"] {
            let (p, _, _) = try await contentOnly(ads.url(path))
            expectContentOnly(p, path)
        }
    }

    /// A bound on a session start's wall time that says "it did not wait for the ADS's answer":
    /// the ADS timeout plus 20 s of slack for a loaded machine, well under `slowAnswer`.
    static func startBound(timeout: Double) -> Double { timeout + 20 }
    /// When the slow ADS answers: far past any start bound.
    static let slowAnswer: Double = 60

    @Test func aSlowOrDeadADSTimesOutAndPlaysContent() async throws {
        let ads = try HTTPTestServer()
        ads.route("/slow", body: vast(id: "a", media: "https://cdn/a.mp4", tracker: ads.url("/t")), delay: Self.slowAnswer)
        let (p, took, s) = try await contentOnly(ads.url("/slow"), timeout: 0.5)
        expectContentOnly(p, "slow")
        #expect(took < Self.startBound(timeout: 0.5),
                "the session waited \(took) s for an ADS that times out after 0.5 s (it answers after \(Self.slowAnswer) s)")
        #expect(try await curl(s.url("/metrics")).text.contains("interlude_serve_ads_errors_total 1"))
        let dead = ads.url("/x")
        ads.stop()
        let (p2, took2, _) = try await contentOnly(dead, timeout: 0.5)
        expectContentOnly(p2, "dead")
        #expect(took2 < Self.startBound(timeout: 0.5))
    }

    @Test func aBombIsCutOffAndPlaysContent() async throws {
        let ads = try HTTPTestServer()
        defer { ads.stop() }
        ads.route("/bomb", HTTPTestServer.Response.generated(200 << 20, declaresLength: false, contentType: "application/xml"))
        let (p, took, _) = try await contentOnly(ads.url("/bomb"), timeout: 5)
        expectContentOnly(p, "bomb")
        #expect(took < Self.startBound(timeout: 5))
        #expect(ads.bodyBytesSent("/bomb") < 50 << 20, "the loader stopped reading")
    }

    @Test func localFileMediaFromANetworkTagIsRefused() async throws {
        let ads = try HTTPTestServer()
        defer { ads.stop() }
        let media = try FixtureMedia()
        for m in ["file:///etc/passwd", "/etc/passwd"] { media.setAd(m, .ready([StoredSegment(path: "ads/x/R/seg0.ts", duration: MediaTime(seconds: 2))], duration: MediaTime(seconds: 2))) }
        ads.route("/local", body: vmap(midroll: "00:00:10.000", vast(id: "a", media: "file:///etc/passwd", tracker: ads.url("/t"))))
        ads.route("/path", body: vmap(midroll: "00:00:10.000", vast(id: "a", media: "/etc/passwd", tracker: ads.url("/t"))))
        for path in ["/local", "/path"] {
            let (p, _, _) = try await contentOnly(ads.url(path), media: media)
            expectContentOnly(p, path)
        }
        #expect(!media.adCalls.contains { $0.contains("passwd") }, "the store was never asked for a local file")
    }

    @Test func mediaTheStoreCannotUseFiresItsErrorURLOnceAndPlaysContent() async throws {
        let ads = try HTTPTestServer()
        defer { ads.stop() }
        let media = try FixtureMedia()
        media.setAd("https://cdn.example/broken.mp4", .failed(code: 405, reason: "not decodable"))
        ads.route("/vmap", body: vmap(midroll: "00:00:10.000", vast(id: "b", media: "https://cdn.example/broken.mp4", tracker: ads.url("/t"))))
        let s = try RunningService(media: media, adsTemplate: ads.url("/vmap")) { $0.fill = .content; $0.clock = .shared }
        let j = try #require(try await curl(s.url("/v1/session/main"), method: "POST", body: "{}").json)
        let manifest = try #require(j["manifestUrl"] as? String)
        let playlist = manifest.replacingOccurrences(of: "master", with: "720p")
        let p = try await curl(s.url(playlist)).text
        #expect(!p.contains("CUE-OUT") && !p.contains("/ads/"))
        _ = try await curl(s.url(playlist))
        #expect(await eventually(30) { ads.requests.contains { $0.path == "/t/error" } })
        try await Task.sleep(nanoseconds: 300_000_000)
        let errors = ads.requests.filter { $0.path == "/t/error" }
        #expect(errors.count == 1)
        #expect(errors.first?.target == "/t/error?ad=b&code=405")
    }
}
