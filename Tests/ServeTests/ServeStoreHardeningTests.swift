import Foundation
@testable import Serve
import TestSupport
import Testing
import Timing

/// What `interlude serve` and `interlude worker` do not trust: the store folder's files and
/// records (links, FIFOs, replaced segments, a planted `index.json` or `content.json`), Redis'
/// jobs (paths, local media, rungs), ad durations and a store that cannot be written. Each case
/// against the running service (curl on 127.0.0.1) or a real worker on a real redis-server.
@Suite(.serialized) struct ServeStoreHardeningTests {
    /// A store holding the content "c" (and, when asked, one ad) and a service over it.
    final class World: @unchecked Sendable {
        // @unchecked Sendable: immutable after init.
        let root: URL
        let outside: URL
        let ads: HTTPTestServer
        let store: MediaStore
        let running: RunningService

        init(_ name: String, root: URL? = nil, configure: (inout ServeConfig) -> Void = { _ in },
             options: (inout StoreOptions) -> Void = { _ in }) throws {
            self.root = root ?? StoreFixture.folder(name)
            outside = StoreFixture.folder("\(name)-outside")
            try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
            ads = try HTTPTestServer()
            ads.route("/ad.mp4", HTTPTestServer.Response(headers: ["Content-Type": "video/mp4"], body: try Data(contentsOf: try ServeStoreAdTests.adClip())))
            store = try StoreFixture.store(self.root, configure: options)
            running = try RunningService(media: store, adsTemplate: ads.url("/vmap-[player_params.v]")) { c in
                c.contents = [ContentSource(name: "c", source: "clip")]
                configure(&c)
            }
        }
        deinit { ads.stop(); try? FileManager.default.removeItem(at: outside) }
        func remove() { try? FileManager.default.removeItem(at: root) }

        /// The content's segments in `rung`, uncut.
        func segments(_ rung: String) async throws -> [StoredSegment] { try await store.cut("c", rendition: rung, at: []).runs[0] }

        /// `GET /v1/segments/PATH[?QUERY]`.
        func get(_ path: String, query: String = "", timeout: Int = 20) async throws -> CurlResult {
            try await curl(running.url("/v1/segments/\(path)\(query.isEmpty ? "" : "?" + query)"), timeout: timeout)
        }

        /// A new session with `v`'s VMAP; its media playlist in `rung` (status, text).
        func session(_ v: String, rung: String = "180p") async throws -> (Int, String) {
            let r = try await curl(running.url("/v1/session/c"), method: "POST", body: #"{"adsParams": {"v": "\#(v)"}, "reportingMode": "client"}"#)
            guard let manifest = r.json?["manifestUrl"] as? String else { return (r.status, r.text) }
            let p = try await curl(running.url(manifest.replacingOccurrences(of: "master.m3u8", with: "\(rung).m3u8")))
            return (p.status, p.text)
        }
    }

    static func path(_ url: URL) -> String { url.path }

    // MARK: the store's files

    @Test func linksPlantedInTheStoreAreNotFollowed() async throws {
        let w = try World("links")
        defer { w.remove() }
        let segs = try await w.segments("90p")
        #expect(segs.count == 2)
        // a segment replaced by a link to a file outside (the same bytes: only the link is wrong)
        let secret = w.outside.appendingPathComponent("secret.ts")
        try FileManager.default.copyItem(at: w.root.appendingPathComponent(segs[0].path), to: secret)
        try FileManager.default.removeItem(at: w.root.appendingPathComponent(segs[0].path))
        try FileManager.default.createSymbolicLink(at: w.root.appendingPathComponent(segs[0].path), withDestinationURL: secret)
        #expect(try await w.get(segs[0].path).status == 404, "a segment that is a link")
        #expect(try await w.get(segs[0].path, query: "o=90000").status == 404, "a link, on the stream clock's read path")
        // the rung's folder replaced by a link to a folder outside holding the same files
        let top = try await w.segments("180p")
        let folder = w.root.appendingPathComponent(top[0].path).deletingLastPathComponent()
        let moved = w.outside.appendingPathComponent("180p")
        try FileManager.default.moveItem(at: folder, to: moved)
        try FileManager.default.createSymbolicLink(at: folder, withDestinationURL: moved)
        #expect(try await w.get(top[0].path).status == 404, "a folder that is a link")
        #expect(try await w.get(top[1].path, query: "o=90000").status == 404)
        // a cut reads the rung's stored files: never through the link
        await #expect(throws: StoreError.self) { try await w.store.cut("c", rendition: "180p", at: [MediaTime(value: 155, timescale: 100)]) }
        #expect(!FileManager.default.fileExists(atPath: w.root.appendingPathComponent("cuts").path))
        // a path the index does not know, through a planted link
        try FileManager.default.createDirectory(at: w.root.appendingPathComponent("cuts"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: w.root.appendingPathComponent("cuts/planted"), withDestinationURL: moved)
        #expect(try await w.get("cuts/planted/\((top[0].path as NSString).lastPathComponent)").status == 404)
        try FileManager.default.createSymbolicLink(at: w.root.appendingPathComponent("cuts/planted.ts"), withDestinationURL: secret)
        #expect(try await w.get("cuts/planted.ts").status == 404)
        // the segments still in place are served
        #expect(try await w.get(segs[1].path).status == 200)
    }

    @Test func aSegmentReplacedByAnotherIsNotServed() async throws {
        let w = try World("replaced")
        defer { w.remove() }
        let low = try await w.segments("90p"), top = try await w.segments("180p")
        let original = try Data(contentsOf: w.root.appendingPathComponent(low[0].path))
        #expect(try await w.get(low[0].path).body == original)
        let other = try Data(contentsOf: w.root.appendingPathComponent(top[0].path))
        #expect(other.count != original.count)
        try other.write(to: w.root.appendingPathComponent(low[0].path))
        #expect(try await w.get(low[0].path).status == 404, "another rung's segment in its place")
        #expect(try await w.get(low[0].path, query: "o=90000").status == 404)
        try original.write(to: w.root.appendingPathComponent(low[0].path))
        #expect(try await w.get(low[0].path).body == original, "put back, served again")
    }

    @Test func theStoresRecordsAreNeverServed() async throws {
        let w = try World("records")
        defer { w.remove() }
        let segs = try await w.segments("90p")
        let prefix = segs[0].path.split(separator: "/").prefix(2).joined(separator: "/")
        guard case .ready(let ad, _) = try await ServeStoreAdTests.settled(w.store, w.ads.url("/ad.mp4"), "90p") else {
            Issue.record("the ad was not made"); return
        }
        let adPrefix = (ad[0].path as NSString).deletingLastPathComponent
        let records = ["\(prefix)/content.json", "\(adPrefix)/ad.json", "index.json", "\(prefix)/90p/video.nut"]
        #expect(FileManager.default.fileExists(atPath: w.root.appendingPathComponent("\(prefix)/90p/video.nut").path))
        for r in records {
            #expect(FileManager.default.fileExists(atPath: w.root.appendingPathComponent(r).path), "\(r) is in the store")
            let got = try await w.get(r)
            #expect(got.status == 404, "\(r): \(got.status)")
            #expect(!got.text.contains("\"source\""), "the source's path never leaves")
        }
        #expect(try await w.get(ad[0].path).status == 200)
    }

    @Test func aFIFOInPlaceOfASegmentDoesNotStallTheServer() async throws {
        let w = try World("fifo")
        defer { w.remove() }
        let segs = try await w.segments("90p")
        for s in segs {
            try FileManager.default.removeItem(at: w.root.appendingPathComponent(s.path))
            #expect(mkfifo(w.root.appendingPathComponent(s.path).path, 0o600) == 0)
        }
        let started = Date()
        // both file paths: sent from the file (sendfile), and read to shift its clock
        let plain = try await w.get(segs[0].path, timeout: 10)
        let shifted = try await w.get(segs[1].path, query: "o=90000", timeout: 10)
        #expect(plain.status == 404 && shifted.status == 404, "\(plain.status) \(shifted.status)")
        #expect(Date().timeIntervalSince(started) < 8, "answered at once")
        #expect(try await curl(w.running.url("/health"), timeout: 10).status == 200)
    }

    // MARK: the store's records read back

    @Test func aPlantedIndexUnitNeverDeletesOutsideTheStore() async throws {
        let root = StoreFixture.folder("index")
        defer { try? FileManager.default.removeItem(at: root) }
        let outside = StoreFixture.folder("index-outside")
        defer { try? FileManager.default.removeItem(at: outside) }
        try FileManager.default.createDirectory(at: outside.appendingPathComponent("dir"), withIntermediateDirectories: true)
        for name in ["victim", "dir/file", "linked"] { try Data("keep me".utf8).write(to: outside.appendingPathComponent(name)) }
        let first = try StoreFixture.store(root)
        _ = try await first.content("c")
        // plant: paths out of the store, an absolute one, one through a link, the whole content folder
        let rel = "../\(outside.lastPathComponent)"
        try FileManager.default.createDirectory(at: root.appendingPathComponent("cuts"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("cuts/link"), withDestinationURL: outside)
        var index = try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("index.json"))) as! [String: Any]
        var units = index["units"] as! [String: Any]
        func unit(_ key: String, _ files: [String], folder: String? = nil) {
            var u: [String: Any] = ["key": key, "kind": "ad", "files": files, "bytes": 1 << 40, "lastUsed": 0]
            if let folder { u["folder"] = folder }
            units[key] = u
        }
        unit("ads/a/b", ["\(rel)/victim"], folder: "\(rel)/dir")
        unit("ads/c/d", ["\(outside.path)/victim"])
        unit("ads/e/f", ["cuts/link/linked"])
        unit("ads/g/h", ["cuts/link/linked"], folder: "content")
        // a unit of the store's own shape whose folder holds a link out: the link goes, not its target
        try FileManager.default.createDirectory(at: root.appendingPathComponent("ads/i/j"), withIntermediateDirectories: true)
        try Data([0x47]).write(to: root.appendingPathComponent("ads/i/j/seg00000.ts"))
        try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("ads/i/j/out"), withDestinationURL: outside)
        unit("ads/i/j", ["ads/i/j/seg00000.ts"], folder: "ads/i/j")
        index["units"] = units
        try JSONSerialization.data(withJSONObject: index).write(to: root.appendingPathComponent("index.json"))
        // reopened with a bound that evicts everything not just made
        let store = try StoreFixture.store(root) { $0.maxBytes = 1 }
        _ = try? await store.cut("c", rendition: "90p", at: [MediaTime(value: 155, timescale: 100)])   // registers, so evicts
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent("ads/i/j").path), "the well-formed unit was evicted")
        for name in ["victim", "dir/file", "linked"] {
            #expect(FileManager.default.fileExists(atPath: outside.appendingPathComponent(name).path), "\(name) outside the store is still there")
        }
        #expect(FileManager.default.fileExists(atPath: outside.appendingPathComponent("dir").path))
    }

    @Test func aPlantedContentRecordIsNotTrusted() async throws {
        let root = StoreFixture.folder("record")
        defer { try? FileManager.default.removeItem(at: root) }
        let first = try StoreFixture.store(root)
        let p = try await first.packagedContent("c")
        let prefix = "content/\(p.storeKey)"
        let record = root.appendingPathComponent("\(prefix)/content.json")
        var text = try String(contentsOf: record, encoding: .utf8)
        let seg = p.renditions[0].segments[0].path
        text = text.replacingOccurrences(of: seg.replacingOccurrences(of: "/", with: "\\/"), with: "..\\/..\\/..\\/..\\/etc\\/passwd")
        #expect(text.contains("passwd"))
        try text.write(to: record, atomically: true, encoding: .utf8)
        let store = try StoreFixture.store(root)
        let again = try await store.packagedContent("c")
        #expect(again.renditions.allSatisfy { r in r.segments.allSatisfy { $0.path.hasPrefix(prefix + "/") && !$0.path.contains("..") } })
        #expect(store.encodeCounts()["ladder"] == 1, "packaged again rather than trusted")
    }

    // MARK: content plays whatever the ads do

    /// A VAST of one ad declaring `duration` (HH:MM:SS), its media at `media`.
    static func vast(_ id: String, duration: String, media: String) -> String {
        """
        <VAST version="4.1"><Ad id="\(id)"><InLine><AdSystem>t</AdSystem><AdTitle>\(id)</AdTitle><Impression><![CDATA[http://127.0.0.1:9/i]]></Impression>
        <Creatives><Creative><Linear><Duration>\(duration)</Duration>
        <MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="320" height="180"><![CDATA[\(media)]]></MediaFile></MediaFiles>
        </Linear></Creative></Creatives></InLine></Ad></VAST>
        """
    }

    /// A VMAP with a pre-roll and a mid-roll at 1.55 s (inside a segment: a cut is made), each `vast`.
    static func vmap(_ pre: String, _ mid: String) -> String {
        func adBreak(_ offset: String, _ id: String, _ v: String) -> String {
            """
            <vmap:AdBreak timeOffset="\(offset)" breakType="linear" breakId="\(id)"><vmap:AdSource id="\(id)s" allowMultipleAds="false" followRedirects="true"><vmap:VASTAdData>\(v)</vmap:VASTAdData></vmap:AdSource></vmap:AdBreak>
            """
        }
        return #"<vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">"# + adBreak("start", "pre", pre) + adBreak("00:00:01.550", "mid", mid) + "</vmap:VMAP>"
    }

    /// The seconds of content (segments under content/ or cuts/) a media playlist lists, and of everything.
    static func seconds(_ playlist: String) -> (content: Double, all: Double) {
        var content = 0.0, all = 0.0, pending = 0.0
        for line in playlist.split(separator: "\n") {
            if line.hasPrefix("#EXTINF:") { pending = Double(line.dropFirst(8).prefix { $0 != "," }) ?? 0; all += pending; continue }
            if line.hasPrefix("#") { continue }
            if line.contains("/v1/segments/content/") || line.contains("/v1/segments/cuts/") { content += pending }
        }
        return (content, all)
    }

    @Test(arguments: [BreakFill.content, .slate])
    func adsDeclaringHoursNeverCostTheContent(fill: BreakFill) async throws {
        let w = try World("long-\(fill.rawValue)", configure: { $0.fill = fill })
        defer { w.remove() }
        let dead = w.ads.url("/gone.mp4")
        w.ads.route("/gone.mp4", body: "gone", status: 404)
        let good = w.ads.url("/ad.mp4")
        let cases: [(String, String, String)] = [("ten", "10:00:00", good), ("two", "02:00:00", good), ("late", "00:59:00", dead)]
        for (v, duration, media) in cases {
            w.ads.route("/vmap-\(v)", body: Self.vmap(Self.vast("\(v)p", duration: duration, media: media), Self.vast("\(v)m", duration: duration, media: media)))
            let (status, text) = try await w.session(v)
            #expect(status == 200, "\(v): \(status) \(text)")
            let s = Self.seconds(text)
            #expect(abs(s.content - 4) < 0.01, "\(v): the whole content plays (\(s.content) s)")
            #expect(s.all < 4 + 600 * 2 + 0.01, "\(v): no slate over the longest (\(s.all) s)")
            #expect(!text.contains("/slate/"), "\(v): declared over 600 s: left out, no slate")
        }
        // a short ad with a dead media URL: slate for its declared length with --fill-with slate
        w.ads.route("/vmap-short", body: Self.vmap(Self.vast("sp", duration: "00:00:03", media: dead), Self.vast("sm", duration: "00:00:03", media: dead)))
        let (status, text) = try await w.session("short")
        #expect(status == 200, "\(text)")
        #expect(abs(Self.seconds(text).content - 4) < 0.01)
        #expect(text.contains("/slate/") == (fill == .slate))
        #expect(abs(Self.seconds(text).all - (fill == .slate ? 10 : 4)) < 0.01)
        // once made, the 10-hour ad plays its measured 2 s (both breaks)
        let deadline = Date().addingTimeInterval(60)
        var played = ""
        while Date() < deadline {
            let (st, t) = try await w.session("ten")
            #expect(st == 200)
            if t.contains("/v1/segments/ads/") { played = t; break }
            try await Task.sleep(nanoseconds: 300_000_000)
        }
        #expect(abs(Self.seconds(played).all - 8) < 0.05, "4 s of content and two 2 s ads: \(Self.seconds(played))")
    }

    // MARK: a store that cannot be written

    /// Whether this process may mount (root, and a kernel and sandbox that allow tmpfs and bind mounts).
    static let mayMount: Bool = {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/mount") || FileManager.default.isExecutableFile(atPath: "/bin/mount") else { return false }
        let probe = StoreFixture.folder("mount-probe")
        try? FileManager.default.createDirectory(at: probe, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: probe) }
        guard (try? Self.mount(["-t", "tmpfs", "-o", "size=64k,mode=0700", "tmpfs", probe.path])) != nil else { return false }
        try? Self.mount(["umount", probe.path])
        return true
    }()

    /// Runs mount(8) (or umount(8) when `args[0]` is "umount"); throws with its message on failure.
    static func mount(_ args: [String]) throws {
        let tool = args.first == "umount" ? "umount" : "mount"
        let path = ["/usr/bin/\(tool)", "/bin/\(tool)"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/bin/\(tool)"
        let r = try run(path, tool == "umount" ? Array(args.dropFirst()) : args)
        guard r.status == 0 else { throw StoreFixtureError.unknown("\(tool) \(args.joined(separator: " ")): \(r.stderr)") }
    }

    /// Sessions on a store that has its content and then cannot write: each gets its playlist,
    /// the whole content, the mid-roll's cut and the ads left out.
    static func sessionsOnAStoreThatCannotWrite(_ w: World, why: String) async throws {
        w.ads.route("/vmap-a", body: Self.vmap(Self.vast("p", duration: "00:00:02", media: w.ads.url("/ad.mp4")),
                                              Self.vast("m", duration: "00:00:02", media: w.ads.url("/ad.mp4"))))
        for _ in 0..<2 {
            let (status, text) = try await w.session("a")
            #expect(status == 200, "\(why): \(status) \(text)")
            #expect(abs(Self.seconds(text).content - 4) < 0.01, "\(why): the whole content, uncut")
            #expect(!text.contains("/v1/segments/cuts/") && !text.contains("/v1/segments/ads/"), "\(why): \(text)")
            for uri in text.split(separator: "\n") where !uri.hasPrefix("#") {
                #expect(try await curl(w.running.url(String(uri))).status == 200)
            }
        }
        #expect(w.running.log.contains { $0.contains("cut") && $0.contains("left out") }, "\(why): logged\n\(w.running.log.joined(separator: "\n"))")
    }

    @Test(.enabled(if: mayMount, "needs root and mount(8): a read-only bind mount"))
    func aReadOnlyStoreStillGivesEverySessionItsContent() async throws {
        let root = StoreFixture.folder("ro")
        defer { try? FileManager.default.removeItem(at: root) }
        _ = try await StoreFixture.store(root).content("c")
        try Self.mount(["--bind", root.path, root.path])
        defer { try? Self.mount(["umount", root.path]) }
        try Self.mount(["-o", "remount,bind,ro", root.path])
        #expect(!FileManager.default.createFile(atPath: root.appendingPathComponent("probe").path, contents: Data()), "the store is read-only")
        let w = try World("ro", root: root)
        try await Self.sessionsOnAStoreThatCannotWrite(w, why: "read-only")
    }

    @Test(.enabled(if: mayMount, "needs root and mount(8): a small tmpfs"))
    func aFullStoreStillGivesEverySessionItsContent() async throws {
        let root = StoreFixture.folder("full")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try Self.mount(["-t", "tmpfs", "-o", "size=16m,mode=0700", "tmpfs", root.path])
        defer { try? Self.mount(["umount", root.path]) }
        let w = try World("full", root: root)
        _ = try await w.store.content("c")
        // fill what is left
        let fillerPath = root.appendingPathComponent("filler").path
        #expect(FileManager.default.createFile(atPath: fillerPath, contents: nil))
        let filler = try #require(FileHandle(forWritingAtPath: fillerPath))
        let chunk = Data(count: 1 << 16)
        var written = 0
        while (try? filler.write(contentsOf: chunk)) != nil { written += chunk.count; if written > 32 << 20 { break } }
        try? filler.close()
        var fs = statvfs()
        #expect(statvfs(root.path, &fs) == 0 && fs.f_bavail == 0, "the store's file system is full")
        try await Self.sessionsOnAStoreThatCannotWrite(w, why: "full")
    }

    // MARK: jobs from Redis

    static func fields(_ job: AdJobRequest, _ change: [String: String] = [:]) -> [String] {
        var f = RedisAdQueue.fields(job)
        for (k, v) in change { if let i = stride(from: 0, to: f.count, by: 2).first(where: { f[$0] == k }) { f[i + 1] = v } }
        return f
    }

    static let rung = Rendition(name: "90p", width: 160, height: 90, videoBitrate: 150_000, audioBitrate: 64_000)

    @Test func jobsAreValidatedAsStrictlyAsARequest() throws {
        let job = AdJobRequest(url: "http://127.0.0.1:9/ad.mp4", rendition: Self.rung, segmentTarget: MediaTime(seconds: 2), allowLocal: false)
        #expect(job.problem == nil)
        func with(_ change: (inout AdJobRequest) -> Void) -> AdJobRequest { var j = job; change(&j); return j }
        let refused: [(String, AdJobRequest)] = [
            ("a path for a name", with { $0.rendition.name = "../../../escape" }), ("a slash", with { $0.rendition.name = "a/b" }),
            ("a dot", with { $0.rendition.name = ".hidden" }), ("a long name", with { $0.rendition.name = String(repeating: "a", count: 33) }),
            ("8192x8192", with { $0.rendition.width = 8192; $0.rendition.height = 8192 }),
            ("over 4K", with { $0.rendition.width = 4000; $0.rendition.height = 4000 }),
            ("tiny", with { $0.rendition.width = 8 }),
            ("video under 1 kbit/s", with { $0.rendition.videoBitrate = 999 }), ("video over 200 Mbit/s", with { $0.rendition.videoBitrate = 300_000_000 }),
            ("no audio rate", with { $0.rendition.audioBitrate = 0 }),
            ("half a second", with { $0.segmentTarget = MediaTime(value: 1, timescale: 2) }), ("31 s", with { $0.segmentTarget = MediaTime(seconds: 31) }),
            ("ftp", with { $0.url = "ftp://x/a.mp4" }), ("a local path", with { $0.url = "/etc/passwd" }),
            ("a file URL", with { $0.url = "file:///etc/passwd" }), ("a long URL", with { $0.url = "http://" + String(repeating: "a", count: 9000) }),
            ("1000 fps", with { $0.rendition.frameRateNumerator = 1000; $0.rendition.frameRateDenominator = 1 }),
            ("a codec with a path", with { $0.rendition.videoCodec = "../x" }),
            ("a 2 s decode delay", with { $0.rendition.decodeDelayTicks = 180_000 }), ("a negative decode delay", with { $0.rendition.decodeDelayTicks = -1 }),
        ]
        for (why, j) in refused { #expect(j.problem != nil, "\(why)") }
        #expect(with { $0.rendition.width = 3840; $0.rendition.height = 2160 }.problem == nil, "4K is a rung")
        #expect(with { $0.url = "/media/ad.mp4"; $0.allowLocal = true }.problem == nil, "a local document's ad: the worker's folder decides")
        // from the stream: what a node enqueues parses back; a changed field no longer matches its id
        func parsed(_ f: [String]) -> AdJobRequest? {
            RedisAdQueue.job(fields: Dictionary(uniqueKeysWithValues: stride(from: 0, to: f.count, by: 2).map { (f[$0], f[$0 + 1]) }))
        }
        #expect(parsed(Self.fields(job)) == job)
        let paced = with { $0.rendition = $0.rendition.serving(frameRate: Rational(30, 1), codecs: "avc1.64001f", decodeDelayTicks: 6_000) }
        #expect(parsed(Self.fields(paced)) == paced, "a rung's frame rate, codec and decode delay travel with its job")
        #expect(parsed(Self.fields(paced, ["dd": "180000"])) == nil)
        #expect(parsed(Self.fields(paced, ["dd": "x"])) == nil)
        #expect(parsed(Self.fields(job, ["h": String(repeating: "0", count: 64)])) == nil)
        #expect(parsed(Self.fields(job, ["width": "320", "height": "180"])) == nil, "the id no longer matches")
        #expect(parsed(Self.fields(job, ["width": "x"])) == nil)
        let bad = with { $0.rendition.name = "../../../escape" }
        #expect(parsed(Self.fields(bad)) == nil, "a planted job whose id matches is still refused")
    }

    @Test(.enabled(if: RedisProcess.available, "needs /usr/bin/redis-server"))
    func aPlantedJobNeverWritesOutsideTheStore() async throws {
        let redis = try RedisProcess()
        defer { redis.stop() }
        let parent = StoreFixture.folder("escape")
        let root = parent.appendingPathComponent("a/b/store")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: parent) }
        let server = try HTTPTestServer()
        server.route("/ad.mp4", HTTPTestServer.Response(headers: ["Content-Type": "video/mp4"], body: try ServeRedisWorkerTests.adClip(7)))
        let worker = try ServeRedisWorkerTests.Worker(redis: redis, store: root, name: "e")
        defer { worker.kill() }
        var bad = Self.rung
        bad.name = "../../../escape"
        let job = AdJobRequest(url: server.url("/ad.mp4"), rendition: bad, segmentTarget: MediaTime(seconds: 2), allowLocal: false)
        _ = try ServeRedisWorkerTests.cli(redis, ["XADD", RedisAdQueue.stream, "*"] + Self.fields(job))
        var big = Self.rung
        big.width = 8192; big.height = 8192
        let huge = AdJobRequest(url: server.url("/ad.mp4"), rendition: big, segmentTarget: MediaTime(seconds: 2), allowLocal: false)
        _ = try ServeRedisWorkerTests.cli(redis, ["XADD", RedisAdQueue.stream, "*"] + Self.fields(huge))
        #expect(await eventually(30) { (try? ServeRedisWorkerTests.cli(redis, ["XLEN", RedisAdQueue.dead])) == "2" }, Comment(rawValue: worker.text))
        let everything = FileManager.default.enumerator(atPath: parent.path)?.allObjects as? [String] ?? []
        #expect(!everything.contains { $0.contains("escape") }, "\(everything)")
        #expect(worker.text.contains("malformed"), Comment(rawValue: worker.text))
    }

    @Test(.enabled(if: RedisProcess.available, "needs /usr/bin/redis-server"))
    func aWorkerReadsLocalMediaOnlyInTheFolderItWasGiven() async throws {
        let redis = try RedisProcess()
        defer { redis.stop() }
        let root = StoreFixture.folder("local")
        let media = StoreFixture.folder("local-media"), elsewhere = StoreFixture.folder("local-elsewhere")
        for f in [media, elsewhere] { try FileManager.default.createDirectory(at: f, withIntermediateDirectories: true) }
        defer { for f in [root, media, elsewhere] { try? FileManager.default.removeItem(at: f) } }
        let clip = try ServeRedisWorkerTests.adClip(9)
        try clip.write(to: media.appendingPathComponent("ad.mp4"))
        try clip.write(to: elsewhere.appendingPathComponent("secret.mp4"))
        try FileManager.default.createSymbolicLink(at: media.appendingPathComponent("link.mp4"), withDestinationURL: elsewhere.appendingPathComponent("secret.mp4"))
        func submit(_ path: String) throws -> AdJobRequest {
            let job = AdJobRequest(url: path, rendition: Self.rung, segmentTarget: MediaTime(seconds: 2), allowLocal: true)
            _ = try ServeRedisWorkerTests.cli(redis, ["XADD", RedisAdQueue.stream, "*"] + Self.fields(job))
            return job
        }
        func result(_ job: AdJobRequest) async -> String {
            var text = ""
            _ = await eventually(40) { text = (try? ServeRedisWorkerTests.cli(redis, ["GET", RedisAdQueue.resultKey(job.id)])) ?? ""; return !text.isEmpty }
            return text
        }
        // without the option: no local file at all
        let plain = try ServeRedisWorkerTests.Worker(redis: redis, store: root, name: "plain")
        let first = try submit(media.appendingPathComponent("ad.mp4").path)
        #expect(await result(first).hasPrefix("failed 403"), Comment(rawValue: plain.text))
        plain.kill()
        // with it: a file in the folder, not one elsewhere nor a link out of it
        let allowed = try ServeRedisWorkerTests.Worker(redis: redis, store: root, name: "allowed", extra: ["--allow-local-media", media.path])
        defer { allowed.kill() }
        let inside = try submit("file://" + media.appendingPathComponent("ad.mp4").path)
        let out = try submit(elsewhere.appendingPathComponent("secret.mp4").path)
        let linked = try submit(media.appendingPathComponent("link.mp4").path)
        let dotted = try submit(media.appendingPathComponent("../\(elsewhere.lastPathComponent)/secret.mp4").path)
        #expect(await result(inside).hasPrefix("stored ads/"), Comment(rawValue: allowed.text))
        for job in [out, linked, dotted] { #expect(await result(job).hasPrefix("failed 403"), "\(job.url)\n\(allowed.text)") }
        #expect(ServeRedisWorkerTests.units(root).count == 1)
    }

    @Test func theLocalMediaFolderMustBeAFolder() async throws {
        for folder in ["/nonexistent-\(getpid())", "/etc/hostname", ""] {
            let (status, err) = try await ServeRedisWorkerTests.runWorker(["--redis", "unix:///x", "--store", "/tmp/x", "--allow-local-media", folder])
            #expect(status == 2 && err.hasPrefix("interlude worker: --allow-local-media") && err.filter { $0 == "\n" }.count == 1, Comment(rawValue: err))
        }
    }
}
