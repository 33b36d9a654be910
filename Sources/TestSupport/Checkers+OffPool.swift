import Foundation

// The checkers that run a child process (ffmpeg, ffprobe, GStreamer) for async code: the same
// answers, waited for on a thread of their own. In an async context Swift prefers these
// overloads, so a test cannot hold one of the concurrency pool's threads while a decoder runs:
// on a 2-core machine two such waits stopped every service under test from answering (their
// handlers need the pool), and a trivial test waited 12 s to start.

extension MediaVerifier {
    /// `videoFrames(_:reader:)` off the pool.
    public static func videoFrames(_ url: URL, reader: IdentityReader? = nil) async throws -> [VerifiedFrame] {
        try await offPoolThrottled { try videoFrames(url, reader: reader) }
    }

    /// `analyzeAudio(_:threshold:minimumSilence:)` off the pool.
    public static func analyzeAudio(_ url: URL, threshold: Float = 0.1, minimumSilence: Double = 0.1) async throws -> AudioAnalysis {
        try await offPoolThrottled { try analyzeAudio(url, threshold: threshold, minimumSilence: minimumSilence) }
    }

    /// `beepOnsets(_:threshold:minimumSilence:)` off the pool.
    public static func beepOnsets(_ url: URL, threshold: Float = 0.1, minimumSilence: Double = 0.1) async throws -> [Double] {
        try await offPoolThrottled { try beepOnsets(url, threshold: threshold, minimumSilence: minimumSilence) }
    }

    /// `syncOffsets(_:)` off the pool.
    public static func syncOffsets(_ url: URL) async throws -> [Double?] {
        try await offPoolThrottled { try syncOffsets(url) }
    }

    /// `ffmpegErrors(_:)` off the pool.
    public static func ffmpegErrors(_ url: URL) async throws -> String {
        try await offPoolThrottled { try ffmpegErrors(url) }
    }

    /// `packets(_:kind:)` off the pool.
    public static func packets(_ url: URL, kind: StreamKind) async throws -> [PacketInfo] {
        try await offPoolThrottled { try packets(url, kind: kind) }
    }

    /// `probe(_:)` off the pool.
    public static func probe(_ url: URL) async throws -> MediaProbe {
        try await offPoolThrottled { try probe(url) }
    }
}

extension Tools {
    /// `ffmpeg(_:)` off the pool.
    public static func ffmpeg(_ arguments: [String]) async throws -> Output {
        try await offPoolThrottled { try ffmpeg(arguments) }
    }

    /// `ffprobe(_:)` off the pool.
    public static func ffprobe(_ arguments: [String]) async throws -> Output {
        try await offPoolThrottled { try ffprobe(arguments) }
    }
}

extension FieldCheck {
    /// `check(_:with:)` off the pool.
    public static func check(_ url: URL, with client: Client) async throws -> Verdict {
        try await offPoolThrottled { try check(url, with: client) }
    }
}

extension DecodedPictures {
    /// `decode(_:pixelFormat:)` off the pool.
    public static func decode(_ url: URL, pixelFormat: String = "gray") async throws -> DecodedPictures {
        try await offPoolThrottled { try decode(url, pixelFormat: pixelFormat) }
    }
}

extension HLSPackageCheck {
    /// `clientProblems(_:)` off the pool.
    public static func clientProblems(_ playlist: URL) async throws -> [String] {
        try await offPoolThrottled { try clientProblems(playlist) }
    }
}
