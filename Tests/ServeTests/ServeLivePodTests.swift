import Testing
@testable import Serve

/// Pod fitting and the clock shift of live breaks: pure, table-tested.
@Suite struct ServeLivePodTests {
    let s: Int64 = 90_000

    @Test func adsFitInOrderAndTheRestIsSlate() {
        // a 30 s break, ads of 15, 10, 10 s: 15 + 10 fit, the third does not
        let pod = LivePod.fit([15 * s, 10 * s, 10 * s], availTicks: 30 * s)
        #expect(pod.slots.map(\.ad) == [0, 1])
        #expect(pod.adTicks == 25 * s)
        #expect(pod.availTicks - pod.adTicks == 5 * s)
    }

    @Test func anAdThatDoesNotFitIsDroppedAndALaterOneTried() {
        let pod = LivePod.fit([20 * s, 15 * s, 10 * s], availTicks: 30 * s)
        #expect(pod.slots.map(\.ad) == [0, 2])
        #expect(pod.adTicks == 30 * s)
    }

    @Test func adsNotInTheStoreAreLeftOut() {
        let pod = LivePod.fit([nil, 10 * s, nil, 0], availTicks: 30 * s)
        #expect(pod.slots.map(\.ad) == [1])
    }

    @Test func nothingFitsAShortBreak() {
        #expect(LivePod.fit([15 * s], availTicks: 10 * s).slots.isEmpty)
        #expect(LivePod.fit([], availTicks: 10 * s).adTicks == 0)
        #expect(LivePod.fit([s], availTicks: -5).availTicks == 0)
    }

    @Test func locateFindsTheSlotOrTheSlate() {
        let pod = LivePod.fit([10 * s, 5 * s], availTicks: 30 * s)
        #expect(pod.locate(0) == (0, 0))
        #expect(pod.locate(10 * s) == (1, 0))
        #expect(pod.locate(12 * s) == (1, 2 * s))
        let slate = pod.locate(16 * s)
        #expect(slate.slot == nil && slate.within == s)
    }

    @Test func shiftIsTheShortestWayRoundThe33BitClock() {
        #expect(LiveViewer.shift(to: 1_000_000, from: 126_000) == 874_000)
        #expect(LiveViewer.shift(to: 126_000, from: 1_000_000) == -874_000)
        // the channel's clock wrapped past 2^33: the shift stays small
        let wrap = LivePTS.wrap
        #expect(LiveViewer.shift(to: wrap + 90_000, from: 126_000) == -36_000)
        #expect(LiveViewer.shift(to: 90_000, from: wrap - 90_000) == 180_000)
    }
}
