import Testing
import Timing
@testable import Interlude

/// What each ad frame sets off (`AdProgressTracker`), from exact ad times, without video: the
/// table the `AdsManager` fires its events and beacons from.
@Suite struct AdProgressTrackerTests {
    static let frame = MediaTime(value: 1, timescale: 30)

    /// A 1 s ad at 30 fps, skippable from 0.5 s, a VAST `progress` event at 0.25 s (tracking index
    /// 3), reports every 100 ms: every frame shown.
    @Test func everyFrameOfAOneSecondAd() {
        var t = AdProgressTracker(duration: MediaTime(seconds: 1), skipOffset: MediaTime(value: 1, timescale: 2),
                                  offsets: [.init(index: 3, time: MediaTime(value: 1, timescale: 4))], period: MediaTime(value: 1, timescale: 10))
        var seen: [Int: [AdProgressTracker.Moment]] = [:]
        for k in 0..<30 {
            let moments = t.frame(at: Self.frame * Int64(k))
            if !moments.isEmpty { seen[k] = moments }
            #expect(t.adTime == Self.frame * Int64(k))
        }
        #expect(seen == [
            0: [.started, .report],
            3: [.report],                              // 0.1 s
            6: [.report],
            8: [.quartile(1), .progressOffset(3)],     // 8/30 ≥ 0.25 s: the first quartile and the offset
            9: [.report],
            12: [.report],
            15: [.quartile(2), .report],               // 0.5 s: the midpoint, and skippable from here
            18: [.report],
            21: [.report],
            23: [.quartile(3)],                        // 23/30 ≥ 0.75 s
            24: [.report],
            27: [.report],
        ], "\(seen.sorted { $0.key < $1.key })")
    }

    /// Only the frames `AdFrameMarks` hands over (the manager never waits for the others): the
    /// moments land on the first frame shown at or after them, each once; the frame the ad becomes
    /// skippable is reported even off the period.
    @Test func onlyTheMarkedFramesEachMomentOnce() {
        var t = AdProgressTracker(duration: MediaTime(seconds: 2), skipOffset: MediaTime(value: 13, timescale: 10), offsets: [],
                                  period: MediaTime(value: 1, timescale: 2))
        let shown: [(MediaTime, [AdProgressTracker.Moment])] = [
            (.zero, [.started, .report]),
            (MediaTime(value: 1, timescale: 2), [.quartile(1), .report]),             // 0.5 s: d/4 and a period
            (MediaTime(value: 11, timescale: 10), [.quartile(2), .report]),           // 1.1 s: d/2 passed, 0.6 s since the report
            (MediaTime(value: 13, timescale: 10), [.report]),                         // 1.3 s: skippable, 0.2 s after the last report
            (MediaTime(value: 16, timescale: 10), [.quartile(3)]),                    // 1.6 s ≥ 3d/4; 0.3 s since the report
            (MediaTime(value: 19, timescale: 10), [.report]),
        ]
        for (time, expected) in shown {
            #expect(t.frame(at: time) == expected, "at \(time.seconds) s")
        }
    }

    /// An ad without a skip offset is never reported for skipping; an ad shorter than a period is
    /// reported on its first frame only; every quartile reached by one late frame fires, in order.
    @Test func edges() {
        var short = AdProgressTracker(duration: MediaTime(value: 1, timescale: 20), skipOffset: nil, offsets: [],
                                      period: MediaTime(value: 1, timescale: 10))
        #expect(short.frame(at: .zero) == [.started, .report])
        #expect(short.frame(at: MediaTime(value: 1, timescale: 30)) == [.quartile(1), .quartile(2)])
        var late = AdProgressTracker(duration: MediaTime(seconds: 4), skipOffset: nil,
                                     offsets: [.init(index: 0, time: MediaTime(seconds: 1)), .init(index: 5, time: MediaTime(seconds: 3))],
                                     period: MediaTime(seconds: 10))
        #expect(late.frame(at: .zero) == [.started, .report])
        #expect(late.frame(at: MediaTime(seconds: 3)) == [.quartile(1), .quartile(2), .quartile(3), .progressOffset(0), .progressOffset(5)])
        #expect(late.frame(at: MediaTime(value: 39, timescale: 10)) == [])
    }
}
