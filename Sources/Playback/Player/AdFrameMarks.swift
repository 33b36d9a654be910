import Foundation
import Timing

/// Which frames of an ad its observer is shown (`Player.playAd(…marks:…)`): the first, the frames
/// that reach a quartile or an offset (VAST `progress` offsets, the skip offset), and one per
/// reporting period. The frame loop computes this from each frame's exact ad time and hands those
/// frames to the observer's queue without waiting for it (in order, behind what the app queued
/// before them); the other frames are not handed over. `nil` marks: every frame is handed over.
///
/// An observer that must act on the very frame it is shown (a viewer script reacting to an ad
/// event, whose replay must give the same frames) asks for `waits`: the loop then waits for its
/// answer on the marked frames, and a false answer ends the ad after that frame.
///
/// The conditions are the ones the `AdsManager` applies to the frames it is shown, so it sees
/// every frame where it fires a quartile, a progress beacon or a progress report, or where an ad
/// becomes skippable.
package struct AdFrameMarks: Sendable, Equatable {
    /// The ad's measured duration: the quartiles are ad times `d/4`, `d/2`, `3d/4`.
    package var duration: MediaTime
    /// Whether the quartile frames are marked.
    package var quartiles: Bool
    /// Ad times whose first frame at or after them is marked (VAST `progress` offsets).
    package var offsets: [MediaTime]
    /// A frame is marked when at least this much ad time has passed since the last frame marked
    /// for the period (the first frame is); nil: no periodic mark.
    package var period: MediaTime?
    /// Whether the loop waits for the observer's answer on the marked frames (see above).
    package var waits: Bool

    /// Marks for an ad of `duration`.
    package init(duration: MediaTime, quartiles: Bool = true, offsets: [MediaTime] = [], period: MediaTime? = nil,
                waits: Bool = false) {
        self.duration = duration
        self.quartiles = quartiles
        self.offsets = offsets
        self.period = period
        self.waits = waits
    }
}

/// Applies `AdFrameMarks` frame by frame on the loop's thread: `isMarked(_:)` says whether the
/// frame at that ad time must be handed to the observer.
package struct AdFrameFilter: Sendable {
    private let marks: AdFrameMarks?
    private var frames = 0
    private var quartilesPassed = 0
    private var offsetsPassed: Set<Int> = []
    private var lastPeriodMark: MediaTime?

    /// A filter over `marks` (nil: every frame is marked).
    public init(_ marks: AdFrameMarks?) { self.marks = marks }

    /// Whether the loop waits for the observer on a marked frame.
    public var waits: Bool { marks?.waits ?? false }

    /// Whether the next frame, at ad time `adTime`, is marked; call it once per frame, in order.
    public mutating func isMarked(_ adTime: MediaTime) -> Bool {
        frames += 1
        guard let m = marks else { return true }
        var marked = frames == 1
        if m.quartiles {
            while quartilesPassed < 3, adTime * 4 >= m.duration * Int64(quartilesPassed + 1) {
                quartilesPassed += 1
                marked = true
            }
        }
        for (i, offset) in m.offsets.enumerated() where !offsetsPassed.contains(i) && adTime >= offset {
            offsetsPassed.insert(i)
            marked = true
        }
        if let period = m.period, lastPeriodMark.map({ adTime - $0 >= period }) ?? true {
            lastPeriodMark = adTime
            marked = true
        }
        return marked
    }
}

extension AdPlayRequest {
    /// Hands ad frame `adTime` (at stream time `at`) to the observer, as both feeds of the loop
    /// do, if `marks` says it is to be seen: queued on the request's queue and not waited for (the
    /// loop does not wait for the app on a frame), unless the marks ask for `waits`. An answer of
    /// false that is not waited for stops the ad before the loop's next frame after it arrives,
    /// as `stopAd` does (the ad's answers are all in before its completion runs on the same
    /// queue, so none reaches the next ad); one waited for ends the ad after this frame: the
    /// result is false then.
    func deliverFrame(_ adTime: MediaTime, at: MediaTime, marks: inout AdFrameFilter, loop: PlayerEngine) -> Bool {
        guard marks.isMarked(adTime) else { return true }
        let observer = onFrame
        if marks.waits { return runAndWait(on: queue) { observer(adTime, at) } }
        queue.async { [weak loop] in if !observer(adTime, at) { loop?.stopAd() } }
        return true
    }
}
