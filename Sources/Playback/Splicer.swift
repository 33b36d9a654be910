import Media
import Timing

/// What one call of `Splicer.play` put on the output.
struct SegmentOutcome {
    /// Source time of the segment's first frame (its content-time start).
    var sourceStart: MediaTime
    /// Source time where the segment ends: the next frame's time, or the last frame's end.
    var sourceEnd: MediaTime
    /// Source time of the last frame shown.
    var lastShown: MediaTime?
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

    /// Plays `source` from where it stands until the first frame at or after `cue` (held back for
    /// the next call), or to its end when `cue` is nil. `isAd` tells the layers what they draw on. `onFrame` sees each shown frame's source time
    /// and returns false to stop right after that frame (an ad being skipped or discarded).
    /// `endAdjustment` moves the end of a source that plays to its end (the rounding carried over
    /// from earlier ads, less than half a frame), so that many short ads do not drift.
    /// Content whose first frame comes after its timeline's start (`source.gapStart`) starts there,
    /// the first frame held for the slots before its own time (which `onFrame` sees as the slots'
    /// times), its audio from the start; a cue before the first frame ends such a segment there.
    func play(_ source: MediaSource, until cue: MediaTime?, endAdjustment: MediaTime = .zero, isAd: Bool = false,
              onFrame: (MediaTime) -> Bool) throws -> SegmentOutcome {
        let streamStart = streamTime
        guard var current = try source.nextFrame() else {
            source.ended = true
            return SegmentOutcome(sourceStart: .zero, sourceEnd: .zero, lastShown: nil, frames: 0,
                                  streamStart: streamStart, streamEnd: streamStart)
        }
        let period = output.frameDuration
        // content before its first frame: the segment starts there, the first frame held
        let lead = source.gapStart.flatMap { $0 < current.pts ? $0 : nil }
        source.gapStart = nil
        if let cue, current.pts >= cue {
            source.pending = current
            guard let lead, lead < cue else {
                source.gapStart = lead
                return SegmentOutcome(sourceStart: current.pts, sourceEnd: current.pts, lastShown: nil, frames: 0,
                                      streamStart: streamStart, streamEnd: streamStart)
            }
            // a cue before the first frame: the first frame held from `lead` to the cue
            source.gapStart = cue
            let offset = output.sampleIndex(at: lead) - samplesOut
            var k: Int64 = 0
            while FrameSelection.isDue(outputIndex: k, segmentStart: lead, period: period, before: cue) {
                let at = lead + period * k
                try surface.presentVideo(current.frame, keyframe: k == 0, isAd: isAd, sourceTime: at, late: false)
                k += 1
                try pumpAudio(source.audio, sourceOffset: offset)
                _ = onFrame(at)
            }
            return SegmentOutcome(sourceStart: lead, sourceEnd: cue, lastShown: nil, frames: k,
                                  streamStart: streamStart, streamEnd: streamTime)
        }
        let p0 = lead ?? current.pts
        let leadSlots = lead.map { FrameSelection.frameCount(from: $0, to: current.pts, period: period) } ?? 0
        let firstSourceSample = output.sampleIndex(at: p0)
        let firstStreamSample = samplesOut
        var k: Int64 = 0
        var lastShown: MediaTime?
        var sourceEnd = p0
        var stopped = false
        while !stopped {
            let next = try source.nextFrame()
            var stop = false
            if let next {
                sourceEnd = next.pts
                if let cue, next.pts >= cue { source.pending = next; stop = true }
            } else {
                sourceEnd = current.pts + (current.duration ?? period) + endAdjustment
                source.ended = true
                stop = true
            }
            while FrameSelection.isDue(outputIndex: k, segmentStart: p0, period: period, before: sourceEnd) {
                // a slot before the first frame's own time (the lead) reads as its slot's time
                let at = k < leadSlots ? p0 + period * k : current.pts
                try surface.presentVideo(current.frame, keyframe: k == 0, isAd: isAd, sourceTime: at, late: false)
                k += 1
                lastShown = current.pts
                try pumpAudio(source.audio, sourceOffset: firstSourceSample - firstStreamSample)
                if !onFrame(at) {
                    stopped = true
                    sourceEnd = current.pts + period
                    break
                }
            }
            guard !stop, let next else { break }
            current = next
        }
        return SegmentOutcome(sourceStart: p0, sourceEnd: sourceEnd, lastShown: lastShown, frames: k,
                              streamStart: streamStart, streamEnd: streamTime)
    }

    /// Brings the output audio up to the end of the last video frame presented, reading `audio`
    /// at stream sample + `sourceOffset` (the surface mixes the layers in).
    func pumpAudio(_ audio: AudioTrack, sourceOffset: Int64) throws {
        try surface.presentAudio(from: audio, offset: sourceOffset)
    }
}
