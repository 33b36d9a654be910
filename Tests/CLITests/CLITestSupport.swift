import Foundation
import TestSupport

/// Runs the built `interlude` executable and captures its output.
enum CLI {
    static var binary: URL {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("interlude"),
            TestMedia.packageRoot.appendingPathComponent(".build/debug/interlude"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[1]
    }

    /// `seconds`: the child's wall time from start to exit, measured on the thread that waits for
    /// it (not across an `await`, whose resumption can queue behind other tests' work).
    struct Output: Sendable { var status: Int32; var stdout: Data; var stderr: String; var seconds: Double = 0 }

    /// Runs the CLI on a thread of its own (see `offPool`).
    static func run(_ args: [String], executable: URL? = nil, in directory: URL? = nil) async throws -> Output {
        try await offPool { try runBlocking(args, executable: executable, in: directory) }
    }

    /// Runs `interlude` (or `executable`, e.g. a tracer wrapping it) with `args`, in `directory`
    /// (relative names) or the test's own working folder.
    static func runBlocking(_ args: [String], executable: URL? = nil, in directory: URL? = nil) throws -> Output {
        let p = Process()
        p.executableURL = executable ?? binary
        p.arguments = args
        if let directory { p.currentDirectoryURL = directory }
        let out = Pipe()
        let errFile = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-cli-stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: errFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errFile) }
        let err = try FileHandle(forWritingTo: errFile)
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        let started = ProcessInfo.processInfo.systemUptime
        try p.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let seconds = ProcessInfo.processInfo.systemUptime - started
        try err.close()
        let stderr = try Data(contentsOf: errFile)
        return Output(status: p.terminationStatus, stdout: stdout, stderr: String(decoding: stderr, as: UTF8.self), seconds: seconds)
    }

    static func tempDir() -> URL {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-cli-\(getpid())-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }
}
