import Ads
import Timing

/// An ad's progress as its frames show: which of IMA's and VAST's moments each frame reaches, a
/// pure function of the frames' exact ad times (the `AdsManager` fires the events and beacons,
/// `AdProgressTrackerTests` checks the table without video). The frames it is shown are the ones
/// `AdFrameMarks` marks for the same ad, so it sees every frame where a moment falls.
struct AdProgressTracker: Equatable {
    /// What a frame sets off, in the order the manager fires it.
    enum Moment: Equatable {
        /// The first frame: impressions, `creativeView`, `start`, STARTED.
        case started
        /// Quartile 1, 2 or 3 reached: FIRST_QUARTILE, MIDPOINT, THIRD_QUARTILE and their beacons.
        case quartile(Int)
        /// The VAST `progress` tracking event at this index of the ad's tracking events reached.
        case progressOffset(Int)
        /// A progress report to the delegate (`adDidProgress`): one per period of ad time, and
        /// on the frame the ad becomes skippable (a custom UI's skip button turns on there).
        case report
    }

    /// A VAST `progress` tracking event: its index among the ad's tracking events, and its ad time.
    struct Offset: Equatable {
        var index: Int
        var time: MediaTime
    }

    /// The ad's measured duration (quartiles are ad times d/4, d/2, 3d/4).
    let duration: MediaTime
    /// From this ad time on the ad may be skipped; nil: not skippable.
    let skipOffset: MediaTime?
    /// The `progress` tracking events, with their offsets resolved against `duration`.
    let offsets: [Offset]
    /// Ad time between two progress reports.
    let period: MediaTime

    private var phase = Phase.waiting
    private enum Phase { case waiting, started }
    private var quartilesReached = 0
    private var offsetsReached: Set<Int> = []
    private var lastReport: MediaTime?
    /// Ad time of the last frame shown.
    private(set) var adTime = MediaTime.zero

    init(duration: MediaTime, skipOffset: MediaTime?, offsets: [Offset], period: MediaTime) {
        self.duration = duration
        self.skipOffset = skipOffset
        self.offsets = offsets
        self.period = period
    }

    /// The `progress` offsets of `ad`'s tracking events, resolved against `duration`.
    static func offsets(of ad: ResolvedAd, duration: MediaTime) -> [Offset] {
        ad.trackingEvents.enumerated().compactMap { i, t in
            guard t.event == "progress", let time = t.offset?.resolved(duration: duration) else { return nil }
            return Offset(index: i, time: time)
        }
    }

    /// The frame at `adTime` is shown: what it sets off, in order.
    mutating func frame(at time: MediaTime) -> [Moment] {
        var moments: [Moment] = []
        let becomesSkippable = skipOffset.map { adTime < $0 && $0 <= time } ?? false
        adTime = time
        if phase == .waiting {
            phase = .started
            moments.append(.started)
        }
        while quartilesReached < 3, time * 4 >= duration * Int64(quartilesReached + 1) {
            quartilesReached += 1
            moments.append(.quartile(quartilesReached))
        }
        for o in offsets where !offsetsReached.contains(o.index) && time >= o.time {
            offsetsReached.insert(o.index)
            moments.append(.progressOffset(o.index))
        }
        if lastReport.map({ time - $0 >= period }) ?? true || becomesSkippable {
            lastReport = time
            moments.append(.report)
        }
        return moments
    }
}
