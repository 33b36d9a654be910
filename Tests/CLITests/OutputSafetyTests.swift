import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Device 1,3 (what /dev/null is), in glibc's encoding of small major/minor numbers.
let devNull13: dev_t = (1 << 8) | 3

/// Issue 13, item 4: outputs never destroy what was there. Every case runs the real CLI.
@Suite struct OutputSafetyTests {
    /// A 2 s clip: quick stitches.
    var short: String { get throws { try TestMedia.clip(sourceID: 1, seconds: 2).path } }
    let ad = TestMedia.Sample.adMatching.url.path

    func entries(_ dir: URL) throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() }

    func kind(_ path: String) -> mode_t {
        var st = stat()
        return lstat(path, &st) == 0 ? st.st_mode & S_IFMT : 0
    }

    @Test func aDirectoryIsNeverReplacedEvenWithDashY() async throws {
        let dir = CLI.tempDir()
        let target = dir.appendingPathComponent("out.mp4")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: target.appendingPathComponent("inside.txt"))
        for extra in [[], ["-y"]] {
            let r = try await CLI.run(["stitch", try short, "-o", target.path, "-q"] + extra)
            #expect(r.status == 1 && r.stderr.contains("is a directory"), "\(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1)
        }
        #expect(kind(target.path) == S_IFDIR)
        #expect(try Data(contentsOf: target.appendingPathComponent("inside.txt")) == Data("keep".utf8))
        #expect(try entries(dir) == ["out.mp4"])
    }

    @Test func deviceNodesFIFOsAndSymlinksAreRefusedAndLeftIntact() async throws {
        let dir = CLI.tempDir()
        let device = dir.appendingPathComponent("null").path
        // A char device like /dev/null (1,3), made here rather than touching /dev/null itself (needs root).
        try #require(mknod(device, S_IFCHR | 0o666, devNull13) == 0, "mknod needs root: errno \(errno)")
        let fifo = dir.appendingPathComponent("fifo").path
        try #require(mkfifo(fifo, 0o644) == 0)
        let victim = dir.appendingPathComponent("victim.txt")
        try Data("victim".utf8).write(to: victim)
        let link = dir.appendingPathComponent("link.mp4").path
        try #require(symlink(victim.path, link) == 0)
        for (target, word) in [(device, "device"), (fifo, "FIFO"), (link, "symbolic link")] {
            for extra in [[], ["-y"]] {
                let r = try await CLI.run(["stitch", try short, "-o", target, "-q"] + extra)
                #expect(r.status == 1 && r.stderr.contains(word), "\(target) \(extra): \(r.stderr)")
                let rr = try await CLI.run(["stitch", try short, "-o", dir.appendingPathComponent("o\(word.count).mp4").path, "--report", target, "-q"] + extra)
                #expect(rr.status == 1 && rr.stderr.contains(word), "report \(target) \(extra): \(rr.stderr)")
            }
        }
        var st = stat()
        #expect(lstat(device, &st) == 0 && st.st_mode & S_IFMT == S_IFCHR && st.st_rdev == devNull13)
        #expect(kind(fifo) == S_IFIFO && kind(link) == S_IFLNK)
        #expect(try Data(contentsOf: victim) == Data("victim".utf8))
        #expect(try entries(dir) == ["fifo", "link.mp4", "null", "victim.txt"], "no output and no temporary file")
    }

    @Test func theReportObeysDashYAndCannotBeAnInputOrTheOutput() async throws {
        let dir = CLI.tempDir()
        let out = dir.appendingPathComponent("o.mp4").path
        let report = dir.appendingPathComponent("r.json")
        try Data("old report".utf8).write(to: report)
        let content = dir.appendingPathComponent("content.mp4")
        try FileManager.default.copyItem(atPath: try short, toPath: content.path)
        let before = try Data(contentsOf: content)

        var r = try await CLI.run(["stitch", content.path, "-o", out, "--report", report.path, "-q"])
        #expect(r.status == 1 && r.stderr.contains("-y"), "\(r.stderr)")
        #expect(try Data(contentsOf: report) == Data("old report".utf8))
        #expect(!FileManager.default.fileExists(atPath: out), "nothing written on exit 1")

        for (args, word) in [(["--report", content.path, "-y"], "input"), (["--report", out, "-y"], "output"),
                             (["--report", ad, "--ad-break", "1=\(ad)", "-y"], "input")] {
            r = try await CLI.run(["stitch", content.path, "-o", out, "-q"] + args)
            // an output naming an input or another output is a usage error (issue 18: exit 2)
            #expect(r.status == 2 && r.stderr.contains(word), "\(args): \(r.stderr)")
        }
        r = try await CLI.run(["stitch", content.path, "-o", content.path, "-y", "-q"])
        #expect(r.status == 2 && r.stderr.contains("input"), "\(r.stderr)")
        #expect(try Data(contentsOf: content) == before, "the content is untouched")
        #expect(!FileManager.default.fileExists(atPath: out))

        r = try await CLI.run(["stitch", content.path, "-o", out, "--report", report.path, "-q", "-y"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) is [String: Any])
        #expect(try entries(dir) == ["content.mp4", "o.mp4", "r.json"])
    }

    @Test func aReportThatCannotBeWrittenLeavesNoVideo() async throws {
        // The report target turns into a directory while the stitch runs (after the up-front
        // checks): the commit fails, and neither the report nor the video appears.
        let dir = CLI.tempDir()
        let out = dir.appendingPathComponent("o.mp4").path, report = dir.appendingPathComponent("r.json").path
        let run = try SpawnedCLI(["stitch", TestMedia.Sample.content.url.path, "-o", out, "--report", report, "-q",
                                  "--preset", "slow", "--ad-break", "5=\(ad)"])
        try await run.waitForTemporaryFile(in: dir) {
            try FileManager.default.createDirectory(atPath: report, withIntermediateDirectories: false)
        }
        let status = try await run.wait()
        #expect(status == 1)
        #expect(run.stderr.contains("r.json"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(kind(report) == S_IFDIR)
        #expect(try entries(dir) == ["r.json"], "no temporary files left")
    }

    @Test func twoStitchesToOneNewOutputCannotBothWin() async throws {
        let dir = CLI.tempDir()
        let out = dir.appendingPathComponent("o.mp4").path
        let content = try short
        async let a = CLI.run(["stitch", content, "-o", out, "-q", "--preset", "ultrafast"])
        async let b = CLI.run(["stitch", content, "-o", out, "-q", "--preset", "ultrafast"])
        let results = try await [a, b]
        #expect(results.map(\.status).sorted() == [0, 1], "\(results.map(\.stderr))")
        #expect(results.contains { $0.status == 1 && $0.stderr.contains("exists") })
        #expect(try await MediaVerifier.ffmpegErrors(URL(fileURLWithPath: out)) == "")
        #expect(try entries(dir) == ["o.mp4"])
    }

    @Test func aLongLegalNameWorks() async throws {
        let dir = CLI.tempDir()
        let name = String(repeating: "n", count: 251) + ".mp4"   // 255 bytes: NAME_MAX
        let r = try await CLI.run(["stitch", try short, "-o", dir.appendingPathComponent(name).path, "-q", "--preset", "ultrafast"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try entries(dir) == [name])
        let tooLong = String(repeating: "n", count: 252) + ".mp4"
        let r2 = try await CLI.run(["stitch", try short, "-o", dir.appendingPathComponent(tooLong).path, "-q"])
        #expect(r2.status == 1 && r2.stderr.split(separator: "\n").count == 1, "\(r2.stderr)")
    }

    @Test(arguments: [SIGINT, SIGTERM, SIGHUP])
    func aSignalRemovesTheTemporaryFile(signal sig: Int32) async throws {
        let dir = CLI.tempDir()
        let out = dir.appendingPathComponent("o.mp4").path
        let run = try SpawnedCLI(["stitch", TestMedia.Sample.content.url.path, "-o", out, "-q", "--preset", "slow"])
        let pid = run.process.processIdentifier
        try await run.waitForTemporaryFile(in: dir) { kill(pid, sig) }
        let status = try await run.wait()
        #expect(status == 128 + sig)
        #expect(run.process.terminationReason == .exit, "the CLI's handler exits; it is not killed by the signal")
        let left = try entries(dir)
        #expect(left.isEmpty, "no output and no temporary file: \(left)")
    }
}

/// A CLI process running in the background.
final class SpawnedCLI: @unchecked Sendable {
    // @unchecked Sendable: `process` is only started here and waited on once.
    let process = Process()
    private let errFile: URL

    init(_ args: [String]) throws {
        process.executableURL = CLI.binary
        process.arguments = args
        errFile = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-spawn-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errFile.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: errFile)
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate() }
        try? FileManager.default.removeItem(at: errFile)
    }

    var stderr: String { (try? String(contentsOf: errFile, encoding: .utf8)) ?? "" }

    /// Waits (up to 5 minutes) until a `.interlude-tmp` file exists in `dir`: the stitch is under
    /// way. Polls every 5 ms on a thread of its own, so a busy concurrency pool cannot make it
    /// miss the whole stitch.
    /// `then` runs on that same thread the moment the file is seen (resuming the test's task can
    /// take longer than the whole stitch on a busy machine).
    func waitForTemporaryFile(in dir: URL, then action: @escaping @Sendable () throws -> Void) async throws {
        let p = process
        let found = try await offPool { () -> Bool in
            for _ in 0..<60_000 {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
                if names.contains(where: { $0.hasSuffix(".interlude-tmp") }) { try action(); return true }
                guard p.isRunning else { return false }
                usleep(5_000)
            }
            return false
        }
        if !found { throw SpawnError.exited("no temporary file seen while it ran: \(stderr)") }
    }

    /// The exit status (128 + signal when killed by a signal).
    func wait() async throws -> Int32 {
        let p = process
        return try await offPool {
            p.waitUntilExit()
            return p.terminationReason == .uncaughtSignal ? 128 + p.terminationStatus : p.terminationStatus
        }
    }

    enum SpawnError: Error { case exited(String) }
}
