import Foundation
import TestSupport

/// A fleet on 127.0.0.1 started by `scripts/cluster.sh` as a user starts it (deploy/nginx.conf as
/// it is): redis-server, nginx, `nodes` serve nodes and `workers` workers of the debug binary on
/// one store folder. Stopped (SIGTERM to the script, which stops what it started) on `stop()`.
final class Cluster: @unchecked Sendable {
    // @unchecked Sendable: set in init; stop() is called by the test that owns it (and deinit).
    let folder: URL
    let port: Int
    let nodes: Int
    private let script: Child
    private var stopped = false

    /// Whether the tools a fleet needs are installed (make setup).
    static var available: Bool {
        ["/usr/bin/redis-server", "/usr/sbin/nginx", "/usr/bin/redis-cli"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
            && FileManager.default.isExecutableFile(atPath: binary.path)
    }
    static var binary: URL { TestMedia.packageRoot.appendingPathComponent(".build/debug/interlude") }

    /// Starts a fleet serving `content` as "c" with the ad tag `ads`; waits (up to 60 s) until the
    /// script says it is ready. `environment` is added to every process's (the script's).
    init(content: URL, ads: String, nodes: Int = 3, workers: Int = 2, serveArgs: String = "", workerArgs: String = "",
         environment: [String: String] = [:]) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("cluster-\(getpid())-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // A base port of its own: nginx on it, the nodes on the next ones.
        // (below Linux's ephemeral range, 32768 up, which other tests' connections draw from)
        port = 20_000 + Int.random(in: 0..<1_200) * 10
        self.nodes = nodes
        var env = environment
        env["INTERLUDE"] = Cluster.binary.path
        env["CLUSTER_DIR"] = folder.path
        env["PORT"] = String(port)
        env["NODES"] = String(nodes)
        env["WORKERS"] = String(workers)
        env["CONTENT"] = "c=\(content.path)"
        env["ADS"] = ads
        env["SERVE_ARGS"] = serveArgs
        env["WORKER_ARGS"] = workerArgs
        // posix_spawn with a clean signal mask: through Foundation's Process the script (and the
        // redis-server and nginx it starts) would inherit the test runner's blocked SIGTERM, and
        // stop() would wait for ever.
        let out = folder.appendingPathComponent("cluster.out").path
        script = try Child.spawn("/bin/bash", [TestMedia.packageRoot.appendingPathComponent("scripts/cluster.sh").path],
                                 extraEnvironment: env, stdout: out, stderr: folder.appendingPathComponent("cluster.err").path)
        let deadline = Date().addingTimeInterval(60)
        var ready = false
        while Date() < deadline {
            let text = (try? String(contentsOfFile: out, encoding: .utf8)) ?? ""
            if text.split(separator: "\n").contains(where: { $0.hasPrefix("cluster: ready") }) { ready = true; break }
            if script.wait(timeout: 0) != nil { break }   // the script ended: it failed
            usleep(100_000)
        }
        guard ready else {
            let err = (try? String(contentsOf: folder.appendingPathComponent("cluster.err"), encoding: .utf8)) ?? ""
            stop()
            throw VerifierError.malformedOutput("cluster did not start: \(err.suffix(2000))")
        }
    }

    deinit { stop() }

    /// Stops the fleet (the script stops what it started) and removes its folder.
    func stop() {
        if !stopped { stopped = true; script.stop(grace: 60) }
        try? FileManager.default.removeItem(at: folder)
    }

    /// nginx's URL for `path`.
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }
    /// Node `n`'s (1-based) own URL for `path`.
    func nodeURL(_ n: Int, _ path: String) -> String { "http://127.0.0.1:\(port + n)\(path)" }
    /// The store folder the nodes and workers share.
    var store: URL { folder.appendingPathComponent("store") }
    /// `unix://…` of the fleet's Redis.
    var redisSocket: String { folder.appendingPathComponent("redis/redis.sock").path }

    /// The pid of process `name` (node1…, worker1…, nginx, redis).
    func pid(_ name: String) -> Int32? {
        (try? String(contentsOf: folder.appendingPathComponent("pids/\(name)"), encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// SIGKILLs process `name`.
    func kill(_ name: String) {
        guard let p = pid(name) else { return }
        Foundation.kill(p, SIGKILL)
        var status: Int32 = 0
        for _ in 0..<200 { if Foundation.kill(p, 0) != 0 { break }; usleep(10_000) }
        _ = waitpid(p, &status, WNOHANG)
    }

    /// What process `name` wrote.
    func log(_ name: String) -> String { (try? String(contentsOf: folder.appendingPathComponent("logs/\(name).log"), encoding: .utf8)) ?? "" }

    /// `redis-cli` on the fleet's Redis; its output trimmed.
    func redis(_ args: String...) throws -> String {
        String(decoding: try run("/usr/bin/redis-cli", ["-s", redisSocket] + args).stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Session id → the node (1-based) whose log says it created it.
    func creators() -> [String: Int] {
        var m: [String: Int] = [:]
        for n in 1...nodes {
            for line in log("node\(n)").split(separator: "\n") where line.contains("\"session_created\"") {
                guard let data = line.data(using: .utf8), let o = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                      let id = o["session"] as? String else { continue }
                m[id] = n
            }
        }
        return m
    }
}
