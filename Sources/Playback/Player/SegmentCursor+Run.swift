import Media
import Timing

/// What one run of a source (a stitch's content up to a cue, or an ad) put on the output.
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

extension SegmentCursor {
    /// Plays a new segment of the source from where it stands until the first frame at or after
    /// `cue` (held for the next run), or to its end when `cue` is nil, presenting every step on
    /// `surface` as fast as possible: the surface composes the layers (`isAd` tells them what
    /// they draw on), writes the frame and brings the audio up to its end, so audio and video
    /// stay in sync at every join to within one sample. `onFrame` sees each shown frame's source
    /// time (a slot of content's leading gap as its slot's time) and returns false to stop right
    /// after that frame (an ad being skipped or discarded).
    func play(until cue: MediaTime?, on surface: RenderSurface, isAd: Bool = false,
              onFrame: (MediaTime) -> Bool) throws -> SegmentOutcome {
        let streamStart = surface.streamTime
        let format = surface.format
        restart()
        var frames: Int64 = 0
        loop: while true {
            switch try step(streamSamples: surface.presentedSamples, sampleIndex: format.sampleIndex(at:), cue: cue) {
            case .frame(let f, let first):
                try surface.presentVideo(f.frame, keyframe: first, isAd: isAd, sourceTime: f.pts, late: false)
                frames += 1
                try surface.presentAudio(from: source.audio, offset: audioOffset)
                if !onFrame(f.pts) { stop(); break loop }
            case .held, .end:
                break loop
            }
        }
        let start = frames > 0 ? segmentStart ?? .zero : heldTime ?? .zero
        return SegmentOutcome(sourceStart: start, sourceEnd: frames > 0 ? segmentEnd : start, frames: frames,
                              streamStart: streamStart, streamEnd: surface.streamTime)
    }
}
