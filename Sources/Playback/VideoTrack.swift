import Media
import Timing

/// A decoded video frame conformed to the output format, with its presentation time relative to
/// its source's origin (an ad's first video frame, the content's timeline start) and its duration
/// when the stream gives one.
struct TimedFrame {
    let frame: Frame
    let pts: MediaTime
    let duration: MediaTime?
}

/// The video of one source (content or ad), decoded and conformed frame by frame.
final class VideoTrack {
    private let reader: SourceReader
    private let output: OutputFormat
    private let stream: StreamInfo
    private let timeBase: Rational
    private let fallbackDuration: MediaTime
    private var graph: VideoFilterGraph?
    private var lastPTS: MediaTime?
    /// Container time of source time 0: the first frame's unless set before reading (content:
    /// `ContentTimeline.start`); all times are relative to it.
    var origin: MediaTime?
    /// Content: its timeline, which decides the origin once the first frame is read; nil for an ad.
    var timeline: ContentTimeline?
    /// Frames decoded so far.
    private(set) var decodedFrames = 0

    init(reader: SourceReader, output: OutputFormat) throws {
        guard let decoder = reader.video else { throw MediaError.missingStream("no video stream") }
        self.reader = reader
        self.output = output
        stream = decoder.stream
        timeBase = decoder.timeBase
        fallbackDuration = (stream.frameRate ?? output.frameRate).period
    }

    /// The next frame, or nil at the end of the stream.
    func next() throws -> TimedFrame? {
        let decoded = try Frame()
        guard try reader.nextVideoFrame(into: decoded) else { return nil }
        decodedFrames += 1
        let duration = decoded.durationTicks.map { MediaTime(value: $0 * timeBase.numerator, timescale: timeBase.denominator).reduced }
        var pts: MediaTime
        if let ticks = decoded.bestEffortTicks {
            let absolute = MediaTime(value: ticks * timeBase.numerator, timescale: timeBase.denominator)
            // content: a first frame before the timeline's start moves the start back to it
            // (`ContentTimeline.origin(firstFrame:)`); an ad: its first frame is its origin
            if let timeline, decodedFrames == 1 { origin = min(origin ?? timeline.start, timeline.origin(firstFrame: absolute)) }
            if origin == nil { origin = absolute }
            pts = absolute - origin!
        } else {
            if origin == nil { origin = .zero }
            pts = lastPTS.map { $0 + (duration ?? fallbackDuration) } ?? .zero
        }
        if let last = lastPTS, pts < last { pts = last }   // never go backwards
        lastPTS = pts
        return TimedFrame(frame: try conform(decoded), pts: pts, duration: duration)
    }

    private func conform(_ frame: Frame) throws -> Frame {
        let sar = frame.sampleAspectRatio ?? stream.sampleAspectRatio
        guard let description = ConformFilter.description(
            width: frame.width, height: frame.height, sar: sar, rotation: stream.rotation,
            mirrored: stream.mirrored, pixelFormat: frame.pixelFormatName, output: output) else { return frame }
        if graph?.inputKey != VideoFilterGraph.key(for: frame) || graph?.filterDescription != description {
            graph = try VideoFilterGraph(like: frame, timeBase: timeBase, sampleAspectRatio: sar, description: description)
        }
        try graph!.push(frame)
        let out = try Frame()
        guard try graph!.pull(into: out) == .produced else {
            throw MediaError.unsupported("video filter '\(description)' held a frame back")
        }
        return out
    }
}
