import Ads
import Foundation
@testable import Serve
import TestSupport
import Testing
import Timing

/// Where a session's breaks go: a VMAP's offsets (pre-, mid-, post-roll; two breaks at one place
/// one pod), a plain VAST at each of the origin's cues, and no local-file media from a network tag.
@Suite struct ServeAdPlannerTests {
    func schedule(_ xml: String) async throws -> AdSchedule {
        try await AdTagResolver(options: AdTagOptions(contentDuration: MediaTime(seconds: 30), allowNetwork: false)).load(response: Data(xml.utf8))
    }

    static func adBreak(_ offset: String, _ id: String, media: String = "https://cdn/x.mp4") -> String {
        """
        <vmap:AdBreak timeOffset="\(offset)" breakType="linear" breakId="\(id)"><vmap:AdSource id="\(id)-s" allowMultipleAds="false" followRedirects="true">
        <vmap:VASTAdData>\(vast(id: id, media: media, tracker: "https://t"))</vmap:VASTAdData></vmap:AdSource></vmap:AdBreak>
        """
    }

    @Test func aVMAPsBreaksGoAtTheirOffsetsOnePodPerPlace() async throws {
        let xml = #"<vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">"#
            + Self.adBreak("end", "post") + Self.adBreak("00:00:10.500", "m1") + Self.adBreak("start", "pre") + Self.adBreak("00:00:10.500", "m2")
            + Self.adBreak("50%", "half") + "</vmap:VMAP>"
        let s = try await schedule(xml)
        let plan = AdPlanner.plan(s, contentDuration: MediaTime(seconds: 30), originCues: [], tagURL: URL(string: "https://ads/vmap"), allowLocalMedia: false)
        #expect(plan.map(\.position) == [.preroll, .midroll(MediaTime(value: 105, timescale: 10)), .midroll(MediaTime(seconds: 15)), .postroll])
        #expect(plan[1].ads.map(\.id) == ["m1", "m2"] && plan[1].ads.map(\.sequence) == [1, 2])
        #expect(plan[0].ads[0].declaredDuration == MediaTime(seconds: 6))
        #expect(plan[0].ads[0].tracking["midpoint"]?.count == 1 && plan[0].ads[0].impressions.count == 1)
    }

    @Test func aPlainVASTGoesAtEachOriginCue() async throws {
        let s = try await schedule(vast(id: "a", media: "https://cdn/a.mp4", tracker: "https://t"))
        let cues = [MediaTime(seconds: 8), MediaTime(value: 41, timescale: 2)]
        let plan = AdPlanner.plan(s, contentDuration: MediaTime(seconds: 30), originCues: cues, tagURL: URL(string: "https://ads/v"), allowLocalMedia: false)
        #expect(plan.map(\.position) == cues.map { .midroll($0) })
        #expect(plan.allSatisfy { $0.ads.map(\.mediaURL) == ["https://cdn/a.mp4"] })
        let noCues = AdPlanner.plan(s, contentDuration: MediaTime(seconds: 30), originCues: [], tagURL: URL(string: "https://ads/v"), allowLocalMedia: false)
        #expect(noCues.map(\.position) == [.preroll])
    }

    @Test func mediaURLsResolveAndLocalFilesNeedALocalTag() async throws {
        let s = try await schedule(vast(id: "a", media: "media/a.mp4", tracker: "https://t"))
        let network = AdPlanner.plan(s, contentDuration: MediaTime(seconds: 30), originCues: [], tagURL: URL(string: "https://ads.example/tags/v.xml"), allowLocalMedia: false)
        #expect(network.first?.ads.first?.mediaURL == "https://ads.example/tags/media/a.mp4")
        let local = AdPlanner.plan(s, contentDuration: MediaTime(seconds: 30), originCues: [], tagURL: URL(fileURLWithPath: "/srv/tags/v.xml"), allowLocalMedia: true)
        #expect(local.first?.ads.first?.mediaURL == "/srv/tags/media/a.mp4")
        let file = try await schedule(vast(id: "a", media: "file:///etc/passwd", tracker: "https://t"))
        #expect(AdPlanner.plan(file, contentDuration: MediaTime(seconds: 30), originCues: [], tagURL: URL(string: "https://ads/v"), allowLocalMedia: false).isEmpty)
    }

    @Test func aLocalTagWrappingANetworkAdGetsNoLocalMedia() async throws {
        let ads = try HTTPTestServer()
        defer { ads.stop() }
        ads.route("/inline", body: vast(id: "n", media: "file:///etc/passwd", tracker: ads.url("/t")))
        let wrapper = """
            <VAST version="4.1"><Ad id="w"><Wrapper><AdSystem>w</AdSystem><VASTAdTagURI><![CDATA[\(ads.url("/inline"))]]></VASTAdTagURI></Wrapper></Ad></VAST>
            """
        let tag = FileManager.default.temporaryDirectory.appendingPathComponent("serve-planner-\(UUID().uuidString).xml")
        try wrapper.write(to: tag, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: tag) }
        let s = try await AdTagResolver().load(tag: tag.path)
        let plan = AdPlanner.plan(s, contentDuration: MediaTime(seconds: 30), originCues: [], tagURL: tag, allowLocalMedia: true)
        #expect(!plan.flatMap(\.ads).contains { $0.mediaURL.contains("passwd") })
    }
}
