import Media
import Timing

/// Steps one source (content or ad) onto the constant-rate output timeline one output frame at a
/// time, by its timestamps (`FrameSelection`): the one frame selection of the frame loop, stepped
/// by its `DecodedFeed` one frame at a time (a player) or in runs up to a cue (a stitch), so a
/// frame shown by the player is the frame a stitch writes.
///
/// A segment starts at the first frame it shows (its `p0`); content's first segment starts at its
/// timeline's start (`MediaSource.gapStart`), the first frame held for the slots before its own
/// time, and a cue inside that lead ends the segment there (the next one holds the frame from the
/// cue). `restart()` begins a new segment at the next frame (after an ad break or a seek).
final class SegmentCursor {
    /// The source being stepped.
    let source: MediaSource
    private let period: MediaTime
    /// The source frame on screen (shown again while its slots are due).
    private var current: TimedFrame?
    /// The next new source frame: read ahead (it bounds `current`), or held at a cue.
    private var next: TimedFrame?
    private var boundary: MediaTime = .zero
    private var sourceDrained = false
    private var p0: MediaTime?
    private var k: Int64 = 0
    /// Slots of this segment before its first frame's own time (content's leading gap).
    private var leadSlots: Int64 = 0
    /// A cue inside the leading gap: the segment holds the first frame up to it, then holds.
    private var leadCue: MediaTime?
    /// Moves the end of a source that plays to its end (a stitch carries each ad's rounding into
    /// the next ad's end, under half a frame, so that many short ads do not drift). Zero for content.
    var endAdjustment = MediaTime.zero
    /// Source sample index minus stream sample index for this segment's audio.
    private(set) var audioOffset: Int64 = 0
    /// Whether every frame has been shown.
    private(set) var ended = false
    /// Source time where the segment starts (its first slot); nil before its first frame.
    var segmentStart: MediaTime? { p0 }
    /// Source time where the segment shown so far ends (the next frame's time, the cue inside a
    /// lead, or the last frame's end).
    private(set) var segmentEnd: MediaTime = .zero
    /// Source time of the frame held at a cue (the next new frame to show); nil when none is.
    private(set) var heldTime: MediaTime?

    /// What the next step gives.
    enum Step {
        /// Show this frame (a new source frame or a repeat; a lead slot reads as its slot's
        /// time); `first` when it starts a segment.
        case frame(TimedFrame, first: Bool)
        /// The next new source frame is at this time, at or after the cue: it is held.
        case held(MediaTime)
        /// Nothing more to show.
        case end
    }

    init(source: MediaSource, output: OutputFormat) {
        self.source = source
        period = output.frameDuration
    }

    /// The next output frame; a new source frame at or after `cue` is held (returned again after
    /// `restart()`) and yields `.held`. `streamSamples` is the stream's audio position, to map
    /// this segment's audio.
    func step(streamSamples: Int64, sampleIndex: (MediaTime) -> Int64, cue: MediaTime?) throws -> Step {
        while true {
            if ended { return .end }
            if current == nil {
                let f: TimedFrame
                if let n = next { f = n; next = nil; heldTime = nil }
                else if !sourceDrained, let n = try source.nextFrame() { f = n }
                else { ended = true; return .end }
                if p0 == nil {
                    // content before its first frame: the segment starts there, the first frame held
                    let lead = source.gapStart.flatMap { $0 < f.pts ? $0 : nil }
                    if let cue, f.pts >= cue {
                        guard let lead, lead < cue else { return hold(f) }
                        // a cue inside the lead: the first frame held from the lead to the cue
                        begin(at: lead, first: f, streamSamples: streamSamples, sampleIndex: sampleIndex)
                        leadCue = cue
                        boundary = cue
                        segmentEnd = cue
                    } else {
                        begin(at: lead ?? f.pts, first: f, streamSamples: streamSamples, sampleIndex: sampleIndex)
                        leadSlots = lead.map { FrameSelection.frameCount(from: $0, to: f.pts, period: period) } ?? 0
                        try readAhead(after: f)
                    }
                } else {
                    if let cue, f.pts >= cue { return hold(f) }
                    current = f
                    try readAhead(after: f)
                }
            }
            if let c = current, let start = p0,
               FrameSelection.isDue(outputIndex: k, segmentStart: start, period: period, before: boundary) {
                k += 1
                if leadCue != nil || k <= leadSlots {
                    // a slot before the first frame's own time reads as the slot's time
                    return .frame(TimedFrame(frame: c.frame, pts: start + period * (k - 1), duration: period), first: k == 1)
                }
                return .frame(c, first: k == 1)
            }
            if let cue = leadCue, let c = current {
                // the lead reached the cue: the first frame waits, the next segment's lead starts at the cue
                leadCue = nil
                current = nil
                source.gapStart = cue
                return hold(c)
            }
            current = nil
            if sourceDrained && next == nil { ended = true; segmentEnd = boundary; return .end }
        }
    }

    /// Holds `f` as the next new frame (at a cue).
    private func hold(_ f: TimedFrame) -> Step {
        next = f
        heldTime = f.pts
        return .held(f.pts)
    }

    /// Starts the segment at `start` with `first` on screen.
    private func begin(at start: MediaTime, first: TimedFrame, streamSamples: Int64, sampleIndex: (MediaTime) -> Int64) {
        source.gapStart = nil
        current = first
        p0 = start
        k = 0
        leadSlots = 0
        audioOffset = sampleIndex(start) - streamSamples
    }

    /// Reads the frame after `f`, which bounds it (or the source's end does).
    private func readAhead(after f: TimedFrame) throws {
        if !sourceDrained, let n = try source.nextFrame() {
            next = n
            boundary = n.pts
        } else {
            sourceDrained = true
            boundary = f.pts + (f.duration ?? period) + endAdjustment
        }
        segmentEnd = boundary
    }

    /// Starts a new segment at the next frame to show (after a pause for an ad, or a seek).
    func restart() {
        current = nil   // the frame on screen is done; the next one starts the segment
        p0 = nil
        k = 0
        leadSlots = 0
        leadCue = nil
    }
}
