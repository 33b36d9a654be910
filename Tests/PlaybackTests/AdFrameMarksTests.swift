import Testing
import Timing
@testable import Playback

/// Issue 19, item 3: the frames a loop waits for the app on, computed from exact frame times.
@Suite struct AdFrameMarksTests {
    /// The ad times of the marked frames of an ad of `frames` frames at `fps`.
    static func marked(_ marks: AdFrameMarks?, frames: Int, fps: Int) -> [Int] {
        var filter = AdFrameFilter(marks)
        return (0..<frames).filter { filter.isMarked(MediaTime(value: Int64($0), timescale: Int64(fps))) }
    }

    @Test func quartilesAreTheFirstFramesAtOrPastThem() {
        // 3 s at 25 fps: quartiles at 0.75 s (frame 18.75 → 19), 1.5 s (37.5 → 38), 2.25 s (56.25 → 57)
        let m = AdFrameMarks(duration: MediaTime(seconds: 3))
        #expect(Self.marked(m, frames: 75, fps: 25) == [0, 19, 38, 57])
    }

    @Test func offsetsAndThePeriodMarkTheirFirstFrames() {
        let m = AdFrameMarks(duration: MediaTime(seconds: 1), quartiles: false,
                             offsets: [MediaTime(value: 1, timescale: 2), MediaTime(value: 1, timescale: 10)],
                             period: MediaTime(value: 1, timescale: 5))
        // 30 fps: period marks at 0, 6 (0.2 s), 12, 18, 24; offsets 0.1 s → 3, 0.5 s → 15
        #expect(Self.marked(m, frames: 30, fps: 30) == [0, 3, 6, 12, 15, 18, 24])
    }

    @Test func noMarksMeansEveryFrame() {
        #expect(Self.marked(nil, frames: 5, fps: 25) == [0, 1, 2, 3, 4])
    }

    @Test func aManagersMarksShowItFarFewerFramesThanItPlays() {
        // the manager's own marks for a 15 s ad at 30 fps: quartiles and a 100 ms period
        let m = AdFrameMarks(duration: MediaTime(seconds: 15), period: MediaTime(value: 1, timescale: 10))
        let shown = Self.marked(m, frames: 450, fps: 30)
        // a period mark every third frame (150), the quartiles at 3.75 s (frame 113) and 11.25 s
        // (338) besides, the midpoint (7.5 s, frame 225) on a period mark
        #expect(shown.count == 152, "\(shown.count) frames shown of 450")
        #expect(shown.contains(113) && shown.contains(338) && shown.contains(225))
    }
}
