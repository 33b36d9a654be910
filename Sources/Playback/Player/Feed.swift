import Media
import Timing

/// How a source reaches the frame loop's surface, one run at a time: content from where it stands
/// up to a cue, or an ad. Frames decoded and stepped onto the output timeline (`DecodedFeed`,
/// content or an ad, on any surface), or packets copied for an output that takes them (a
/// smart-rendered stitch: `SmartContent`, `CachedAd` from the transcode cache).
protocol Feed: AnyObject {
    /// Presents the source on `surface` from where it stands up to the first frame at or after
    /// `cue` (held for the next run), or to its end when `cue` is nil, as fast as the surface takes
    /// the frames (its clock paces them). `onFrame` sees each frame's source time once the frame
    /// and its audio are out (a slot of content's leading gap as its slot's time) and returns false
    /// to end the run there; a feed of copied packets ends runs at cues only.
    func play(until cue: MediaTime?, on surface: RenderSurface, onFrame: (MediaTime) -> Bool) throws -> SegmentOutcome
    /// Whether every frame has been shown.
    var ended: Bool { get }
    /// Source time of the frame held at a cue (the next to show); nil when none is held.
    var nextContentTime: MediaTime? { get }
    /// Starts a new segment at the next frame (after an ad or at each run of a stitch).
    func restart()
    /// The read error that ended the source early, if one did.
    var readError: MediaError? { get }
}

extension Feed {
    /// A run of copied packets always starts a segment of its own.
    func restart() {}
    var readError: MediaError? { nil }
}

/// What one run of a source put on the output.
struct SegmentOutcome {
    /// Source time of the run's first frame (its content-time start).
    var sourceStart: MediaTime
    /// Source time where the run ends: the next frame's time, or the last frame's end.
    var sourceEnd: MediaTime
    /// Output frames presented.
    var frames: Int64
    /// Output stream time where it starts and ends.
    var streamStart: MediaTime
    var streamEnd: MediaTime
}

/// A source decoded frame by frame and stepped by its `SegmentCursor` (the one frame selection):
/// the surface composes the layers (`isAd` tells them what they draw on), writes the frame and
/// brings the audio up to its end, so audio and video stay in sync at every join to within one
/// sample.
final class DecodedFeed: Feed {
    let cursor: SegmentCursor
    private let isAd: Bool

    /// A feed of `source`; `endAdjustment` moves the end of an ad (see `SegmentCursor`).
    init(source: MediaSource, output: OutputFormat, isAd: Bool = false, endAdjustment: MediaTime = .zero) {
        cursor = SegmentCursor(source: source, output: output)
        cursor.endAdjustment = endAdjustment
        self.isAd = isAd
    }

    func play(until cue: MediaTime?, on surface: RenderSurface, onFrame: (MediaTime) -> Bool) throws -> SegmentOutcome {
        let streamStart = surface.streamTime
        let format = surface.format
        var frames: Int64 = 0
        loop: while true {
            switch try cursor.step(streamSamples: surface.presentedSamples, sampleIndex: format.sampleIndex(at:), cue: cue) {
            case .frame(let f, let first):
                do {
                    try surface.presentVideo(f.frame, keyframe: first, isAd: isAd, sourceTime: f.pts)
                    try surface.presentAudio(from: cursor.source.audio, offset: cursor.audioOffset)
                } catch {
                    throw PresentFailure(error: error)
                }
                frames += 1
                if !onFrame(f.pts) { break loop }
            case .held, .end:
                break loop
            }
        }
        let start = frames > 0 ? cursor.segmentStart ?? .zero : cursor.heldTime ?? .zero
        return SegmentOutcome(sourceStart: start, sourceEnd: frames > 0 ? cursor.segmentEnd : start, frames: frames,
                              streamStart: streamStart, streamEnd: surface.streamTime)
    }

    var ended: Bool { cursor.ended }
    var nextContentTime: MediaTime? { cursor.heldTime }
    func restart() { cursor.restart() }
    var readError: MediaError? { cursor.source.reader.readError }
}

/// The surface could not present a decoded frame (an output, a layer or the audio failed), as
/// opposed to the source failing to decode: a player keeps the error and goes on.
struct PresentFailure: Error, CustomStringConvertible {
    let error: Error
    var description: String { "\(error)" }
}
