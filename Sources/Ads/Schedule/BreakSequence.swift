// The one break sequencer: play order, pod indexes, names, pod positions and stream times of a
// set of ad breaks, computed once (rational MediaTime, never Double seconds) for every app.
// Its cue type, `BreakCue`, lives in Timing so that requests (Playback) and schedules (Ads) share it.
import Timing

/// The play order of a set of ad breaks with everything derived from it: IMA pod indexes, names,
/// each ad's pod position and the stream time at which each break starts. Pure and immutable;
/// `Stitcher`, the ad-response path (`CueScheduler`, `AdPlaybackState`), native breaks and the
/// CLI all read their order from it.
///
/// The rules, once:
/// - order: pre-rolls, mid-rolls by content time, post-rolls, then breaks that could not be
///   placed; breaks at one cue keep the order they were given in;
/// - pod index (IMA's `AdPodInfo.podIndex`): 0 for a pre-roll, the 1-based index of its cue
///   among the distinct mid-roll cues for a mid-roll (two breaks at one cue share it, as they share
///   the cue point in `adCuePoints`), -1 for a post-roll;
/// - name, when the break has no id of its own: `preroll`, `preroll-2`…, `midroll-N` (N counts
///   every mid-roll break, so names stay unique when two share a cue), `postroll`, `postroll-2`…
public struct BreakSequence: Sendable, Equatable {
    /// One break in play order.
    public struct Slot: Sendable, Equatable {
        /// Its index in the breaks the sequence was made from.
        public var source: Int
        /// Where it sits.
        public var cue: BreakCue
        /// IMA's pod index.
        public var podIndex: Int
        /// Its id: the one given, else the made-up name.
        public var name: String
        /// How many ads its pod holds.
        public var adCount: Int

        /// IMA's `adPosition` (1-based) and `totalAds` of ad `index` (0-based) of the pod.
        public func podPosition(ofAd index: Int) -> (position: Int, total: Int) { (index + 1, adCount) }
    }

    /// The placed breaks, in play order.
    public let slots: [Slot]
    /// Indexes (in the breaks given) of the breaks without a cue, in the order given; they play nowhere.
    public let unplaced: [Int]

    /// Sequences breaks given by cue (nil: could not be placed), with optional ids (nil or a
    /// missing entry: the made-up name) and pod sizes (a missing entry: 0).
    public init(cues: [BreakCue?], ids: [String?] = [], adCounts: [Int] = []) {
        let placed = cues.indices.filter { cues[$0] != nil }
        let order = placed.sorted { a, b in
            let x = cues[a]!, y = cues[b]!
            return x.playsBefore(y) || (!y.playsBefore(x) && a < b)
        }
        var midCues: [MediaTime] = []
        var counts = [0, 0, 0]
        slots = order.map { i in
            let cue = cues[i]!
            counts[cue.rank] += 1
            let n = counts[cue.rank]
            let podIndex: Int, made: String
            switch cue {
            case .preroll:
                podIndex = 0
                made = n == 1 ? "preroll" : "preroll-\(n)"
            case .midroll(let t):
                if midCues.last != t { midCues.append(t) }   // sorted: a repeated cue is the last one
                podIndex = midCues.count
                made = "midroll-\(n)"
            case .postroll:
                podIndex = -1
                made = n == 1 ? "postroll" : "postroll-\(n)"
            }
            let id = i < ids.count ? ids[i] : nil
            return Slot(source: i, cue: cue, podIndex: podIndex, name: id ?? made, adCount: i < adCounts.count ? adCounts[i] : 0)
        }
        unplaced = cues.indices.filter { cues[$0] == nil }
    }

    /// The distinct cues in play order.
    public var cues: [BreakCue] {
        var seen: [BreakCue] = []
        for s in slots where seen.last != s.cue { seen.append(s.cue) }
        return seen
    }

    /// IMA's cue points (0, mid-roll seconds, -1), one per distinct cue, in play order.
    public var cuePoints: [Double] { cues.map(\.seconds) }

    /// The distinct mid-roll cue times, in order (where boundary observers go).
    public var midrollTimes: [MediaTime] { cues.compactMap { if case .midroll(let t) = $0 { t } else { nil } } }

    /// The slots at `cue`, in play order.
    public func slots(at cue: BreakCue) -> [Slot] { slots.filter { $0.cue == cue } }

    /// The stream time at which each slot's break starts and the stream time at which the output
    /// ends: a break starts where content stands when it pauses (`contentPosition`: by default the
    /// cue itself, `contentDuration` for a post-roll) plus the output durations of every break
    /// before it (`durations`, one per slot in play order).
    public func streamTimes(durations: [MediaTime], contentDuration: MediaTime,
                            contentPosition: ((BreakCue) -> MediaTime)? = nil) -> (starts: [MediaTime], end: MediaTime) {
        precondition(durations.count == slots.count, "one duration per slot")
        var before = MediaTime.zero
        var starts: [MediaTime] = []
        for (s, d) in zip(slots, durations) {
            let position = contentPosition?(s.cue) ?? s.cue.contentTime ?? contentDuration
            starts.append(position + before)
            before += d
        }
        return (starts, contentDuration + before)
    }
}

extension BreakSequence {
    /// The sequence of a schedule's breaks: their cues, ids (a break without one is named) and pods.
    public init(_ breaks: [ScheduledBreak]) {
        self.init(cues: breaks.map(\.cue), ids: breaks.map(\.id), adCounts: breaks.map(\.pod.count))
    }
}
