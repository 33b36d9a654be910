// The manager's break order and pod indexes against the one break sequencer, on a clock-only display.
import Ads
import Foundation
import Testing
import Timing
import TestSupport
@testable import Interlude

@MainActor @Suite struct AdsManagerSequencingTests {
    /// A pre-roll, two breaks at 3 s, one at 5 s and a post-roll.
    static let response = Docs.vmap([("start", Docs.ad("a", seconds: 1)), ("00:00:03", Docs.ad("b", seconds: 1)),
                                     ("00:00:03", Docs.ad("c", seconds: 1)), ("00:00:05", Docs.ad("d", seconds: 1)),
                                     ("end", Docs.ad("e", seconds: 1))])

    @Test func breaksPlayInTheSequencersOrderWithItsPodIndexes() async throws {
        let display = FakeDisplay()
        let request = AdsRequest(adsResponse: Self.response, adDisplayContainer: AdDisplayContainer(videoDisplay: display), contentPlayhead: nil)
        let m = try await AdsLoader.steppingOnMain().loadAds(request).adsManager
        let d = RecordingDelegate()
        var started: [(String?, Int)] = []
        d.onEvent = { _, e in if e.type == .started, let ad = e.ad { started.append((ad.adId, ad.adPodInfo.podIndex)) } }
        m.delegate = d
        m.initialize(with: nil)
        let sequence = BreakSequence(m.schedule.breaks)
        #expect(m.state.breaks.map(\.id) == sequence.slots.map(\.name))
        #expect(m.state.breaks.map(\.cue) == sequence.slots.map(\.cue))
        #expect(m.adCuePoints == [0, 3, 5, -1], "one cue point per cue")
        // play content to each cue, then the breaks there, then the post-roll
        var t = MediaTime.zero
        while let cue = m.nextCuePoint(atOrAfter: t), cue < MediaTime(seconds: 8) {
            display.playContent(from: t, to: cue); t = cue
            m.contentDidReachCuePoint(cue)
        }
        display.playContent(from: t, to: MediaTime(seconds: 8))
        m.contentComplete()
        #expect(started.map(\.0) == ["a", "b", "c", "d", "e"])
        // pod indexes from the sequencer: two breaks at one cue share theirs (as the schedule report says)
        #expect(m.state.breaks.map(\.podIndex) == sequence.slots.map(\.podIndex))
        #expect(started.map(\.1) == [0, 1, 1, 2, -1])
    }
}
