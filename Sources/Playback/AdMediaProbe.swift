import Foundation
import Media
import Timing

/// An ad media file that was opened and decoded end to end before the stitch: what it holds and
/// how long it really is (measured from decoded frames, never from a declared duration).
public struct AdMedia: Sendable, Equatable {
    /// The path or URL.
    public var url: String
    /// Coded picture size.
    public var width: Int
    /// Coded picture height.
    public var height: Int
    /// Frame rate as the stream declares it (informational).
    public var frameRate: Rational?
    /// Whether it has an audio stream.
    public var hasAudio: Bool
    /// Decoded video frames.
    public var frames: Int
    /// Measured duration: from the first frame's time to the end of the last frame.
    public var duration: MediaTime
    /// The duration its container declares, when it declares one.
    public var declaredDuration: MediaTime?

    /// Makes a description of measured media.
    public init(url: String, width: Int, height: Int, frameRate: Rational?, hasAudio: Bool, frames: Int, duration: MediaTime,
                declaredDuration: MediaTime? = nil) {
        self.url = url; self.width = width; self.height = height; self.frameRate = frameRate
        self.hasAudio = hasAudio; self.frames = frames; self.duration = duration; self.declaredDuration = declaredDuration
    }
}

/// Opens and fully decodes ad media to validate it and measure its real duration.
public enum AdMediaProbe {
    /// Why an ad cannot be spliced, with its VAST error code.
    public struct Rejection: Error, Equatable {
        /// 401 file not found, 403 no video (unsupported), 405 cannot be decoded.
        public var code: Int
        /// One-line reason.
        public var message: String
    }

    /// Measures `url`, or throws a `Rejection`.
    public static func measure(_ url: String, threads: Int = 0) throws -> AdMedia {
        if !url.contains("://") {
            var st = stat()
            guard stat(url, &st) == 0 else { throw Rejection(code: 401, message: "ad media \(url) not found") }
            // A FIFO or device would block the open or never end.
            guard st.st_mode & S_IFMT == S_IFREG else { throw Rejection(code: 403, message: "ad media \(url) is not a regular file") }
        }
        let reader: SourceReader
        do {
            reader = try SourceReader(url: url, wantAudio: false, threads: threads, policy: .adMedia)
        } catch MediaError.unsupported(let why) {
            throw Rejection(code: 403, message: "ad media refused: \(why)")
        } catch {
            throw Rejection(code: 405, message: "ad media \(url) cannot be opened: \(error)")
        }
        guard let decoder = reader.video else {
            throw Rejection(code: 403, message: "ad media \(url) has no video stream")
        }
        let hasAudio = reader.demuxer.bestStream(.audio) != nil
        let tb = decoder.timeBase
        let frame = try Frame()
        var first: MediaTime?, end: MediaTime?
        var count = 0
        let fallback = (decoder.stream.frameRate ?? Rational(25, 1)).period
        do {
            while try reader.nextVideoFrame(into: frame) {
                count += 1
                guard let ticks = frame.bestEffortTicks else { continue }
                let pts = MediaTime(value: ticks * tb.numerator, timescale: tb.denominator)
                if first == nil { first = pts }
                let d = frame.durationTicks.map { MediaTime(value: $0 * tb.numerator, timescale: tb.denominator) } ?? fallback
                end = MediaTime.max(end ?? pts + d, pts + d)
            }
        } catch {
            throw Rejection(code: 405, message: "ad media \(url) cannot be decoded: \(error)")
        }
        if let e = reader.readError {
            throw Rejection(code: 405, message: "ad media \(url) is damaged: \(e)")
        }
        guard count > 0, let first, let end else {
            throw Rejection(code: 405, message: "ad media \(url) has no decodable video frames")
        }
        let measured = (end - first).reduced
        let declared = decoder.stream.duration ?? (reader.demuxer.durationIsGuessed ? nil : reader.demuxer.duration)
        if let declared, measured * 2 < declared {
            throw Rejection(code: 405, message: "ad media \(url) is truncated: \(measured.seconds)s decodable of \(declared.seconds)s declared")
        }
        // Shorter by more than a frame: played as measured, and the session reports it (VAST 202).
        return AdMedia(url: url, width: decoder.stream.width, height: decoder.stream.height,
                       frameRate: decoder.stream.frameRate, hasAudio: hasAudio, frames: count, duration: measured,
                       declaredDuration: declared)
    }
}
