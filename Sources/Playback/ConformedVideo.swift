// Ad media decoded and conformed to an output format, read by time: for layers that draw ad video into part of the picture.
import Media
import Timing

/// The video of ad media opened with the ad-media policy and conformed to an output format
/// (size, pixel format, letterboxed) exactly as ad breaks conform it, read by time since its
/// first frame: a layer drawing ad video into a rectangle of the picture (a native L-bar's media
/// window) asks for the frame to show at each output frame. Its audio is not read.
/// Frame-loop thread only (it owns its decoder).
package final class ConformedVideo {
    private let source: MediaSource
    private var current: TimedFrame?
    private var upcoming: TimedFrame?
    private let origin: MediaTime

    /// Opens `url` (a local path or http(s) URL already vetted as ad media) for `format`;
    /// throws when it cannot be read or has no video frame.
    public init(url: String, format: OutputFormat, threads: Int = 0) throws {
        source = try MediaSource(url: url, output: format, threads: threads, policy: .adMedia)
        guard let first = try source.nextFrame() else { throw MediaError.missingStream("\(url) has no video frame") }
        current = first
        origin = first.pts
        upcoming = try source.nextFrame()
    }

    /// The frame to show `time` after the first: the latest at or before it (the last one once
    /// the video has ended).
    public func frame(at time: MediaTime) throws -> Frame? {
        let at = origin + time
        while let u = upcoming, u.pts <= at {
            current = u
            upcoming = try source.nextFrame()
        }
        return current?.frame
    }
}
