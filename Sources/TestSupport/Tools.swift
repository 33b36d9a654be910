import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failure of the verifier or of the ffmpeg/ffprobe command it ran.
public enum VerifierError: Error, CustomStringConvertible, Sendable {
    /// The executable was not found on `PATH` (or at `$FFMPEG` / `$FFPROBE`).
    case toolNotFound(String)
    /// The command exited with a non-zero status; `stderr` holds what it printed.
    case toolFailed(command: String, status: Int32, stderr: String)
    /// The command's output could not be understood.
    case malformedOutput(String)

    /// A one-line explanation.
    public var description: String {
        switch self {
        case .toolNotFound(let name): return "\(name) not found on PATH"
        case .toolFailed(let command, let status, let stderr):
            return "`\(command)` exited with status \(status): \(stderr.suffix(2000))"
        case .malformedOutput(let what): return "malformed tool output: \(what)"
        }
    }
}

/// Runs the ffmpeg and ffprobe command-line tools (never the engine's own FFmpeg bindings).
public enum Tools {
    /// The ffmpeg executable: `$FFMPEG` when set, else the first `ffmpeg` on `PATH`.
    public static func ffmpegPath() throws -> String { try locate("ffmpeg", env: "FFMPEG") }
    /// The ffprobe executable: `$FFPROBE` when set, else the first `ffprobe` on `PATH`.
    public static func ffprobePath() throws -> String { try locate("ffprobe", env: "FFPROBE") }

    private static func locate(_ name: String, env: String) throws -> String {
        let environment = ProcessInfo.processInfo.environment
        if let explicit = environment[env], !explicit.isEmpty { return explicit }
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw VerifierError.toolNotFound(name)
    }

    /// The result of a finished command.
    public struct Output: Sendable {
        /// Exit status.
        public var status: Int32
        /// Everything written to standard output.
        public var stdout: Data
        /// Everything written to standard error, as UTF-8 (lossy).
        public var stderr: String
    }

    /// Runs `ffmpeg` with `-nostdin -hide_banner` prepended; throws `VerifierError.toolFailed` when it
    /// exits non-zero.
    @discardableResult
    public static func ffmpeg(_ arguments: [String]) throws -> Output {
        try checked(run(ffmpegPath(), ["-nostdin", "-hide_banner"] + arguments))
    }

    /// Runs `ffprobe` with `-hide_banner` prepended; throws `VerifierError.toolFailed` when it exits
    /// non-zero.
    @discardableResult
    public static func ffprobe(_ arguments: [String]) throws -> Output {
        try checked(run(ffprobePath(), ["-hide_banner"] + arguments))
    }

    static func checked(_ output: (Output, String)) throws -> Output {
        if output.0.status != 0 {
            throw VerifierError.toolFailed(command: output.1, status: output.0.status, stderr: output.0.stderr)
        }
        return output.0
    }

    /// Runs a command to completion, collecting stdout in memory. Returns the output and the command line.
    static func run(_ executable: String, _ arguments: [String]) throws -> (Output, String) {
        var collected = Data()
        let (status, stderr) = try stream(executable, arguments, chunking: .aligned(1)) { chunk in
            collected.append(contentsOf: chunk)
        }
        return (Output(status: status, stdout: collected, stderr: stderr), commandLine(executable, arguments))
    }

    static func commandLine(_ executable: String, _ arguments: [String]) -> String {
        ([executable] + arguments).map { $0.contains(" ") || $0.isEmpty ? "'\($0)'" : $0 }.joined(separator: " ")
    }

    /// How `stream` cuts stdout into chunks.
    enum Chunking {
        /// Every chunk exactly this many bytes (one raw video frame); a trailing partial chunk is an error.
        case exact(Int)
        /// Chunks of any size that is a multiple of this many bytes (one audio sample frame); the
        /// remainder is carried into the next chunk; a trailing remainder is an error.
        case aligned(Int)
    }

    /// Runs a command and hands its stdout to `body` chunk by chunk without keeping it. stderr goes to
    /// a temporary file, so no pipe can fill up and block. Returns the exit status and stderr. If
    /// `body` throws, the process is terminated and the error rethrown.
    static func stream(_ executable: String, _ arguments: [String], chunking: Chunking,
                       _ body: (UnsafeBufferPointer<UInt8>) throws -> Void) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let errURL = FileManager.default.temporaryDirectory
            .appendingPathComponent("interlude-verifier-\(UUID().uuidString).stderr")
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errURL) }
        let errHandle = try FileHandle(forWritingTo: errURL)
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = errHandle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try? pipe.fileHandleForWriting.close()
        let fd = pipe.fileHandleForReading.fileDescriptor
        let unit: Int, capacity: Int, exact: Bool
        switch chunking {
        case .exact(let n): unit = max(n, 1); capacity = unit; exact = true
        case .aligned(let n): unit = max(n, 1); capacity = max(unit, (1 << 16) / unit * unit); exact = false
        }
        var buffer = [UInt8](repeating: 0, count: capacity)
        var filled = 0
        var bodyError: Error?
        readLoop: while true {
            let n = buffer.withUnsafeMutableBytes { raw -> Int in
                read(fd, raw.baseAddress! + filled, raw.count - filled)
            }
            if n < 0 { if errno == EINTR { continue }; break }
            if n == 0 { break }
            filled += n
            let deliverable = exact ? (filled == capacity ? capacity : 0) : filled - filled % unit
            if deliverable > 0 {
                do {
                    try buffer.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[0..<deliverable])) }
                } catch {
                    bodyError = error
                    break readLoop
                }
                let rest = filled - deliverable
                if rest > 0 {
                    buffer.withUnsafeMutableBytes { raw in
                        raw.baseAddress!.copyMemory(from: raw.baseAddress! + deliverable, byteCount: rest)
                    }
                }
                filled = rest
            }
        }
        if bodyError != nil, process.isRunning { process.terminate() }
        try? pipe.fileHandleForReading.close()
        process.waitUntilExit()
        try? errHandle.close()
        if let bodyError { throw bodyError }
        let errData = (try? Data(contentsOf: errURL)) ?? Data()
        let stderr = String(decoding: errData, as: UTF8.self)
        if filled > 0 && process.terminationStatus == 0 {
            throw VerifierError.malformedOutput("\(filled) trailing bytes do not make a whole chunk of \(unit)")
        }
        return (process.terminationStatus, stderr)
    }
}
