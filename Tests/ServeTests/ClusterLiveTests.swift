import Foundation
import Serve
import TestSupport
import Testing
import Timing

/// A live channel in a fleet (issue 35, item 1): two serve nodes and a worker on one store
/// folder and one Redis, behind nginx as deploy/nginx.conf has it (no sticky routing: a viewer's
/// requests go to either node). A viewer's session continues on whichever node answers, and
/// when the node that started it is SIGKILLed in the middle of a break the other continues the
/// same timeline: the same media sequence, the same ads to the frame, one ad request per break,
/// each beacon once.
@Suite(.serialized, .enabled(if: Cluster.available, "needs redis-server, nginx (make setup) and .build/debug/interlude"))
struct ClusterLiveTests {
    @Test func aLiveViewerMovesBetweenNodesAndOutlivesOneKilledMidBreak() async throws {
        // 2 s segments in real time; breaks of two 4 s ads at segments 18 (it gets the ads
        // transcoded by the fleet's worker) and 30 (the one the node dies in), each announced
        // four segments ahead
        var first = LiveOriginBreak(start: .segment(18), duration: MediaTime(seconds: 8), signal: .dateRange(.spliceInsert))
        first.signalledAhead = 4
        var second = LiveOriginBreak(start: .segment(30), duration: MediaTime(seconds: 8), signal: .dateRange(.spliceInsert))
        second.signalledAhead = 4
        let media = try LiveOriginMedia.make(sizes: [PixelSize(width: 320, height: 180)], seconds: 90)
        let ads = try HTTPTestServer()
        defer { ads.stop() }
        let clips = [ads.url("/a7.mp4"), ads.url("/a8.mp4")]
        ads.route("/a7.mp4", HTTPTestServer.Response(headers: ["Content-Type": "video/mp4"], body: try Data(contentsOf: try ServeLiveSessionTests.ad(7))))
        ads.route("/a8.mp4", HTTPTestServer.Response(headers: ["Content-Type": "video/mp4"], body: try Data(contentsOf: try ServeLiveSessionTests.ad(8))))
        // the avail's index in the tag: each break's beacons are told apart by their tracker path
        for i in 1...3 { ads.route("/vast-\(i).xml", body: ServeLiveSessionTests.pod(media: clips, tracker: ads.url("/t\(i)"))) }
        let origin = try LiveOrigin(media: media, breaks: [first, second], windowSize: 8, clock: .realTime, initialSegments: 8)
        defer { origin.stop() }
        let c = try Cluster(content: try StoreFixture.clip(), ads: ads.url("/vast-[avail.index].xml"), nodes: 2, workers: 1,
                            serveArgs: "--live ch=\(origin.url("/live.m3u8")) --ads-timeout 2", workerArgs: "--visibility-timeout 5")
        defer { c.stop() }

        let created = try await curl(c.url("/v1/session/ch"), method: "POST", body: "{}")
        try #require(created.status == 200, "\(created.text)")
        let manifest = try #require(created.json?["manifestUrl"] as? String)
        let id = manifest.split(separator: "/")[2]
        let master = try await curl(c.url(manifest)).text
        let variant = try #require(master.split(separator: "\n").first { $0.hasPrefix("/v1/sessions/") }.map(String.init), "\(master)")
        let starter = try #require(c.creators()[String(id)], "no node logged the session's creation")

        let folder = c.folder.appendingPathComponent("viewer")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let b2 = origin.breaks[1]
        var checker = RFC8216.RefreshChecker()
        var seen: [Int: ServeLiveSessionTests.Entry] = [:]
        var killed = false
        var problems: [String] = []
        let deadline = Date().addingTimeInterval(120)
        // as a player: the playlist about once a second, through nginx (either node), each new
        // segment downloaded; the starting node killed once the second break's first ad is listed
        while Date() < deadline {
            let r = try await curl(c.url(variant), timeout: 20)
            guard r.status == 200 else { problems.append("playlist \(r.status): \(r.text.prefix(200))"); try await Task.sleep(nanoseconds: 1_000_000_000); continue }
            problems += checker.add(r.text).filter { !$0.isAllowed }.map(\.description)
            for e in ServeLiveSessionTests.entries(r.text) {
                if let old = seen[e.sequence] {
                    if old.uri != e.uri { problems.append("media sequence \(e.sequence) changed: \(old.uri) → \(e.uri)") }
                    continue
                }
                seen[e.sequence] = e
                let s = try await curl(c.url(e.uri), timeout: 20)
                if s.status != 200 { problems.append("\(e.uri): \(s.status)") }
                try s.body.write(to: folder.appendingPathComponent("s\(e.sequence).ts"))
            }
            let bySequence = seen.keys.sorted().map { seen[$0]! }
            let starts = bySequence.filter { $0.tags.contains { $0.hasPrefix("#EXT-X-CUE-OUT:") } }
            if !killed, starts.count >= 2, starts[1].uri.contains("/v1/segments/ads/") {
                // the second break's first ad is out: the node that started the session dies
                c.kill("node\(starter)")
                killed = true
            }
            let ends = bySequence.enumerated().filter { $0.element.tags.contains("#EXT-X-CUE-IN") }.map(\.offset)
            if killed, ends.count >= 2, bySequence.count - ends[1] >= 3 { break }
            try await Task.sleep(nanoseconds: 1_000_000_000)
        }
        #expect(killed, "the second break never started")
        #expect(problems.isEmpty, "\(problems.prefix(10))")
        let ordered = seen.keys.sorted()
        #expect(ordered == Array((ordered.first ?? 0)...(ordered.last ?? -1)), "no gap in the media sequence")

        // the other node continued the same timeline: it logged the take-over, the viewer's frames
        // are the origin's once each in order, and the second break is the two ads, whole
        let survivor = starter == 1 ? 2 : 1
        #expect(c.log("node\(survivor)").contains("\"session_adopted\""), "the surviving node never took the session over")
        var lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:8", "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:VOD"]
        for (i, n) in ordered.enumerated() {
            if i > 0 && seen[n]!.tags.contains("#EXT-X-DISCONTINUITY") { lines.append("#EXT-X-DISCONTINUITY") }
            lines += ["#EXTINF:\(seen[n]!.duration),", "s\(n).ts"]
        }
        lines.append("#EXT-X-ENDLIST")
        let local = folder.appendingPathComponent("index.m3u8")
        try (lines.joined(separator: "\n") + "\n").write(to: local, atomically: true, encoding: .utf8)
        let shown = try await ServeLiveSessionTests.shown(local, contentSource: origin.media.sourceID)
        let content = shown.compactMap { if case .content(let n) = $0 { n } else { nil } }
        #expect(content == content.sorted() && Set(content).count == content.count, "content frames once each, in order")
        guard let start = shown.firstIndex(of: .content(b2.startFrame - 1)).map({ $0 + 1 }) else {
            Issue.record("the frame before the second break was not shown"); return
        }
        let want: [ServeLiveSessionTests.Shown] = (0..<120).map { .ad(7, $0) } + (0..<120).map { .ad(8, $0) } + [.content(b2.endFrame)]
        let got = Array(shown[start..<min(shown.count, start + want.count)])
        #expect(got == want, "the second break: \(got.first.map { "\($0)" } ?? "-") … \(got.count) frames, first difference at \((0..<min(got.count, want.count)).first { got[$0] != want[$0] } ?? -1)")

        // one ad request per break; each of the second break's beacons fired once, by either node
        let requests = ads.requests.map(\.target)
        for i in 1...2 { #expect(requests.filter { $0 == "/vast-\(i).xml" }.count == 1, "ad requests for avail \(i): \(requests.filter { $0.hasPrefix("/vast") })") }
        for ad in ["ad1", "ad2"] {
            for event in ["imp", "start", "mid", "complete"] {
                let target = "/t2/\(event)?ad=\(ad)"
                #expect(await eventually(10) { ads.requests.contains { $0.target == target } }, "\(target) never fired")
                #expect(ads.requests.filter { $0.target == target }.count == 1, "\(target) fired \(ads.requests.filter { $0.target == target }.count) times")
            }
        }
    }
}
