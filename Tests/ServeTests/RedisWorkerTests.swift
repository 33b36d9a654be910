import Foundation
@testable import Serve
import TestSupport
import Testing
import Timing

/// `interlude worker` processes on a real redis-server, taking the ad jobs stores enqueue
/// (`StoreOptions.jobQueue = RedisAdQueue`), over a loopback ad media server.
@Suite(.serialized, .enabled(if: RedisProcess.available, "needs /usr/bin/redis-server"))
struct ServeRedisWorkerTests {
    static var binary: URL {
        let candidates = [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("interlude"),
                          TestMedia.packageRoot.appendingPathComponent(".build/debug/interlude")]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[1]
    }

    /// A running `interlude worker`; killed (SIGKILL) when dropped if still running.
    final class Worker: @unchecked Sendable {
        let process = Process()
        let log: URL
        init(redis: RedisProcess, store: URL, name: String, extra: [String] = [], env: [String: String] = [:]) throws {
            log = FileManager.default.temporaryDirectory.appendingPathComponent("worker-\(name)-\(UUID().uuidString.prefix(6)).log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            process.executableURL = ServeRedisWorkerTests.binary
            process.arguments = ["worker", "--redis", redis.url, "--store", store.path, "--consumer", name,
                                 "--visibility-timeout", "3"] + extra
            process.environment = ProcessInfo.processInfo.environment.merging(env) { $1 }
            process.standardOutput = FileHandle.nullDevice
            process.standardError = try FileHandle(forWritingTo: log)
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }
        var text: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
        func kill() { if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
        deinit { kill(); try? FileManager.default.removeItem(at: log) }
    }

    static func adClip(_ id: Int, seconds: Double = 1) throws -> Data {
        try Data(contentsOf: try TestMedia.clip(sourceID: id, width: 160, height: 90, fps: 30, seconds: seconds, gop: 30))
    }

    static func store(_ root: URL, _ redis: RedisProcess) throws -> MediaStore {
        let queue = try RedisAdQueue(url: redis.url)
        return try StoreFixture.store(root) { $0.jobQueue = queue }
    }

    static func cli(_ redis: RedisProcess, _ args: [String]) throws -> String {
        try redis.redisCLI(args).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The ad rung folders committed under `root/ads` (`<sha>/<rung>` holding an `ad.json`).
    static func units(_ root: URL) -> [String] {
        let ads = root.appendingPathComponent("ads")
        var out: [String] = []
        for sha in (try? FileManager.default.contentsOfDirectory(atPath: ads.path)) ?? [] {
            for rung in (try? FileManager.default.contentsOfDirectory(atPath: ads.appendingPathComponent(sha).path)) ?? []
            where FileManager.default.fileExists(atPath: ads.appendingPathComponent("\(sha)/\(rung)/ad.json").path) {
                out.append("\(sha)/\(rung)")
            }
        }
        return out.sorted()
    }

    /// `ffmpeg -xerror` decoding the joined segments: its error text ("" when clean).
    static func xerror(_ file: URL) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        p.arguments = ["-nostdin", "-hide_banner", "-v", "error", "-xerror", "-i", file.path, "-f", "null", "-"]
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        p.waitUntilExit()
        return text.isEmpty && p.terminationStatus != 0 ? "exit status \(p.terminationStatus)" : text
    }

    @Test func aQueuedAdIsTranscodedByAWorkerAndTheStoreAnswersReady() async throws {
        let redis = try RedisProcess()
        defer { redis.stop() }
        let root = StoreFixture.folder("rw-ready")
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try HTTPTestServer()
        server.route("/ad.mp4", HTTPTestServer.Response(headers: ["Content-Type": "video/mp4"], body: try Self.adClip(7, seconds: 2)))
        let store = try Self.store(root, redis)
        guard case .pending = store.ad(mediaURL: server.url("/ad.mp4"), rendition: store.rendition(named: "180p")!) else { Issue.record("first answer not .pending"); return }
        let worker = try Worker(redis: redis, store: root, name: "w1")
        defer { worker.kill() }
        let r = try await ServeStoreAdTests.settled(store, server.url("/ad.mp4"), "180p")
        guard case .ready(let segments, let duration) = r else { Issue.record("not ready: \(r)\n\(worker.text)"); return }
        #expect(duration == MediaTime(seconds: 2))
        #expect(store.encodeCounts()["ad"] == nil, "the store transcoded nothing itself")
        let joined = try StoreFixture.concatenate(segments, store: store, into: root, name: "joined.ts")
        #expect(try await offPool { try Self.xerror(joined) } == "")
        let frames = try await offPool { try MediaVerifier.videoFrames(joined, reader: IdentityReader(output: PixelSize(width: 320, height: 180),
                                                                                                 sources: [PixelSize(width: 160, height: 90)])) }
        #expect(frames.map { $0.identity?.frameIndex } == (0..<60).map { Optional($0) }, "every ad frame once, in order")
        #expect(try Self.cli(redis, ["XLEN", RedisAdQueue.stream]) == "1")
        #expect(try Self.cli(redis, ["GET", RedisAdQueue.transcodes]) == "1")
        #expect(try Self.cli(redis, ["XPENDING", RedisAdQueue.stream, RedisAdQueue.group]).hasPrefix("0"), "acknowledged")
        #expect(Self.units(root).count == 1)
        // SIGTERM: exits 0
        kill(worker.process.processIdentifier, SIGTERM)
        try await offPool { worker.process.waitUntilExit() }
        #expect(worker.process.terminationStatus == 0)
    }

    @Test func theSameJobTwiceMakesTheSameBytes() async throws {
        let server = try HTTPTestServer()
        server.route("/ad.mp4", HTTPTestServer.Response(headers: ["Content-Type": "video/mp4"], body: try Self.adClip(8, seconds: 2)))
        var files: [[Data]] = []
        for run in 0..<2 {
            let redis = try RedisProcess()
            defer { redis.stop() }
            let root = StoreFixture.folder("rw-same\(run)")
            defer { try? FileManager.default.removeItem(at: root) }
            let store = try Self.store(root, redis)
            let worker = try Worker(redis: redis, store: root, name: "w\(run)")
            defer { worker.kill() }
            guard case .ready(let segments, _) = try await ServeStoreAdTests.settled(store, server.url("/ad.mp4"), "180p") else {
                Issue.record("run \(run) not ready\n\(worker.text)"); return
            }
            files.append(try segments.map { try Data(contentsOf: root.appendingPathComponent($0.path)) })
        }
        #expect(files[0].count > 0 && files[0] == files[1], "two transcodes of one job, byte for byte")
        if files[0] != files[1] {
            for (i, (a, b)) in zip(files[0], files[1]).enumerated() where a != b {
                let at = Array(zip(a, b)).firstIndex { $0 != $1 } ?? min(a.count, b.count)
                Issue.record(Comment(rawValue: "segment \(i): \(a.count) vs \(b.count) bytes, first difference at \(at)"))
            }
        }
    }

    @Test func twoWorkersAndTwoStoresTranscodeEachOfSixAdsOnce() async throws {
        let redis = try RedisProcess()
        defer { redis.stop() }
        let root = StoreFixture.folder("rw-six")
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try HTTPTestServer()
        for i in 0..<6 { server.route("/ad\(i).mp4", HTTPTestServer.Response(headers: ["Content-Type": "video/mp4"], body: try Self.adClip(10 + i))) }
        let stores = [try Self.store(root, redis), try Self.store(root, redis)]
        let workers = [try Worker(redis: redis, store: root, name: "a"), try Worker(redis: redis, store: root, name: "b")]
        defer { workers.forEach { $0.kill() } }
        for i in 0..<6 { for s in stores { _ = s.ad(mediaURL: server.url("/ad\(i).mp4"), rendition: s.rendition(named: "90p")!) } }
        for i in 0..<6 {
            for s in stores {
                guard case .ready = try await ServeStoreAdTests.settled(s, server.url("/ad\(i).mp4"), "90p") else {
                    Issue.record("ad \(i) not ready\n\(workers.map(\.text).joined())"); return
                }
            }
        }
        #expect(Self.units(root).count == 6)
        #expect(try Self.cli(redis, ["XLEN", RedisAdQueue.stream]) == "6", "one job per (url, rung) across the fleet")
        #expect(try Self.cli(redis, ["GET", RedisAdQueue.transcodes]) == "6", "exactly six transcodes")
        #expect(try Self.cli(redis, ["XPENDING", RedisAdQueue.stream, RedisAdQueue.group]).hasPrefix("0"), "all acknowledged")
        let logs = workers.map(\.text)
        #expect(logs.allSatisfy { $0.contains("stored ads/") }, "both workers took jobs:\n\(logs.joined())")
    }

    @Test func aJobOfAWorkerKilledMidTranscodeIsFinishedByAnother() async throws {
        let redis = try RedisProcess()
        defer { redis.stop() }
        let root = StoreFixture.folder("rw-kill")
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try HTTPTestServer()
        server.route("/ad.mp4", HTTPTestServer.Response(headers: ["Content-Type": "video/mp4"], body: try Self.adClip(9)))
        let store = try Self.store(root, redis)
        // the test-only delay holds the first worker inside its job (after it counted the transcode)
        let slow = try Worker(redis: redis, store: root, name: "slow", env: ["INTERLUDE_WORKER_TEST_DELAY": "60"])
        defer { slow.kill() }
        _ = store.ad(mediaURL: server.url("/ad.mp4"), rendition: store.rendition(named: "90p")!)
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline, try Self.cli(redis, ["GET", RedisAdQueue.transcodes]) != "1" { try await Task.sleep(nanoseconds: 50_000_000) }
        #expect(try Self.cli(redis, ["XPENDING", RedisAdQueue.stream, RedisAdQueue.group]).contains("slow"), "the slow worker holds the job")
        slow.kill()
        let other = try Worker(redis: redis, store: root, name: "other")
        defer { other.kill() }
        let started = Date()
        guard case .ready = try await ServeStoreAdTests.settled(store, server.url("/ad.mp4"), "90p") else {
            Issue.record("not finished by the other worker\n\(other.text)"); return
        }
        #expect(Date().timeIntervalSince(started) >= 1, "claimed only after the visibility timeout")
        #expect(other.text.contains("attempt 2"), Comment(rawValue: other.text))
        #expect(try Self.cli(redis, ["GET", RedisAdQueue.transcodes]) == "2")
        #expect(Self.units(root).count == 1)
        #expect(try Self.cli(redis, ["XPENDING", RedisAdQueue.stream, RedisAdQueue.group]).hasPrefix("0"))
    }

    @Test func poisonJobsEndInTheDeadLetterStreamAfterTheMostAttempts() async throws {
        let redis = try RedisProcess()
        defer { redis.stop() }
        let root = StoreFixture.folder("rw-poison")
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try HTTPTestServer()
        var garbage = Data(count: 200_000)
        for i in garbage.indices { garbage[i] = UInt8(truncatingIfNeeded: i &* 2_654_435_761 >> 13) }
        server.route("/garbage.mp4", HTTPTestServer.Response(headers: ["Content-Type": "video/mp4"], body: garbage))
        server.route("/slow.mp4", HTTPTestServer.Response(headers: ["Content-Type": "video/mp4"], body: try Self.adClip(11), delay: 30))
        server.route("/missing.mp4", body: "no", status: 404)
        let store = try Self.store(root, redis)
        let workers = [try Worker(redis: redis, store: root, name: "p1", extra: ["--fetch-timeout", "1", "--max-attempts", "3"]),
                       try Worker(redis: redis, store: root, name: "p2", extra: ["--fetch-timeout", "1", "--max-attempts", "3"])]
        defer { workers.forEach { $0.kill() } }
        for p in ["/garbage.mp4", "/slow.mp4", "/missing.mp4"] { _ = store.ad(mediaURL: server.url(p), rendition: store.rendition(named: "90p")!) }
        func failed(_ p: String) async throws -> Int? {
            if case .failed(let code, let reason) = try await ServeStoreAdTests.settled(store, server.url(p), "90p", seconds: 60) {
                #expect(!reason.isEmpty && !reason.contains("\n"))
                return code
            }
            return nil
        }
        #expect(try await failed("/garbage.mp4") == 405)
        #expect(try await failed("/slow.mp4") == 402)
        #expect(try await failed("/missing.mp4") == 401, "a clean failure is a result, no retries")
        let dead = try Self.cli(redis, ["XRANGE", RedisAdQueue.dead, "-", "+"])
        #expect(try Self.cli(redis, ["XLEN", RedisAdQueue.dead]) == "2", Comment(rawValue: dead))
        #expect(dead.contains("garbage.mp4") && dead.contains("slow.mp4") && !dead.contains("missing.mp4"), Comment(rawValue: dead))
        #expect(dead.components(separatedBy: "\n").filter { $0 == "3" }.count >= 2, "three attempts each: \(dead)")
        #expect(try Self.cli(redis, ["XPENDING", RedisAdQueue.stream, RedisAdQueue.group]).hasPrefix("0"))
        #expect(Self.units(root).isEmpty)
    }

    @Test func aWorkerWaitsOutARedisOutageAndLogsEachChangeOnce() async throws {
        let redis = try RedisProcess()
        defer { redis.stop() }
        let root = StoreFixture.folder("rw-outage")
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try HTTPTestServer()
        server.route("/ad.mp4", HTTPTestServer.Response(headers: ["Content-Type": "video/mp4"], body: try Self.adClip(12)))
        let worker = try Worker(redis: redis, store: root, name: "o")
        defer { worker.kill() }
        // the outage starts once the worker has connected (a fixed 0.5 s was too short on a
        // loaded machine: the worker's first line was then "unreachable", not "connected")
        #expect(await eventually(30) { worker.text.contains("connected") }, Comment(rawValue: worker.text))
        redis.kill()
        try await Task.sleep(nanoseconds: 3_000_000_000)
        try redis.restart()
        let store = try Self.store(root, redis)
        guard case .ready = try await ServeStoreAdTests.settled(store, server.url("/ad.mp4"), "90p") else {
            Issue.record("not ready after the outage\n\(worker.text)"); return
        }
        let lines = worker.text.split(separator: "\n")
        #expect(lines.filter { $0.contains("unreachable") }.count == 1, Comment(rawValue: worker.text))
        #expect(lines.filter { $0.hasSuffix("connected") }.count == 2, Comment(rawValue: worker.text))
        kill(worker.process.processIdentifier, SIGTERM)
        try await offPool { worker.process.waitUntilExit() }
        #expect(worker.process.terminationStatus == 0)
    }

    /// `interlude worker arguments` run to its end: its exit status and standard error.
    static func runWorker(_ arguments: [String]) async throws -> (status: Int32, stderr: String) {
        try await offPool { () -> (Int32, String) in
            let p = Process()
            p.executableURL = binary
            p.arguments = ["worker"] + arguments
            let e = Pipe()
            p.standardError = e
            p.standardOutput = FileHandle.nullDevice
            try p.run()
            let text = String(decoding: e.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            return (p.terminationStatus, text)
        }
    }

    @Test func badArgumentsAreOneLineAndExitStatus2() async throws {
        for args in [["--store", "/tmp/x"], ["--redis", "foo://x", "--store", "/tmp/x"], ["--redis", "unix:///x", "--store", "/tmp/x", "--max-attempts", "0"],
                     ["--redis", "unix:///x", "--store", "/tmp/x", "--visibility-timeout", "-1"], ["--redis", "unix:///x", "--bogus"]] {
            let (status, err) = try await Self.runWorker(args)
            #expect(status == 2, Comment(rawValue: args.joined(separator: " ")))
            #expect(err.hasPrefix("interlude worker: ") && err.filter { $0 == "\n" }.count == 1, Comment(rawValue: err))
        }
    }
}
