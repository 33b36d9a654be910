import Foundation
import Media
import Playback
import Timing

/// What packaging needs to know of an MP4 source, from one pass over its video packets (the
/// engine's `VideoPacketIndex`, the scan smart rendering reads too): a constant frame rate
/// (every frame's time is the first's plus a whole number of periods), the keyframes, and the
/// streams.
struct ContentScan {
    var videoIndex: Int
    var audioIndex: Int?
    var width: Int
    var height: Int
    /// Frames per second, exact.
    var frameRate: Rational
    var frameCount: Int
    /// Frame indices (presentation order) of the keyframes; the first is 0.
    var keyframes: [Int]
    /// Video bits per second, measured from the packets.
    var videoBitrate: Int
    /// The first frame's time in periods (usually 0): frame `i` is at `(originFrames + i)` periods
    /// in the source's (and every rendition's) timestamps.
    var originFrames: Int
    /// Content time of frame 0 on the content's timeline (`ContentTimeline`, the stitch's and the
    /// player's): after 0 when an MP4 leads with a gap before its first frame; cues count from
    /// the timeline's origin, not from frame 0.
    var videoStart: MediaTime

    /// How long before it shows the first video frame decodes (its pts − dts: two frames for
    /// x264's B-frame pyramid, zero without B-frames).
    var decodeDelay: MediaTime = .zero

    /// The duration of one frame.
    var period: MediaTime { frameRate.period }
    /// Exact duration of the video.
    var duration: MediaTime { period * Int64(frameCount) }

    /// Scans `path`; throws a one-line `StoreError.unsupported` for a source the store cannot package.
    static func scan(_ path: String) throws -> ContentScan {
        let demuxer = try Demuxer(url: path)
        guard let v = demuxer.bestStream(.video) else { throw StoreError.unsupported("\(path) has no video stream") }
        let info = demuxer.streams[v]
        guard info.codecName == "h264" else {
            throw StoreError.unsupported("\(path): video is \(info.codecName); the store packages H.264 sources")
        }
        let a = demuxer.bestStream(.audio)
        if let a, !["aac", "mp3"].contains(demuxer.streams[a].codecName) {
            throw StoreError.unsupported("\(path): audio is \(demuxer.streams[a].codecName); HLS carries AAC or MP3")
        }
        let timeline = ContentTimeline(demuxer)
        let index = try VideoPacketIndex(demuxer: demuxer, stream: v)
        let tb = index.timeBase
        var pts: [Int64] = []
        var keys: [Int64] = []
        var bytes = 0
        for packet in index.entries {
            guard let t = packet.pts else { throw StoreError.unsupported("\(path): a video packet without a timestamp") }
            pts.append(t)
            if packet.keyframe { keys.append(t) }
            bytes += packet.size
        }
        let firstDelay = index.entries.first.flatMap { e in e.pts.map { max(0, $0 - (e.dts ?? $0)) } }
        pts.sort()
        guard pts.count >= 2, let origin = pts.first else { throw StoreError.unsupported("\(path): fewer than two video frames") }
        let step = pts[1] - pts[0]
        guard step > 0, zip(pts, pts.dropFirst()).allSatisfy({ $1 - $0 == step }) else {
            throw StoreError.unsupported("\(path): the video's frame rate is not constant; the store packages constant-rate sources")
        }
        guard keys.contains(origin) else { throw StoreError.unsupported("\(path): the first frame is not a keyframe") }
        // frame time = origin + index * period; the origin must itself be a whole number of periods
        guard origin >= 0, origin % step == 0 else {
            throw StoreError.unsupported("\(path): the first frame's time is not a whole number of frame periods")
        }
        let frameRate = Rational(tb.denominator, tb.numerator * step)
        let duration = frameRate.period * Int64(pts.count)
        let keyframes = keys.map { Int(($0 - origin) / step) }.sorted()
        let first = MediaTime(value: origin * tb.numerator, timescale: tb.denominator)
        return ContentScan(videoIndex: v, audioIndex: a, width: info.width, height: info.height, frameRate: frameRate,
                           frameCount: pts.count, keyframes: Array(Set(keyframes)).sorted(),
                           videoBitrate: Int(Double(bytes * 8) / max(duration.seconds, 0.001)),
                           originFrames: Int(origin / step), videoStart: (first - timeline.origin(firstFrame: first)).reduced,
                           decodeDelay: MediaTime(value: (firstDelay ?? 0) * tb.numerator, timescale: tb.denominator).reduced)
    }
}
