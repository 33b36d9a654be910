import Foundation
@testable import Serve
import TestSupport
import Testing
import Timing

/// A fleet as `make cluster` starts it — redis-server, nginx (deploy/nginx.conf), three serve
/// nodes and two workers of the built binary on one store folder — driven through nginx like
/// viewers: sessions made anywhere play from any node, each ad is transcoded once in the fleet,
/// and killing a worker, a node or Redis loses nothing.
@Suite(.serialized, .enabled(if: Cluster.available, "needs redis-server, nginx (make setup) and .build/debug/interlude"))
struct ClusterTests {
    static let ads = 6

    /// A loopback ad server: `vmap-V` puts ad V (a 1 s clip of its own) at 1.55 s into the 4 s content.
    final class AdServer: @unchecked Sendable {
        // @unchecked Sendable: immutable after init.
        let http: HTTPTestServer
        init(adSeconds: Int = 1) throws {
            http = try HTTPTestServer()
            for v in 0..<ClusterTests.ads {
                let clip = try TestMedia.clip(sourceID: 10 + v, width: 240, height: 180, fps: 30, seconds: Double(adSeconds), gop: 30)
                http.route("/ad\(v).mp4", HTTPTestServer.Response(headers: ["Content-Type": "video/mp4"], body: try Data(contentsOf: clip)))
                http.route("/vmap-\(v)", body: vmap(midroll: "00:00:01.550", vast(id: "ad\(v)", media: http.url("/ad\(v).mp4"), tracker: http.url("/t\(v)"), seconds: adSeconds)))
            }
        }
        var template: String { http.url("/vmap-[player_params.v]") }
        deinit { http.stop() }
    }

    static func cluster(_ ads: AdServer, serveArgs: String = "", workerArgs: String = "--visibility-timeout 3",
                        environment: [String: String] = [:]) throws -> Cluster {
        try Cluster(content: try StoreFixture.clip(), ads: ads.template,
                    serveArgs: "--renditions \(StoreFixture.ladder) --threads 16 " + serveArgs, workerArgs: workerArgs,
                    environment: environment)
    }

    /// Runs a Python program that speaks HTTP with the standard library.
    static func python(_ program: String, _ input: String = "") throws -> String { try stdlibPython(program, stdin: input) }

    /// Creates `count` sessions through nginx (16 at a time), ad `i % ads` for session i; their ids in order.
    static func createSessions(_ c: Cluster, count: Int, reporting: String = "client") throws -> [String] {
        let program = """
            import json, sys, urllib.request
            from concurrent.futures import ThreadPoolExecutor
            base, n, ads, mode = sys.stdin.read().split()
            def make(i):
                body = json.dumps({"adsParams": {"v": str(i % int(ads))}, "reportingMode": mode}).encode()
                req = urllib.request.Request(base + "/v1/session/c", data=body, method="POST", headers={"Content-Type": "application/json"})
                with urllib.request.urlopen(req, timeout=60) as r:
                    return json.load(r)["manifestUrl"].split("/")[3]
            with ThreadPoolExecutor(16) as pool:
                print("\\n".join(pool.map(make, range(int(n)))))
            """
        return try python(program, "\(c.url("")) \(count) \(ads) \(reporting)").split(separator: "\n").map(String.init)
    }

    /// GETs every URL (16 at a time); their status codes and bodies' lengths, in order.
    static func fetchAll(_ urls: [String]) throws -> [(status: Int, body: String)] {
        let program = """
            import json, sys, urllib.request, urllib.error
            from concurrent.futures import ThreadPoolExecutor
            urls = sys.stdin.read().split()
            def get(u):
                try:
                    with urllib.request.urlopen(u, timeout=60) as r:
                        return [r.status, r.read().decode("utf-8", "replace")]
                except urllib.error.HTTPError as e:
                    return [e.code, ""]
            with ThreadPoolExecutor(16) as pool:
                print(json.dumps(list(pool.map(get, urls))))
            """
        let out = try python(program, urls.joined(separator: "\n"))
        let rows = try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[Any]] ?? []
        return rows.map { (($0[0] as? Int) ?? 0, ($0[1] as? String) ?? "") }
    }

    /// Waits until every ad rendition is committed (up to `seconds`): the store's `ad.json` files.
    static func committedAds(_ c: Cluster) -> [String] {
        let ads = c.store.appendingPathComponent("ads")
        guard let e = FileManager.default.enumerator(atPath: ads.path) else { return [] }
        return e.compactMap { $0 as? String }.filter { $0.hasSuffix("/ad.json") }
    }

    /// The rungs of `StoreFixture.ladder`.
    static let rungs = 2

    /// Makes the fleet hold every ad in every rung: a session per ad asks for them (its plan
    /// looks at every rung, and leaves the ads out while they are transcoded, as MediaTailor's
    /// VOD sessions do), then waits until all are committed.
    static func warm(_ c: Cluster) async throws {
        let ids = try await offPool { try createSessions(c, count: ads) }
        let rows = try await offPool { try fetchAll(ids.map { c.url("/v1/sessions/\($0)/180p.m3u8") }) }
        #expect(rows.allSatisfy { $0.status == 200 && !$0.body.contains("/v1/segments/ads/") }, "the first sessions play content only")
        #expect(await eventually(60) { committedAds(c).count == ads * rungs }, "\(committedAds(c))")
    }

    /// The content and ad frames a session's top variant shows, downloaded through nginx by ffmpeg.
    static func frames(_ c: Cluster, session: String, into folder: URL) throws -> [FrameIdentity?] {
        let out = folder.appendingPathComponent("\(session).ts")
        let dl = try run(try Tools.ffmpegPath(), ["-nostdin", "-v", "error", "-xerror", "-i", c.url("/v1/sessions/\(session)/180p.m3u8"), "-c", "copy", "-y", out.path])
        guard dl.status == 0 else { throw VerifierError.malformedOutput("ffmpeg: \(dl.stderr)") }
        return try MediaVerifier.videoFrames(out, reader: IdentityReader(output: PixelSize(width: 320, height: 180), sources: [PixelSize(width: 240, height: 180)])).map(\.identity)
    }

    /// The nodes' log lines of content and cut segment requests (what nginx's cache did not
    /// answer), each after its node's name.
    static func contentRequests(_ c: Cluster) -> [String] {
        (1...3).flatMap { n in
            c.log("node\(n)").split(separator: "\n")
                .filter { line in ["content", "cuts"].contains { line.contains("\"path\":\"\\/v1\\/segments\\/\($0)\\/") } }
                .map { "node\(n) \($0)" }
        }
    }

    @Test func aThousandSessionsPlayFromAnyNodeAndEachAdIsTranscodedOnce() async throws {
        let ads = try AdServer()
        let c = try Self.cluster(ads)
        defer { c.stop() }
        try await Self.warm(c)
        let ids = try await offPool { try Self.createSessions(c, count: 1_000) }
        #expect(ids.count == 1_000 && Set(ids).count == 1_000)
        let creators = c.creators()
        #expect(creators.count == 1_000 + Self.ads && ids.allSatisfy { creators[$0] != nil }, "every session_created in a node's log")
        #expect(Set(creators.values).count == 3, "nginx spread the sessions over the three nodes")

        // Every session's playlists from a node other than its creator: the ad in them.
        let urls = ids.map { id -> String in
            let other = (creators[id] ?? 1) % 3 + 1
            return c.nodeURL(other, "/v1/sessions/\(id)/180p.m3u8")
        }
        // The fleet holds every ad: each session's first playlist plays it, whichever node plans it.
        let rows = try await offPool { try Self.fetchAll(urls) }
        #expect(rows.count == 1_000)
        #expect(rows.filter { $0.status == 200 }.count == 1_000)
        #expect(rows.filter { $0.body.contains("/v1/segments/ads/") }.count == 1_000, "every playlist has its ad")

        // Exactly once: a job per ad and rung in the stream, as many transcodes in the fleet, and units.
        #expect(try c.redis("XLEN", "interlude:jobs") == "\(Self.ads * Self.rungs)")
        #expect(try c.redis("GET", "interlude:stats:transcodes") == "\(Self.ads * Self.rungs)")
        #expect(try c.redis("XLEN", "interlude:jobs:dead") == "0")
        #expect(Self.committedAds(c).count == Self.ads * Self.rungs)

        // 20 sessions decoded: each content frame once, in order, the ad's 30 frames before frame 47.
        let folder = c.folder.appendingPathComponent("decoded")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for id in ids.prefix(20) {
            let frames = try await offPool { try Self.frames(c, session: id, into: folder) }
            let content = frames.compactMap { $0 }.filter { $0.sourceID == 3 }.map(\.frameIndex)
            #expect(content == Array(0..<StoreFixture.frames), "session \(id): content frames once and in order")
            let at = try #require(frames.firstIndex { $0 == FrameIdentity(sourceID: 3, frameIndex: 47) })
            let v = ids.firstIndex(of: id)! % Self.ads
            #expect(frames[(at - 30)..<at].allSatisfy { $0?.sourceID == 10 + v }, "session \(id): ad \(v)'s 30 frames right before frame 47")
        }
        // nginx served the stored segments itself (no query) and the nodes only what needs one.
        let nodeSegmentRequests = (1...3).map { c.log("node\($0)").components(separatedBy: "\"path\":\"\\/v1\\/segments\\/").count - 1 }
        #expect(nodeSegmentRequests.reduce(0, +) < 20 * 6, "most segments came from nginx, not the nodes: \(nodeSegmentRequests)")
        // content after the break carries its clock shift (`?o=`): one URL for every session
        // whose break is as long (sessions with the same ad), made by a node once and then
        // nginx's cache hits (the 20 sessions are decoded one after another)
        var shifted: [String] = []
        for id in ids.prefix(20) {
            let playlist = try await curl(c.url("/v1/sessions/\(id)/180p.m3u8")).text
            shifted += playlist.split(separator: "\n").map(String.init).filter { ($0.contains("/v1/segments/content/") || $0.contains("/v1/segments/cuts/")) && $0.contains("?") }
        }
        let distinct = Set(shifted)
        #expect(!distinct.isEmpty && distinct.count < shifted.count, "sessions share shifted content URLs: \(distinct.count) of \(shifted.count)")
        #expect(Self.contentRequests(c).count == distinct.count, "each shifted content URL made by a node once, then from nginx's cache: \(distinct.sorted()) against \(Self.contentRequests(c))")
    }

    @Test func aWorkerKilledMidTranscodeLosesNoJob() async throws {
        // Each worker sleeps 4 s (the test hook) between taking a job and transcoding it: a job
        // is held long enough to be seen in XPENDING and its worker killed mid-job, however fast
        // the machine transcodes (CI's did an 8 s ad between two polls of this test).
        let ads = try AdServer(adSeconds: 8)
        let c = try Self.cluster(ads, workerArgs: "--visibility-timeout 3", environment: ["INTERLUDE_WORKER_TEST_DELAY": "4"])
        defer { c.stop() }
        let ids = try await offPool { try Self.createSessions(c, count: 1) }
        _ = try await curl(c.url("/v1/sessions/\(ids[0])/180p.m3u8"))   // asks for the ad: a job
        // The worker that holds a job (XPENDING's consumer), killed while it works.
        var holder: String?
        #expect(await eventually(30) {
            let out = (try? c.redis("XPENDING", "interlude:jobs", "workers", "-", "+", "10")) ?? ""
            holder = ["worker1", "worker2"].first { out.contains($0) }
            return holder != nil
        }, "no worker held a job: XLEN \((try? c.redis("XLEN", "interlude:jobs")) ?? "?"), committed \(Self.committedAds(c).count); worker1: \(c.log("worker1").suffix(1500)) worker2: \(c.log("worker2").suffix(1500))")
        let victim = try #require(holder)
        c.kill(victim)
        // The other one claims it after the visibility timeout and commits it (both rungs: the
        // session's plan asked for every rung).
        #expect(await eventually(60) { Self.committedAds(c).count == Self.rungs }, "\(c.log(victim == "worker1" ? "worker2" : "worker1"))")
        #expect(try c.redis("XLEN", "interlude:jobs:dead") == "0")
        // That first session left the ad out (and keeps its playlist); the next one plays it.
        #expect(!(try await curl(c.url("/v1/sessions/\(ids[0])/180p.m3u8")).text.contains("/v1/segments/ads/")))
        let next = try await offPool { try Self.createSessions(c, count: 1) }
        let text = try await curl(c.url("/v1/sessions/\(next[0])/180p.m3u8")).text
        #expect(text.contains("/v1/segments/ads/"))
        #expect(c.log(victim == "worker1" ? "worker2" : "worker1").contains("stored"))
    }

    @Test func aNodeKilledMidRunLosesNoSessionAndABeaconFiresOnce() async throws {
        let ads = try AdServer()
        let c = try Self.cluster(ads)
        defer { c.stop() }
        try await Self.warm(c)
        let ids = try await offPool { try Self.createSessions(c, count: 60, reporting: "server") }
        // The ads are in every session's playlists (from any node); then node 2 is killed.
        let urls = ids.map { c.url("/v1/sessions/\($0)/180p.m3u8") }
        var rows = try await offPool { try Self.fetchAll(urls) }
        #expect(rows.allSatisfy { $0.body.contains("/v1/segments/ads/") })
        c.kill("node2")
        rows = try await offPool { try Self.fetchAll(urls + ids.map { c.url("/v1/sessions/\($0)/master.m3u8") }) }
        #expect(rows.filter { $0.status == 200 }.count == 2 * ids.count, "every session served by the two nodes left")
        let creators = c.creators()
        #expect(creators.values.contains(2), "node 2 had created some of them")

        // Beacons once: session 0's ad segments fetched from node 1, node 3 and through nginx.
        let playlist = rows[0].body
        let adSegments = playlist.split(separator: "\n").filter { $0.contains("/v1/segments/ads/") }.map(String.init)
        #expect(!adSegments.isEmpty)
        for base in [c.nodeURL(1, ""), c.nodeURL(3, ""), c.url("")] {
            _ = try await offPool { try Self.fetchAll(adSegments.map { base + $0 }) }
        }
        // Ad 0's tracker (only session 0's ad segments were fetched): impression, start and the
        // quartiles to complete, each once, though three places served the segments.
        let events = ["/t0/imp", "/t0/start", "/t0/q1", "/t0/mid", "/t0/q3", "/t0/complete"]
        #expect(await eventually(30) { events.allSatisfy { ads.http.requestCount($0) >= 1 } })
        try await Task.sleep(nanoseconds: 1_000_000_000)
        #expect(events.map { ads.http.requestCount($0) } == Array(repeating: 1, count: events.count),
                "each beacon fired once across the nodes: \(events.map { ads.http.requestCount($0) })")
    }

    @Test func sessionsSurviveARedisRestart() async throws {
        let ads = try AdServer()
        let c = try Self.cluster(ads)
        defer { c.stop() }
        let ids = try await offPool { try Self.createSessions(c, count: 20) }
        try await Task.sleep(nanoseconds: 1_500_000_000)   // the append-only file is synced every second
        // Redis killed (no shutdown save) and started again on its socket from its append-only file.
        c.kill("redis")
        // (posix_spawn with a clean signal mask: started by Foundation's Process it would ignore SIGTERM.)
        let redis = try Child.spawn("/usr/bin/redis-server", ["--port", "0", "--unixsocket", c.redisSocket, "--unixsocketperm", "700",
                                                              "--dir", c.folder.appendingPathComponent("redis").path, "--appendonly", "yes", "--save", ""])
        defer { redis.stop() }
        #expect(await eventually(10) { (try? c.redis("PING")) == "PONG" })
        // The nodes reconnect (backoff); every session answers on every node.
        var rows: [(status: Int, body: String)] = []
        let deadline = Date().addingTimeInterval(20)
        repeat {
            rows = try await offPool { try Self.fetchAll(ids.flatMap { id in (1...3).map { c.nodeURL($0, "/v1/sessions/\(id)/master.m3u8") } }) }
            if rows.allSatisfy({ $0.status == 200 }) { break }
            try await Task.sleep(nanoseconds: 300_000_000)
        } while Date() < deadline
        #expect(rows.filter { $0.status == 200 }.count == 3 * ids.count, "sessions persisted across the restart")
        // New sessions work again.
        #expect(try await offPool { try Self.createSessions(c, count: 3) }.count == 3)
    }
}
