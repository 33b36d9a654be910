import Media
import Timing

/// What one call of `Splicer.play` put on the output.
struct SegmentOutcome {
    /// Source time of the segment's first frame (its content-time start).
    var sourceStart: MediaTime
    /// Source time where the segment ends: the next frame's time, or the last frame's end.
    var sourceEnd: MediaTime
    /// Output frames written.
    var frames: Int64
    /// Output stream time where it starts and ends.
    var streamStart: MediaTime
    var streamEnd: MediaTime
}

/// Plays a source's run onto a `RenderSurface` on the constant-rate output timeline (the surface
/// composes the layers and hands each frame and its audio to its outputs: a stitch's file), and
/// keeps every segment's audio exactly as long as its video.
///
/// It is synchronous and owns nothing shared: one thread drives it. Output frame `n` is at
/// stream time `n·P`; after each frame the audio is brought up to `round((n+1)·P·rate)` samples,
/// taken from the same source at the same source time, so audio and video stay in sync at every
/// join to within one sample.
final class Splicer {
    let output: OutputFormat
    /// Where the frames go: it composes, counts, and writes to its outputs.
    let surface: RenderSurface

    init(surface: RenderSurface) {
        self.output = surface.format
        self.surface = surface
    }

    /// Video frames presented so far (copied ones included, which `SmartContent` counts itself).
    var framesOut: Int64 { surface.presentedFrames }
    /// Audio samples (per channel) presented so far.
    var samplesOut: Int64 { surface.presentedSamples }

    /// The stream time reached: the end of the last frame written.
    var streamTime: MediaTime { surface.streamTime }

    /// Plays a new segment of `cursor`'s source from where it stands until the first frame at or
    /// after `cue` (held back for the next call), or to its end when `cue` is nil. `isAd` tells
    /// the layers what they draw on. `onFrame` sees each shown frame's source time (a slot of
    /// content's leading gap as its slot's time) and returns false to stop right after that frame
    /// (an ad being skipped or discarded).
    func play(_ cursor: SegmentCursor, until cue: MediaTime?, isAd: Bool = false,
              onFrame: (MediaTime) -> Bool) throws -> SegmentOutcome {
        let streamStart = streamTime
        cursor.restart()
        var frames: Int64 = 0
        loop: while true {
            switch try cursor.step(streamSamples: samplesOut, sampleIndex: output.sampleIndex(at:), cue: cue) {
            case .frame(let f, let first):
                try surface.presentVideo(f.frame, keyframe: first, isAd: isAd, sourceTime: f.pts, late: false)
                frames += 1
                try pumpAudio(cursor.source.audio, sourceOffset: cursor.audioOffset)
                if !onFrame(f.pts) { cursor.stop(); break loop }
            case .held, .end:
                break loop
            }
        }
        let start = frames > 0 ? cursor.segmentStart ?? .zero : cursor.heldTime ?? .zero
        return SegmentOutcome(sourceStart: start, sourceEnd: frames > 0 ? cursor.segmentEnd : start, frames: frames,
                              streamStart: streamStart, streamEnd: streamTime)
    }

    /// Brings the output audio up to the end of the last video frame presented, reading `audio`
    /// at stream sample + `sourceOffset` (the surface mixes the layers in).
    func pumpAudio(_ audio: AudioTrack, sourceOffset: Int64) throws {
        try surface.presentAudio(from: audio, offset: sourceOffset)
    }
}
