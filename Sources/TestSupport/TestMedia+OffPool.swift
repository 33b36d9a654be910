import Foundation

/// The cached media's makers for async code: the same files, made on a thread of their own.
///
/// In an async context Swift prefers these overloads, so a test cannot make a clip on one of the
/// concurrency pool's threads by accident. On a cold cache a clip is an ffmpeg run of seconds; on
/// a 2-core machine two such runs held the pool's both threads, and every service under test,
/// which needs the pool to answer, stopped answering (CI: sessions unanswered for 20 s).
extension TestMedia {
    /// `clip(sourceID:width:height:fps:seconds:sampleRate:channels:audio:gop:)` off the pool.
    public static func clip(sourceID: Int, width: Int = 640, height: Int = 360, fps: Int = 30, seconds: Double = 2,
                            sampleRate: Int = 48000, channels: Int = 2, audio: Bool = true,
                            gop: Int? = nil) async throws -> URL {
        try await offPool {
            try clip(sourceID: sourceID, width: width, height: height, fps: fps, seconds: seconds,
                     sampleRate: sampleRate, channels: channels, audio: audio, gop: gop)
        }
    }

    /// `derived(from:name:arguments:)` off the pool.
    public static func derived(from input: URL, name: String, arguments: [String]) async throws -> URL {
        try await offPool { try derived(from: input, name: name, arguments: arguments) }
    }

    /// `generated(_:arguments:)` off the pool.
    public static func generated(_ name: String, arguments: [String]) async throws -> URL {
        try await offPool { try generated(name, arguments: arguments) }
    }
}
