// Bodies a hostile ad server sends, and the peak memory of a child process that received them.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Compression bombs and memory measurement for hostile-server tests.
public enum HostileBodies {
    /// A gzip stream of `megabytes` MiB of zeros (1024 MiB compress to about 1 MB with
    /// `gzip -9`: under the 2 MB document cap), made once with the gzip CLI and cached beside the
    /// test media.
    public static func gzipBomb(megabytes: Int = 1024) throws -> Data {
        let url = try TestMedia.cached("bomb9-\(megabytes)m.gz") { out in
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/bin/sh")
            p.arguments = ["-c", "head -c \(megabytes << 20) /dev/zero | gzip -9 > '\(out.path)'"]
            try p.run()
            p.waitUntilExit()
            guard p.terminationStatus == 0 else { throw VerifierError.malformedOutput("gzip failed") }
        }
        return try Data(contentsOf: url)
    }

    /// `gzipBomb(megabytes:)` on a thread of its own, the overload Swift prefers in async code: on
    /// a cold cache it compresses a GiB (seconds), and two tests doing it at once held both of the
    /// concurrency pool's threads on a 2-core machine, stalling every other test for 12 s.
    public static func gzipBomb(megabytes: Int = 1024) async throws -> Data {
        try await offPool { try gzipBomb(megabytes: megabytes) }
    }

    /// A finished child process: exit status, standard error and its peak resident memory.
    public struct Run: Sendable {
        /// Exit status (128 + signal when killed).
        public var status: Int32
        /// Standard error.
        public var stderr: String
        /// Peak `VmHWM` seen, in kB (polled from /proc every 5 ms, as the benchmark does).
        public var peakKB: Int
    }

    /// Runs `executable` with `args`, polling its `VmHWM` until it exits; kills it after `limit` s.
    public static func measure(_ executable: URL, _ args: [String], limit: Double = 60) throws -> Run {
        let p = Process()
        p.executableURL = executable
        p.arguments = args
        let errFile = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-rss-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errFile) }
        p.standardError = try FileHandle(forWritingTo: errFile)
        p.standardOutput = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let pid = p.processIdentifier
        var peak = 0
        let start = Date()
        while p.isRunning {
            if let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
               let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
               let kb = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") {
                peak = max(peak, kb)
            }
            // SIGTERM, then SIGKILL: a child can inherit a mask that blocks SIGTERM (the test runner's threads)
            let elapsed = Date().timeIntervalSince(start)
            if elapsed > limit { p.terminate() }
            if elapsed > limit + 5 { kill(pid, SIGKILL) }
            usleep(5_000)
        }
        p.waitUntilExit()
        let status = p.terminationReason == .uncaughtSignal ? 128 + p.terminationStatus : p.terminationStatus
        return Run(status: status, stderr: (try? String(contentsOf: errFile, encoding: .utf8)) ?? "", peakKB: peak)
    }
}
