// AdPlaybackState made by the break sequencer from a resolved ad-rules schedule: the same order,
// pod indexes and cue points as the schedule report, for two breaks at one cue too. Pure: no media.
import Ads
import Foundation
import Interlude
import Testing
import Timing

@Suite struct AdPlaybackStateTests {
    /// A pre-roll, two breaks at 3 s (the second without a breakId), one at 5 s and a post-roll,
    /// written out of order, resolved by the loader as an `adsResponse` is.
    static func schedule() async throws -> AdSchedule {
        let xml = AdRulesBuilder.vmap([
            (id: "mid5", position: .time(MediaTime(seconds: 5)), ads: [.media("/m/c.mp4")]),
            (id: "post", position: .end, ads: [.media("/m/d.mp4")]),
            (id: "a", position: .time(MediaTime(value: 3000, timescale: 1000)), ads: [.media("/m/a.mp4"), .media("/m/b.mp4")]),
            (id: "pre", position: .start, ads: [.media("/m/p.mp4")]),
        ])
        // a second break at 3 s, with no breakId: the sequencer names it
        let second = #"""
          <vmap:AdBreak timeOffset="00:00:03.000" breakType="linear">
            <vmap:AdSource allowMultipleAds="true"><vmap:VASTAdData><VAST version="4.1"><Ad id="x"><InLine><AdSystem>s</AdSystem><AdTitle>x</AdTitle><Creatives><Creative><Linear><Duration>00:00:01</Duration><MediaFiles><MediaFile delivery="progressive" type="video/mp4"><![CDATA[file:///m/x.mp4]]></MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST></vmap:VASTAdData></vmap:AdSource>
          </vmap:AdBreak>
        """#
        let doc = xml.replacingOccurrences(of: "</vmap:VMAP>", with: second + "\n</vmap:VMAP>")
        return try await AdTagResolver(options: AdTagOptions(initialTimeout: 2, wrapperTimeout: 1)).load(response: Data(doc.utf8), baseURL: nil)
    }

    @Test func twoBreaksAtOneCueAgreeWithTheSchedule() async throws {
        let schedule = try await Self.schedule()
        let sequence = BreakSequence(schedule.breaks)
        let state = AdPlaybackState(sequence: sequence)
        #expect(state.breaks.map(\.id) == ["pre", "a", "midroll-2", "mid5", "post"])
        #expect(state.breaks.map(\.podIndex) == [0, 1, 1, 2, -1], "one pod index per cue")
        #expect(state.breaks.map(\.podIndex) == schedule.breaks.compactMap(\.podIndex), "as the schedule report says")
        #expect(state.cuePoints == [0, 3, 5, -1])
        #expect(state.cuePoints == schedule.cuePoints)
        #expect(state.breaks.map(\.ads.count) == [1, 2, 1, 1, 1])
        #expect(state.breaks.allSatisfy { $0.state == .scheduled })
        #expect(state.breaks[1].cue == .midroll(MediaTime(seconds: 3)))
    }

    @Test func bothBreaksAtACueAreDueWhenContentReachesIt() async throws {
        let state = AdPlaybackState(sequence: BreakSequence(try await Self.schedule().breaks))
        #expect(state.nextCue(atOrAfter: MediaTime(value: 1, timescale: 1000)) == .zero, "the pre-roll is still scheduled")
        let (after, due) = state.reaching(MediaTime(seconds: 3))
        #expect(due == [1, 2], "both breaks at 3 s, in the order given")
        #expect(after.breaks[0].state == .skipped, "the pre-roll behind them is skipped (IMA's rule after a seek)")
        let played = after.settingBreak(1, to: .played).settingBreak(2, to: .played)
        #expect(played.nextCue(atOrAfter: MediaTime(seconds: 3)) == MediaTime(seconds: 5))
        #expect(played.scheduledPostrolls == [4])
    }
}
