// Ad media decoded and conformed to an output format, read by time: for layers that draw ad video into part of the picture.
import Media
import Threads
import Timing

/// The video of ad media opened with the ad-media policy and conformed to an output format
/// (size, pixel format, letterboxed) exactly as ad breaks conform it, read by time since its
/// first frame: a layer drawing ad video into a rectangle of the picture (a native L-bar's media
/// window) asks for the frame to show at each output frame. Its audio is not read. Its decoder
/// and the frames it holds are a `LoopBound` of the frame loop that draws it (`owner`).
package final class ConformedVideo {
    private struct Reading {
        let source: MediaSource
        var current: TimedFrame?
        var upcoming: TimedFrame?
    }
    private let reading: LoopBound<Reading>
    private let origin: MediaTime

    /// Opens `url` (a local path or http(s) URL already vetted as ad media) for `format`, to be
    /// read by the thread `owner` owns; throws when it cannot be read or has no video frame.
    package init(url: String, format: OutputFormat, owner: ThreadOwner, threads: Int = 0) throws {
        let source = try MediaSource(url: url, output: format, threads: threads, policy: .adMedia)
        guard let first = try source.nextFrame() else { throw MediaError.missingStream("\(url) has no video frame") }
        origin = first.pts
        reading = LoopBound(Reading(source: source, current: first, upcoming: try source.nextFrame()), owner: owner,
                            name: "a conformed video's decoder")
    }

    /// The frame to show `time` after the first: the latest at or before it (the last one once
    /// the video has ended).
    package func frame(at time: MediaTime) throws -> Frame? {
        let at = origin + time
        return try reading.withValue { r in
            while let u = r.upcoming, u.pts <= at {
                r.current = u
                r.upcoming = try r.source.nextFrame()
            }
            return r.current?.frame
        }
    }
}
