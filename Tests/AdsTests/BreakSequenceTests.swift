// The one break sequencer as a table: order, pod indexes, names, pod positions and stream times
// for pre/mid/post-rolls, two breaks at one cue and unplaced breaks. Pure: no media, no player.
import Ads
import Testing
import Timing

private func t(_ value: Int64, _ scale: Int64 = 1) -> MediaTime { MediaTime(value: value, timescale: scale) }

@Suite struct BreakSequenceTests {
    /// One row: breaks as given (cue, id, ads) → the slots in play order.
    struct Row: Sendable, CustomTestStringConvertible {
        var label: String
        var given: [(BreakCue?, String?, Int)]
        /// (index given, pod index, name) in play order.
        var order: [(Int, Int, String)]
        var unplaced: [Int] = []
        var cuePoints: [Double]
        var testDescription: String { label }
    }

    static let rows: [Row] = [
        Row(label: "pre, mid, post given out of order",
            given: [(.postroll, nil, 1), (.midroll(t(5)), nil, 2), (.preroll, nil, 1)],
            order: [(2, 0, "preroll"), (1, 1, "midroll-1"), (0, -1, "postroll")], cuePoints: [0, 5, -1]),
        Row(label: "mid-rolls by exact time, not by seconds' rounding",
            given: [(.midroll(t(10_000_001, 1_000_000)), nil, 1), (.midroll(t(10)), nil, 1), (.midroll(t(3001, 1000)), nil, 1)],
            order: [(2, 1, "midroll-1"), (1, 2, "midroll-2"), (0, 3, "midroll-3")], cuePoints: [3.001, 10, 10.000001]),
        Row(label: "mid-rolls Double seconds cannot tell apart are ordered and indexed exactly",
            given: [(.midroll(t(100_000_000_000_000_001, 100_000_000_000_000_000)), nil, 1), (.midroll(t(1)), nil, 1)],
            order: [(1, 1, "midroll-1"), (0, 2, "midroll-2")], cuePoints: [1, 1]),
        Row(label: "two breaks at one cue share its pod index, keep the order given and distinct names",
            given: [(.midroll(t(7, 2)), "a", 1), (.midroll(t(2)), nil, 1), (.midroll(t(3500, 1000)), nil, 2), (.postroll, nil, 1)],
            order: [(1, 1, "midroll-1"), (0, 2, "a"), (2, 2, "midroll-3"), (3, -1, "postroll")], cuePoints: [2, 3.5, -1]),
        Row(label: "several pre- and post-rolls",
            given: [(.preroll, nil, 1), (.postroll, nil, 1), (.preroll, nil, 1), (.postroll, "last", 1)],
            order: [(0, 0, "preroll"), (2, 0, "preroll-2"), (1, -1, "postroll"), (3, -1, "last")], cuePoints: [0, -1]),
        Row(label: "an unplaced break plays nowhere and takes no name or pod index",
            given: [(nil, "pos", 1), (.midroll(t(4)), nil, 1)],
            order: [(1, 1, "midroll-1")], unplaced: [0], cuePoints: [4]),
        Row(label: "nothing", given: [], order: [], cuePoints: []),
    ]

    @Test(arguments: rows) func table(_ row: Row) {
        let s = BreakSequence(cues: row.given.map(\.0), ids: row.given.map(\.1), adCounts: row.given.map(\.2))
        #expect(s.slots.map(\.source) == row.order.map(\.0))
        #expect(s.slots.map(\.podIndex) == row.order.map(\.1))
        #expect(s.slots.map(\.name) == row.order.map(\.2))
        #expect(s.slots.map(\.adCount) == row.order.map { row.given[$0.0].2 })
        #expect(s.unplaced == row.unplaced)
        #expect(s.cuePoints == row.cuePoints)
    }

    @Test func podPositions() {
        let s = BreakSequence(cues: [.midroll(t(2)), .preroll], adCounts: [3, 1])
        let mid = s.slots[1]
        #expect((0..<3).map { mid.podPosition(ofAd: $0).position } == [1, 2, 3])
        #expect((0..<3).map { mid.podPosition(ofAd: $0).total } == [3, 3, 3])
        #expect(s.slots[0].podPosition(ofAd: 0) == (1, 1))
    }

    @Test func streamTimesAfterEarlierBreaks() {
        // pre-roll 2 s; two breaks at 3.5 s (1 s, 3 s); a mid-roll at 6 s (2.5 s); post-roll 2 s; content 8 s
        let s = BreakSequence(cues: [.postroll, .midroll(t(6)), .midroll(t(7, 2)), .preroll, .midroll(t(3500, 1000))])
        let durations = [t(2), t(1), t(3), t(5, 2), t(2)]   // in play order: pre, 3.5, 3.5, 6, post
        let (starts, end) = s.streamTimes(durations: durations, contentDuration: t(8))
        #expect(starts == [t(0), t(11, 2), t(13, 2), t(12), t(33, 2)])   // 3.5+2, 3.5+2+1, 6+2+1+3, 8+2+1+3+2.5
        #expect(end == t(37, 2))
        // content pausing on the first 30 fps frame at or after the cue
        let frame = t(1, 30)
        let (framed, _) = s.streamTimes(durations: durations, contentDuration: t(8)) { cue in
            cue.contentTime.map { frame * $0.count(of: frame, rounding: .up) } ?? t(8)
        }
        #expect(framed[1] == t(2) + t(105, 30))
        let odd = BreakSequence(cues: [.midroll(t(12345, 10000))])
        let (oddStarts, _) = odd.streamTimes(durations: [t(2)], contentDuration: t(8)) { cue in
            cue.contentTime.map { frame * $0.count(of: frame, rounding: .up) } ?? t(8)
        }
        #expect(oddStarts == [t(38, 30)])   // 1.2345 s: frame 37.035 → the 38th
    }

    @Test func cueOfAContentTime() {
        #expect(BreakCue(contentTime: .zero) == .preroll)
        #expect(BreakCue(contentTime: t(1, 2)) == .midroll(t(1, 2)))
        #expect(BreakCue.midroll(t(1, 2)) == .midroll(t(500, 1000)))
        #expect(BreakCue.postroll.contentTime == nil && BreakCue.postroll.seconds == -1)
    }
}
