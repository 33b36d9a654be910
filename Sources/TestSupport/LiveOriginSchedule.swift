import Foundation
import Timing

/// A scheduled ad break of a `LiveOrigin`, as the test asks for it.
public struct LiveOriginBreak: Sendable, Equatable {
    /// Where the break starts.
    public enum Start: Sendable, Equatable {
        /// At the first frame of segment `index` (a segment boundary).
        case segment(Int)
        /// At content frame `n` (PTS `firstPTS + n * ticksPerFrame`), possibly inside a segment.
        case frame(Int)
    }

    /// The SCTE-35 command a cue carries.
    public enum Command: Sendable, Equatable {
        /// `splice_insert` out of network with `break_duration` (auto return), and one back in at the end.
        case spliceInsert
        /// `time_signal` with a segmentation descriptor 0x34 (provider placement opportunity start,
        /// with `segmentation_duration`), and one with 0x35 (its end) at the end; same event id.
        case timeSignal
    }

    /// How the origin signals it.
    public enum Signal: Sendable, Equatable {
        /// `#EXT-X-CUE-OUT:DURATION=d` before the start segment, `#EXT-X-CUE-OUT-CONT:ElapsedTime=e,Duration=d`
        /// before each segment inside, `#EXT-X-CUE-IN` before the segment content resumes in. Markers
        /// sit between segments: the start must be a segment boundary and the end is rounded up to one.
        case cueOut
        /// `#EXT-X-DATERANGE` with `SCTE35-OUT` (before the segment holding the start; kept ahead of the
        /// window's first segment while the break runs, for viewers who join mid-break) and the
        /// matching `SCTE35-IN` before the segment holding the end; the sections' splice PTS are exact frames.
        case dateRange(Command)
        /// SCTE-35 sections in the TS on PID `LiveOriginTS.scte35PID`: the out cue in the segment holding
        /// the start, the in cue in the one holding the end. Every segment's PMT then lists the PID.
        case inBand(Command)
    }

    /// The start.
    public var start: Start
    /// The signalled duration.
    public var duration: MediaTime
    /// When set, the break ends this long after its start (CUE-IN / SCTE35-IN / the return cue),
    /// before the signalled duration.
    public var endsAfter: MediaTime?
    /// The signalling form.
    public var signal: Signal
    /// The SCTE-35 event id (`splice_event_id` / `segmentation_event_id`; DATERANGE `ID` is `brk-<id>`);
    /// nil: 100 + the break's index in the schedule.
    public var eventID: UInt32?
    /// The out signal is repeated while the break runs, as some origins do: a DATERANGE's
    /// `SCTE35-OUT` tag (same `ID`) before every segment of the break, an in-band out cue (same
    /// event id and PTS) in every segment of it, `EXT-X-CUE-OUT` (not `-CONT`) before each.
    public var repeated: Bool
    /// More forms the same break is signalled in at once (same event id and PTS).
    public var alsoSignalled: [Signal]
    /// A DATERANGE's `SCTE35-OUT` also this many segments before the break's (its splice time
    /// ahead of the segment it sits before), as origins that announce breaks early do; 0: only
    /// before the break's own segment.
    public var signalledAhead = 0

    /// A break.
    public init(start: Start, duration: MediaTime, endsAfter: MediaTime? = nil, signal: Signal, eventID: UInt32? = nil,
                repeated: Bool = false, alsoSignalled: [Signal] = []) {
        self.start = start; self.duration = duration; self.endsAfter = endsAfter; self.signal = signal; self.eventID = eventID
        self.repeated = repeated; self.alsoSignalled = alsoSignalled
    }

    /// Every form it is signalled in.
    var signals: [Signal] { [signal] + alsoSignalled }
}

/// A break of a `LiveOrigin` placed on the content: exact frames and PTS, the segments its signals
/// sit in, and the id `LiveBreakTracker` gives it.
public struct LiveOriginPlacedBreak: Sendable, Equatable {
    /// As scheduled.
    public var scheduled: LiveOriginBreak
    /// Its event id.
    public var eventID: UInt32
    /// The content frame the break starts at (the ad's first frame replaces it).
    public var startFrame: Int
    /// The content frame content resumes at: the first frame at or after start + duration (or the
    /// early end); for `.cueOut`, the first frame of the segment after the CUE-IN.
    public var endFrame: Int
    /// PTS (90 kHz) of `startFrame`, `endFrame`.
    public var startPTS: Int64, endPTS: Int64
    /// The segment holding `startFrame`, the one holding `endFrame` (the CUE-IN / IN cue's segment).
    public var startSegment: Int, endSegment: Int
    /// The `LiveBreak.id` the project's tracker makes of it: `cue-<startSegment>`, `daterange-brk-<id>`,
    /// `splice-<id>` or `segmentation-<id>`.
    public var trackerID: String
    /// The DATERANGE `ID` (`brk-<eventID>`).
    public var dateRangeID: String { "brk-\(eventID)" }
    /// The signalled duration.
    public var plannedDuration: MediaTime { scheduled.duration }
    /// `endPTS - startPTS` as a time.
    public var actualDuration: MediaTime { MediaTime(value: endPTS - startPTS, timescale: 90_000) }

    /// Places `schedule` on `media`; throws `LiveOriginError` for a break that does not fit.
    static func place(_ schedule: [LiveOriginBreak], on media: LiveOriginMedia) throws -> [LiveOriginPlacedBreak] {
        var out: [LiveOriginPlacedBreak] = []
        let segments = media.segments
        for (i, b) in schedule.enumerated() {
            let why = "break \(i)"
            guard b.duration > .zero else { throw LiveOriginError.schedule("\(why): duration must be positive") }
            if let e = b.endsAfter, e <= .zero || e > b.duration {
                throw LiveOriginError.schedule("\(why): endsAfter must be within the duration")
            }
            let start: Int
            switch b.start {
            case .segment(let s):
                guard segments.indices.contains(s) else { throw LiveOriginError.schedule("\(why): no segment \(s)") }
                start = segments[s].firstFrame
            case .frame(let n): start = n
            }
            guard let startSegment = media.segmentIndex(holdingFrame: start) else {
                throw LiveOriginError.schedule("\(why): frame \(start) is outside the content")
            }
            if b.signals.contains(.cueOut), segments[startSegment].firstFrame != start {
                throw LiveOriginError.schedule("\(why): CUE-OUT markers start at a segment boundary, frame \(start) is inside segment \(startSegment)")
            }
            // First frame at or after start + elapsed: ceil(elapsed * fps) frames later.
            let elapsed = b.endsAfter ?? b.duration
            let frames = (elapsed * Int64(media.fps)).count(of: MediaTime(seconds: 1), rounding: .up)
            var end = start + Int(frames)
            if b.signals.contains(.cueOut), let s = media.segmentIndex(holdingFrame: end), segments[s].firstFrame != end {
                end = segments[s].firstFrame + segments[s].frameCount
            }
            guard let endSegment = media.segmentIndex(holdingFrame: end) else {
                throw LiveOriginError.schedule("\(why): content resumes at frame \(end), past the content's end")
            }
            if let last = out.last, start < last.endFrame || (b.signals.contains(.cueOut) || last.scheduled.signals.contains(.cueOut)) && startSegment < last.endSegment {
                throw LiveOriginError.schedule("\(why) starts before break \(i - 1) ends")
            }
            let id = b.eventID ?? UInt32(100 + i)
            let trackerID: String
            switch b.signal {
            case .cueOut: trackerID = "cue-\(startSegment)"
            case .dateRange: trackerID = "daterange-brk-\(id)"
            case .inBand(.spliceInsert): trackerID = "splice-\(id)"
            case .inBand(.timeSignal): trackerID = "segmentation-\(id)"
            }
            out.append(LiveOriginPlacedBreak(scheduled: b, eventID: id, startFrame: start, endFrame: end,
                                             startPTS: media.pts(ofFrame: start), endPTS: media.pts(ofFrame: end),
                                             startSegment: startSegment, endSegment: endSegment, trackerID: trackerID))
        }
        return out
    }

    /// The out cue's section (for `.dateRange` and `.inBand`); `shift`: ticks the origin's
    /// timestamps are moved by there (a `LiveOriginFault`), taken modulo 2^33.
    func outSection(shift: Int64 = 0) -> [UInt8] {
        let d = scheduled.duration.mpegTicks
        let pts = Self.wrapped(startPTS + shift)
        switch command {
        case .spliceInsert: return LiveOriginSCTE35.spliceInsert(eventID: eventID, outOfNetwork: true, pts: pts, breakDuration: d)
        case .timeSignal: return LiveOriginSCTE35.timeSignal(pts: pts, eventID: eventID, typeID: 0x34, duration: d)
        }
    }

    /// The in cue's section.
    func inSection(shift: Int64 = 0) -> [UInt8] {
        let pts = Self.wrapped(endPTS + shift)
        switch command {
        case .spliceInsert: return LiveOriginSCTE35.spliceInsert(eventID: eventID, outOfNetwork: false, pts: pts, breakDuration: nil)
        case .timeSignal: return LiveOriginSCTE35.timeSignal(pts: pts, eventID: eventID, typeID: 0x35, duration: nil)
        }
    }

    static func wrapped(_ t: Int64) -> Int64 { ((t % (1 << 33)) + (1 << 33)) % (1 << 33) }

    var command: LiveOriginBreak.Command {
        for s in scheduled.signals {
            switch s {
            case .cueOut: continue
            case .dateRange(let c), .inBand(let c): return c
            }
        }
        return .spliceInsert
    }
}

/// Why a `LiveOrigin` could not be set up.
public enum LiveOriginError: Error, CustomStringConvertible, Sendable {
    /// The break schedule does not fit the content (one line).
    case schedule(String)
    /// A segment could not be rewritten.
    case segment(String)

    /// One line.
    public var description: String {
        switch self {
        case .schedule(let s): "live origin schedule: \(s)"
        case .segment(let s): "live origin segment: \(s)"
        }
    }
}
