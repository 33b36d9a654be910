import Testing
import Timing

@Suite struct TimelineMapTests {
    // pre-roll 5 s, content 0–20.5, mid-roll 10 s, content 20.5–40, post-roll 3 s
    let map = TimelineMap(
        segments: [
            .init(contentStart: .zero, contentEnd: MediaTime(value: 41, timescale: 2),
                  streamStart: MediaTime(seconds: 5), streamEnd: MediaTime(value: 51, timescale: 2)),
            .init(contentStart: MediaTime(value: 41, timescale: 2), contentEnd: MediaTime(seconds: 40),
                  streamStart: MediaTime(value: 71, timescale: 2), streamEnd: MediaTime(seconds: 55)),
        ],
        breaks: [
            .init(id: "pre", contentTime: .zero, streamStart: .zero, streamEnd: MediaTime(seconds: 5)),
            .init(id: "mid", contentTime: MediaTime(value: 41, timescale: 2),
                  streamStart: MediaTime(value: 51, timescale: 2), streamEnd: MediaTime(value: 71, timescale: 2)),
            .init(id: "post", contentTime: MediaTime(seconds: 40), streamStart: MediaTime(seconds: 55), streamEnd: MediaTime(seconds: 58)),
        ])

    @Test func contentToStream() {
        #expect(map.streamTime(forContentTime: .zero) == MediaTime(seconds: 5))
        #expect(map.streamTime(forContentTime: MediaTime(seconds: 20)) == MediaTime(seconds: 25))
        #expect(map.streamTime(forContentTime: MediaTime(value: 41, timescale: 2)) == MediaTime(value: 71, timescale: 2))
        #expect(map.streamTime(forContentTime: MediaTime(seconds: 30)) == MediaTime(seconds: 45))
    }

    @Test func streamToContentInsideAndBetweenBreaks() {
        #expect(map.contentTime(forStreamTime: MediaTime(seconds: 2)) == .zero)
        #expect(map.contentTime(forStreamTime: MediaTime(seconds: 25)) == MediaTime(seconds: 20))
        #expect(map.contentTime(forStreamTime: MediaTime(seconds: 30)) == MediaTime(value: 41, timescale: 2))
        #expect(map.contentTime(forStreamTime: MediaTime(seconds: 56)) == MediaTime(seconds: 40))
    }

    @Test func roundTripsEveryContentFrame() {
        let frame = MediaTime(value: 1, timescale: 30)
        for i in Int64(0)..<1200 {
            let c = frame * i
            #expect(map.contentTime(forStreamTime: map.streamTime(forContentTime: c)) == c)
        }
    }

    @Test func previousCuePoint() {
        #expect(map.previousCuePoint(forStreamTime: MediaTime(seconds: 4))?.id == "pre")
        #expect(map.previousCuePoint(forStreamTime: MediaTime(seconds: 40))?.id == "mid")
        #expect(map.previousCuePoint(forStreamTime: MediaTime(seconds: 57))?.id == "post")
    }
}
