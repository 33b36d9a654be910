// Placing VMAP breaks on the content timeline, the way IMA reports cue points.
import Timing

/// Places breaks: `start` and 0 are pre-rolls, times and resolved percentages are mid-rolls,
/// `end` and 100% are post-rolls; `#n` positions and percentages without a content duration
/// cannot be placed. Pure functions.
public enum CueScheduler {
    /// Where one break lands.
    public struct Placement: Sendable, Hashable {
        /// Where it sits; nil for an unplaced break.
        public var cue: BreakCue?
        /// Why the break could not be placed, when it could not.
        public var unplacedReason: String?
    }

    /// Places one offset given the content duration (needed for percentages).
    public static func place(_ offset: VMAPTimeOffset, contentDuration: MediaTime?) -> Placement {
        switch offset {
        case .start:
            return Placement(cue: .preroll)
        case .end:
            return Placement(cue: .postroll)
        case .time(let t):
            if let d = contentDuration, t >= d, d > .zero { return Placement(cue: .postroll) }
            return Placement(cue: BreakCue(contentTime: t))
        case .percent(let p):
            if p.numerator == 0 { return Placement(cue: .preroll) }
            if p.numerator >= 100 * p.denominator { return Placement(cue: .postroll) }
            guard let d = contentDuration else {
                return Placement(cue: nil,
                                 unplacedReason: "timeOffset \(offset) needs the content duration (--content-duration)")
            }
            return Placement(cue: BreakCue(contentTime: VASTTime.apply(p, to: d)))
        case .position(let m):
            return Placement(cue: nil,
                             unplacedReason: "positional timeOffset #\(m) needs ad opportunities (cue markers); not placed")
        }
    }

    /// Sorts breaks into play order (pre-roll, mid-rolls by time, post-rolls, unplaced) and sets
    /// IMA pod indexes (`BreakSequence`).
    public static func order(_ breaks: [ScheduledBreak]) -> [ScheduledBreak] {
        let sequence = BreakSequence(breaks)
        return sequence.slots.map { s in
            var b = breaks[s.source]
            b.podIndex = s.podIndex
            return b
        } + sequence.unplaced.map { i in
            var b = breaks[i]
            b.podIndex = nil
            return b
        }
    }
}
