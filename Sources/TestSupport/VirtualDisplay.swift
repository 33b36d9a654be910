import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Threads

// Xvfb helpers shared by the window tests and the `interlude play` window test: a virtual X
// server, child processes started with a clean signal mask, xdotool/xwd runs, screenshots.

/// The X tools the window tests drive, looked up on PATH.
public enum XTools {
    /// The executable `name` on PATH, nil when absent.
    public static func path(_ name: String) -> String? {
        let dirs = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
        return dirs.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Xvfb, xdotool, xwd and ffmpeg are all installed (`make setup` installs them).
    public static let available = ["Xvfb", "xdotool", "xwd", "ffmpeg"].allSatisfy { path($0) != nil }
}

/// A finished child process.
public struct ProcessResult: Sendable {
    /// Exit status (128+signal when killed, -1 when it had to be stopped).
    public var status: Int32
    /// What it wrote to standard output.
    public var stdout: String
    /// What it wrote to standard error.
    public var stderr: String
}

/// A child process started with posix_spawn and a clean signal mask. (Threads of the test runner
/// block most signals and children inherit that mask: an Xvfb started through Foundation's
/// Process ignores SIGTERM.)
public struct Child: Sendable {
    /// The process id.
    public let pid: pid_t

    /// Starts `executable` with `arguments`, stdin from /dev/null, stdout and stderr to the given
    /// files (or /dev/null), and the environment plus `extraEnvironment`.
    public static func spawn(_ executable: String, _ arguments: [String], extraEnvironment: [String: String] = [:],
                             stdout: String = "/dev/null", stderr: String = "/dev/null") throws -> Child {
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attr, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attr, &defaults)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var environment = ProcessInfo.processInfo.environment
        for (k, v) in extraEnvironment { environment[k] = v }
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, executable, &actions, &attr, argv, envp)
        guard rc == 0 else { throw VerifierError.toolFailed(command: executable, status: rc, stderr: String(cString: strerror(rc))) }
        return Child(pid: pid)
    }

    /// Waits up to `timeout` seconds for the child to exit; its exit status (128+signal when
    /// killed), or nil when it is still running.
    public func wait(timeout: Double) -> Int32? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while true {
            var status: Int32 = 0
            let r = waitpid(pid, &status, WNOHANG)
            if r == pid { return status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f) }
            if r < 0 && errno != EINTR { return -1 }
            if Date() >= deadline { return nil }
            usleep(5_000)
        }
    }

    /// Asks the child to end (SIGTERM), then kills it (SIGKILL) if it has not after `grace` seconds.
    /// Returns whether it ended on SIGTERM.
    @discardableResult
    public func stop(grace: Double = 5) -> Bool {
        kill(pid, SIGTERM)
        if wait(timeout: grace) != nil { return true }
        kill(pid, SIGKILL)
        _ = wait(timeout: 5)
        return false
    }
}

/// Runs `tool` with `arguments` (and DISPLAY=`display` when given) to completion, killing it after
/// `timeout` seconds. stdout and stderr go to temporary files, so no pipe can fill up.
public func runTool(_ tool: String, _ arguments: [String], display: String? = nil, timeout: Double = 20) throws -> ProcessResult {
    guard let executable = XTools.path(tool) else { throw VerifierError.toolNotFound(tool) }
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("window-test-\(UUID().uuidString)").path
    let outPath = base + ".out", errPath = base + ".err"
    defer { try? FileManager.default.removeItem(atPath: outPath); try? FileManager.default.removeItem(atPath: errPath) }
    let child = try Child.spawn(executable, arguments, extraEnvironment: display.map { ["DISPLAY": $0] } ?? [:],
                                stdout: outPath, stderr: errPath)
    let status = child.wait(timeout: timeout) ?? { child.stop(grace: 1); return -1 }()
    let stdout = String(decoding: FileManager.default.contents(atPath: outPath) ?? Data(), as: UTF8.self)
    let stderr = String(decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self)
    return ProcessResult(status: status, stdout: stdout, stderr: stderr)
}

/// Polls `condition` every 20 ms until it holds or `seconds` pass; returns whether it held.
public func eventually(within seconds: Double = 10, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date(timeIntervalSinceNow: seconds)
    repeat {
        if try condition() { return true }
        usleep(20_000)
    } while Date() < deadline
    return try condition()
}

/// An Xvfb server on a free display number, for the duration of a test.
public final class VirtualDisplay: Sendable {
    /// The display number.
    public let number: Int
    private let child: Child
    /// `:NN`
    public var name: String { ":\(number)" }
    /// The screen's size.
    public static let width = 1280, height = 720

    private init(number: Int, child: Child) {
        self.number = number
        self.child = child
    }

    private static func socket(_ number: Int) -> String { "/tmp/.X11-unix/X\(number)" }
    private static func lockFile(_ number: Int) -> String { "/tmp/.X\(number)-lock" }

    /// The pid written in a display's lock file, nil when there is none.
    private static func owner(_ number: Int) -> pid_t? {
        (try? String(contentsOfFile: lockFile(number), encoding: .utf8)).flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// Whether the display's socket accepts a connection: the socket file appears at bind(),
    /// before the server listens, and a client connecting in between (SDL, xdotool) is refused.
    private static func accepts(_ number: Int) -> Bool {
        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(socket(number).utf8CString)
        guard path.count <= MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            path.withUnsafeBytes { raw.copyMemory(from: $0) }
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0 }
        }
    }

    /// Serialises `start()` within the process: suites running in parallel must not pick the same number.
    private static let starting = Locked(())

    /// Starts Xvfb on the first display number from a pseudo-random start that has no socket or
    /// lock file, and waits (up to 10 s) for its socket to accept connections with its own pid in
    /// the lock file (another server that took the number first, in this process or another, is
    /// not taken for ours).
    /// Tries the next number if it exits.
    public static func start() throws -> VirtualDisplay {
        guard let xvfb = XTools.path("Xvfb") else { throw VerifierError.toolNotFound("Xvfb") }
        return try starting.withLock { _ in
            let first = 100 + Int(getpid() % 300)
            for number in first..<(first + 40) {
                if FileManager.default.fileExists(atPath: socket(number)) || FileManager.default.fileExists(atPath: lockFile(number)) { continue }
                let child = try Child.spawn(xvfb, [":\(number)", "-screen", "0", "\(width)x\(height)x24", "-nolisten", "tcp"])
                var exited = false
                let up = eventually(within: 10) {
                    exited = child.wait(timeout: 0) != nil
                    return exited || (FileManager.default.fileExists(atPath: socket(number)) && owner(number) == child.pid && accepts(number))
                }
                if up && !exited { return VirtualDisplay(number: number, child: child) }
                if !exited { child.stop() }
            }
            throw VerifierError.malformedOutput("no free X display number for Xvfb from :\(first)")
        }
    }

    /// Stops the server; if it had to be killed, removes the socket and lock file it left.
    public func stop() {
        if !child.stop() {
            try? FileManager.default.removeItem(atPath: Self.socket(number))
            try? FileManager.default.removeItem(atPath: Self.lockFile(number))
        }
    }

    /// Runs `body` with DISPLAY set to this server for the whole process (SDL reads it), then
    /// restores DISPLAY and stops the server.
    public static func with<T>(_ body: (VirtualDisplay) throws -> T) throws -> T {
        let display = try start()
        let saved = getenv("DISPLAY").map { String(cString: $0) }
        setenv("DISPLAY", display.name, 1)
        defer {
            if let saved { setenv("DISPLAY", saved, 1) } else { unsetenv("DISPLAY") }
            display.stop()
        }
        return try body(display)
    }

    /// The X window id of the window titled exactly `title`, waiting up to `seconds` for it.
    public func windowID(title: String, within seconds: Double = 10) throws -> String {
        var id: String?
        _ = try eventually(within: seconds) {
            let r = try runTool("xdotool", ["search", "--name", "^\(title)$"], display: name)
            id = r.stdout.split(separator: "\n").first.map(String.init)
            return id != nil
        }
        guard let id else { throw VerifierError.malformedOutput("no window titled \(title) on \(name)") }
        return id
    }

    /// The window's position and size on the screen.
    public func geometry(of id: String) throws -> (x: Int, y: Int, width: Int, height: Int) {
        let r = try runTool("xdotool", ["getwindowgeometry", "--shell", id], display: name)
        var values: [String: Int] = [:]
        for line in r.stdout.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2, let v = Int(parts[1]) { values[String(parts[0])] = v }
        }
        guard let x = values["X"], let y = values["Y"], let w = values["WIDTH"], let h = values["HEIGHT"] else {
            throw VerifierError.malformedOutput("xdotool getwindowgeometry: \(r.stdout) \(r.stderr)")
        }
        return (x, y, w, h)
    }

    /// A screenshot of the whole screen: `xwd -root`, converted to rgb24 by the ffmpeg CLI.
    public func screenshot() throws -> Screenshot {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("window-test-\(UUID().uuidString).xwd")
        defer { try? FileManager.default.removeItem(at: file) }
        let r = try runTool("xwd", ["-root", "-silent", "-display", name, "-out", file.path])
        guard r.status == 0 else { throw VerifierError.toolFailed(command: "xwd -root", status: r.status, stderr: r.stderr) }
        let out = try Tools.ffmpeg(["-loglevel", "error", "-f", "xwd_pipe", "-i", file.path, "-frames:v", "1",
                                    "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        let w = Self.width, h = Self.height
        guard out.stdout.count == w * h * 3 else {
            throw VerifierError.malformedOutput("screenshot of \(out.stdout.count) bytes, expected \(w * h * 3)")
        }
        return Screenshot(width: w, height: h, rgb: [UInt8](out.stdout))
    }
}

/// An RGB screenshot.
public struct Screenshot: Sendable {
    /// Size in pixels.
    public let width: Int, height: Int
    /// rgb24, row-major.
    public let rgb: [UInt8]

    /// A screenshot of `width` x `height` rgb24 pixels.
    public init(width: Int, height: Int, rgb: [UInt8]) {
        self.width = width
        self.height = height
        self.rgb = rgb
    }

    /// The pixel at (`x`, `y`).
    public func pixel(_ x: Int, _ y: Int) -> (r: Int, g: Int, b: Int) {
        let i = (y * width + x) * 3
        return (Int(rgb[i]), Int(rgb[i + 1]), Int(rgb[i + 2]))
    }

    /// Whether every pixel of a 5×5 grid inside the rectangle (inset by a tenth on each side)
    /// satisfies `test`.
    public func all(in rect: (x: Int, y: Int, width: Int, height: Int), _ test: ((r: Int, g: Int, b: Int)) -> Bool) -> Bool {
        for i in 0..<5 {
            for j in 0..<5 {
                let x = rect.x + rect.width / 10 + i * (rect.width * 8 / 10) / 4
                let y = rect.y + rect.height / 10 + j * (rect.height * 8 / 10) / 4
                guard x >= 0, y >= 0, x < width, y < height, test(pixel(x, y)) else { return false }
            }
        }
        return true
    }

    /// The rgb24 bytes of the rectangle (clipped to the screen), row by row.
    public func crop(_ rect: (x: Int, y: Int, width: Int, height: Int)) -> [UInt8] {
        var out: [UInt8] = []
        let x0 = max(0, rect.x), x1 = min(width, rect.x + rect.width)
        let y0 = max(0, rect.y), y1 = min(height, rect.y + rect.height)
        guard x1 > x0, y1 > y0 else { return out }
        out.reserveCapacity((x1 - x0) * (y1 - y0) * 3)
        for y in y0..<y1 { out += rgb[(y * width + x0) * 3 ..< (y * width + x1) * 3] }
        return out
    }

    /// The rectangle as 8-bit limited-range luma (BT.601 of the full-range RGB SDL shows), for
    /// `IdentityReader`: grey pictures of the identity scheme read back as they were coded.
    public func luma(in rect: (x: Int, y: Int, width: Int, height: Int)) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: rect.width * rect.height)
        for y in 0..<rect.height {
            for x in 0..<rect.width {
                let sx = rect.x + x, sy = rect.y + y
                guard sx >= 0, sy >= 0, sx < width, sy < height else { continue }
                let p = pixel(sx, sy)
                let full = 0.299 * Double(p.r) + 0.587 * Double(p.g) + 0.114 * Double(p.b)
                out[y * rect.width + x] = UInt8(max(0, min(255, (16 + full * 219 / 255).rounded())))
            }
        }
        return out
    }
}
