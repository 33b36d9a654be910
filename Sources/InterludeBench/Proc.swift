import Foundation
import Threads
import Timing

/// What one child process cost: wall clock, CPU time and peak resident memory, from `wait4`.
struct ProcessCost: Codable, Sendable {
    /// Wall-clock seconds from spawn to exit.
    var wall: Double
    /// User + system CPU seconds of the child (and its own waited-for children).
    var cpu: Double
    /// Peak resident set size in MB of 10^6 bytes: the child's own `VmHWM`, polled from /proc
    /// while it runs (`ru_maxrss` would also count the benchmark's own memory, which a spawned
    /// child shares until it execs); `ru_maxrss` only where /proc cannot be read.
    var maxRSSMB: Double
    /// Exit status (128 + signal when killed).
    var status: Int32
}

/// A finished child: its cost and, when captured, its standard output and error.
struct ProcessRun {
    var cost: ProcessCost
    var stdout: String
    var stderr: String
}

struct ProcessFailed: Error, CustomStringConvertible {
    var command: [String]
    var status: Int32
    var stderr: String
    var description: String {
        "command failed (status \(status)): \(command.joined(separator: " "))\n\(stderr.suffix(2000))"
    }
}

/// Spawns `argv` (looked up in PATH), waits for it with `wait4` and returns what it cost.
/// Standard output and error go to temporary files that are read back (or to /dev/null when
/// `capture` is false, so that a chatty child costs nothing to record).
func spawn(_ argv: [String], capture: Bool = true, check: Bool = true) throws -> ProcessRun {
    let tmp = FileManager.default.temporaryDirectory.path
    let tag = "\(getpid())-\(UInt64(monotonicSeconds() * 1e6))"
    let outPath = capture ? "\(tmp)/bench-\(tag).out" : "/dev/null"
    let errPath = capture ? "\(tmp)/bench-\(tag).err" : "/dev/null"
    defer { if capture { unlink(outPath); unlink(errPath) } }

    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)

    var cargs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
    defer { for p in cargs { free(p) } }
    var pid: pid_t = 0
    let t0 = monotonicSeconds()
    let rc = posix_spawnp(&pid, argv[0], &actions, nil, &cargs, environ)
    guard rc == 0 else { throw ProcessFailed(command: argv, status: -1, stderr: "spawn failed: \(String(cString: strerror(rc)))") }
    let watcher = PeakMemoryWatcher(pid: pid)
    watcher.start()
    var status: Int32 = 0
    var usage = rusage()
    defer { watcher.stop() }
    while wait4(pid, &status, 0, &usage) < 0 {
        if errno != EINTR { throw ProcessFailed(command: argv, status: -1, stderr: "wait4 failed") }
    }
    let wall = monotonicSeconds() - t0
    let cpu = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    // WIFEXITED / WEXITSTATUS are macros: decode by hand.
    let exit: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    watcher.stop()
    let peakKB = watcher.peakKB > 0 ? watcher.peakKB : Int(usage.ru_maxrss)
    let cost = ProcessCost(wall: wall, cpu: cpu, maxRSSMB: Double(peakKB) * 1024 / 1e6, status: exit)
    let out = capture ? ((try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "") : ""
    let err = capture ? ((try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "") : ""
    if check && exit != 0 { throw ProcessFailed(command: argv, status: exit, stderr: err) }
    return ProcessRun(cost: cost, stdout: out, stderr: err)
}

/// Standard output of a quick command, trimmed; empty when it fails.
func output(of argv: [String]) -> String {
    ((try? spawn(argv, check: false))?.stdout ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
}

/// The directory holding this executable (where `interlude` is built beside it).
func executableDirectory() -> String {
    var buf = [CChar](repeating: 0, count: 4096)
    let n = readlink("/proc/self/exe", &buf, buf.count - 1)
    let path = n > 0 ? String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
    return (path as NSString).deletingLastPathComponent
}

/// Polls a child's `VmHWM` (peak RSS of its own address space, fresh after exec) every 10 ms.
final class PeakMemoryWatcher: Sendable {
    private let pid: pid_t
    private struct Watch {
        var peak = 0
        var running = true
    }
    private let watch = Locked(Watch())

    init(pid: pid_t) { self.pid = pid }

    /// The largest VmHWM seen, in kB (0 when /proc could not be read).
    var peakKB: Int { watch.withLock { $0.peak } }

    func start() {
        let thread = Thread { [self] in
            while true {
                if !watch.withLock({ $0.running }) { break }
                if let kb = read() { watch.withLock { $0.peak = max($0.peak, kb) } }
                usleep(10_000)
            }
        }
        thread.name = "peak memory watch"
        thread.start()
    }

    func stop() { watch.withLock { $0.running = false } }

    private func read() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return nil }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    }
}
