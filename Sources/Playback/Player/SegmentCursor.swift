import Media
import Timing

/// Steps one source (content or ad) onto the constant-rate output timeline one output frame at a
/// time: the frame loop's unit of work. It applies the same timestamp-based selection as
/// `Splicer` (`FrameSelection`), so a frame shown by the player is the frame a stitch would show.
///
/// A segment starts at the first frame it shows (its `p0`; content's first segment at its
/// timeline's start, `MediaSource.gapStart`, the first frame held); `restart()` begins a new segment at
/// the next frame (after an ad break or a seek), exactly as the splicer starts one after a cue.
final class SegmentCursor {
    /// The source being stepped.
    let source: MediaSource
    private let period: MediaTime
    private var current: TimedFrame?
    private var lookahead: TimedFrame?
    private var boundary: MediaTime = .zero
    private var sourceDrained = false
    private var p0: MediaTime?
    private var k: Int64 = 0
    /// Slots of this segment before its first frame's own time (content's leading gap).
    private var leadSlots: Int64 = 0
    /// Source sample index minus stream sample index for this segment's audio.
    private(set) var audioOffset: Int64 = 0
    /// Whether every frame has been shown.
    private(set) var ended = false
    /// Source time where the segment shown so far ends (the next frame's time, or the last end).
    private(set) var segmentEnd: MediaTime = .zero

    /// What the next step gives.
    enum Step {
        /// Show this frame (a new source frame or a repeat); `first` when it starts a segment.
        case frame(TimedFrame, first: Bool)
        /// The next new source frame is at this time and the caller asked to stop before it.
        case held(MediaTime)
        /// Nothing more to show.
        case end
    }

    init(source: MediaSource, output: OutputFormat) {
        self.source = source
        period = output.frameDuration
    }

    /// The next output frame. `stopBefore(pts)` is asked before each *new* source frame is
    /// shown; returning true holds it (returned again by the next call) and yields `.held`.
    /// `streamSamples` is the stream's audio position, to map this segment's audio.
    func step(streamSamples: Int64, sampleIndex: (MediaTime) -> Int64,
              stopBefore: (MediaTime) -> Bool) throws -> Step {
        while true {
            if ended { return .end }
            if current == nil {
                let f: TimedFrame
                if let l = lookahead { f = l; lookahead = nil }
                else if !sourceDrained, let n = try source.nextFrame() { f = n }
                else { ended = true; return .end }
                if stopBefore(f.pts) { lookahead = f; return .held(f.pts) }
                current = f
                if p0 == nil {
                    // content before its first frame: the segment starts there, the first frame held
                    let start = source.gapStart.map { min($0, f.pts) } ?? f.pts
                    source.gapStart = nil
                    p0 = start
                    leadSlots = FrameSelection.frameCount(from: start, to: f.pts, period: period)
                    k = 0
                    audioOffset = sampleIndex(start) - streamSamples
                }
                if let n = sourceDrained ? nil : try source.nextFrame() {
                    lookahead = n
                    boundary = n.pts
                } else {
                    sourceDrained = true
                    boundary = f.pts + (f.duration ?? period)
                }
                segmentEnd = boundary
            }
            if let c = current, let start = p0,
               FrameSelection.isDue(outputIndex: k, segmentStart: start, period: period, before: boundary) {
                k += 1
                if k <= leadSlots {
                    // a slot before the first frame's own time reads as the slot's time
                    return .frame(TimedFrame(frame: c.frame, pts: start + period * (k - 1), duration: period), first: k == 1)
                }
                return .frame(c, first: k == 1)
            }
            current = nil
            if sourceDrained && lookahead == nil { ended = true; segmentEnd = boundary; return .end }
        }
    }

    /// Starts a new segment at the next frame to show (after a pause for an ad, or a seek).
    func restart() {
        current = nil   // the frame on screen is done; the next one starts the segment
        p0 = nil
        k = 0
        leadSlots = 0
    }
}
