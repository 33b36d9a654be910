import Foundation

/// A real `redis-server` started by a test on a Unix socket of its own (no TCP port, nothing
/// shared with another test or a system Redis), without persistence unless asked; stopped (and
/// its folder removed) by `stop()` or on deinit.
public final class RedisProcess: @unchecked Sendable {
    // @unchecked Sendable: `process` is set in init and restart, both called by the owning test only.
    /// The folder holding the socket (and the dump file when `persistent`).
    public let folder: URL
    /// The socket's path.
    public var socketPath: String { folder.appendingPathComponent("redis.sock").path }
    /// `unix:///…/redis.sock`, what `RedisClient` and `--redis` take.
    public var url: String { "unix://\(socketPath)" }
    /// A TCP port when started with `tcp: true` (nginx-free cluster tests use the socket).
    public let port: Int?
    private let persistent: Bool
    private var process: Process?

    /// Whether `redis-server` is installed (`make setup` installs it).
    public static var available: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/redis-server") }

    /// Starts a server and waits (up to 10 s) until it answers PING. `persistent`: an
    /// append-only file in `folder`, so `restart()` keeps the data.
    public init(persistent: Bool = false, tcpPort: Int? = nil) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("redis-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        self.persistent = persistent; self.port = tcpPort
        try launch()
    }

    deinit { stop() }

    private func launch() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/redis-server")
        var args = ["--port", String(port ?? 0), "--unixsocket", socketPath, "--unixsocketperm", "700",
                    "--dir", folder.path, "--save", "", "--daemonize", "no", "--loglevel", "warning",
                    "--logfile", folder.appendingPathComponent("redis.log").path]
        if port != nil { args += ["--bind", "127.0.0.1"] }
        args += ["--appendonly", persistent ? "yes" : "no"]
        if persistent { args += ["--appendfsync", "always"] }
        p.arguments = args
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        process = p
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if ping() { return }
            guard p.isRunning else { break }
            usleep(20_000)
        }
        let log = (try? String(contentsOf: folder.appendingPathComponent("redis.log"), encoding: .utf8)) ?? ""
        throw VerifierError.toolFailed(command: "redis-server " + args.joined(separator: " "), status: p.isRunning ? 0 : p.terminationStatus, stderr: log)
    }

    /// Whether the server answers `PING` on its socket now (an independent client: `redis-cli`).
    public func ping() -> Bool {
        (try? redisCLI(["PING"]))?.trimmingCharacters(in: .whitespacesAndNewlines) == "PONG"
    }

    /// Runs `redis-cli -s SOCKET ARGS…` (the independent client tests count keys with); its stdout.
    public func redisCLI(_ args: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/redis-cli")
        p.arguments = ["-s", socketPath] + args
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// Kills the server (SIGKILL: an outage, not a shutdown) and waits for it to exit.
    public func kill() {
        guard let p = process, p.isRunning else { return }
        Foundation.kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        try? FileManager.default.removeItem(atPath: socketPath)
    }

    /// Starts the server again on the same socket (with its data when `persistent`).
    public func restart() throws {
        kill()
        try launch()
    }

    /// Stops the server and removes its folder.
    public func stop() {
        kill()
        process = nil
        try? FileManager.default.removeItem(at: folder)
    }
}
