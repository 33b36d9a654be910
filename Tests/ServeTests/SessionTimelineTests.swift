import Foundation
@testable import Serve
import Testing
import Timing

/// One timeline type for VOD and live: laid out once over a finite source, fed and slid over a
/// sliding one.
@Suite struct SessionTimelineTests {
    static func seg(_ path: String, _ seconds: Int64) -> StoredSegment { StoredSegment(path: path, duration: MediaTime(seconds: seconds)) }

    /// A VOD layout: content to the cue, the break's ready ad and the slate filling its missing
    /// one, content after; a new stream at each change of source, nowhere else.
    @Test func aFiniteSourceIsLaidOutOnceInStreamOrder() {
        let runs = [[Self.seg("c/0.ts", 4), Self.seg("c/1.ts", 2)], [Self.seg("c/2.ts", 4)]]
        let t = SessionTimeline.layout(rendition: "360p", runs: runs, cues: [MediaTime(seconds: 6)], contentDuration: MediaTime(seconds: 10),
                                       breaks: [(.midroll(MediaTime(seconds: 6)), [.ready([Self.seg("a/0.ts", 3), Self.seg("a/1.ts", 2)], duration: MediaTime(seconds: 5)),
                                                                               .filled([Self.seg("s/0.ts", 2)])])])
        #expect(t.items.map(\.segment.path) == ["c/0.ts", "c/1.ts", "a/0.ts", "a/1.ts", "s/0.ts", "c/2.ts"])
        #expect(t.items.map(\.start.seconds) == [0, 4, 6, 9, 11, 13])
        #expect(t.items.map(\.discontinuity) == [false, false, true, false, true, true])
        #expect(t.breaks.count == 1 && t.breaks[0].start == MediaTime(seconds: 6) && t.breaks[0].duration == MediaTime(seconds: 7))
        #expect(t.duration == MediaTime(seconds: 17))
    }

    /// A live track: each item the viewer publishes is appended, and the oldest slide out as the
    /// playlist's window does; what stays is in order.
    @Test func aSlidingSourceIsFedAndSlid() {
        var t = SessionTimeline(sliding: "360p")
        #expect(t.last == nil)
        for i in 0..<5 {
            t.append(SessionItem(kind: .content(index: 100 + i), segment: Self.seg("live/ch/360p/\(100 + i).ts", 2), start: MediaTime(seconds: Int64(2 * i))))
            t.slide(keeping: 3)
        }
        #expect(t.items.map(\.segment.path) == ["live/ch/360p/102.ts", "live/ch/360p/103.ts", "live/ch/360p/104.ts"])
        #expect(t.last?.start == MediaTime(seconds: 8))
        t.slide(keeping: 5)   // a window that grows keeps what it has
        #expect(t.items.map(\.segment.path) == ["live/ch/360p/102.ts", "live/ch/360p/103.ts", "live/ch/360p/104.ts"])
    }
}
