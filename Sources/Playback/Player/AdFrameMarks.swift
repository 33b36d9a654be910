import Foundation
import Timing

/// Which frames of an ad its observer must see (`Player.playAd(…marks:…)`): the first, the
/// frames that reach a quartile or a progress offset, and one per reporting period. The frame loop
/// computes this from each frame's exact ad time and waits for the observer's queue on those
/// frames only (what the observer decides on such a frame applies to the next one); every other
/// frame is handed to the queue without waiting (in order, behind what the app queued before it),
/// and the loop goes on. `nil` marks: the loop waits on every frame.
///
/// The conditions are the ones the `AdsManager` applies to the frames it is shown, so it waits
/// on every frame where it fires a quartile, a progress beacon or a progress report.
public struct AdFrameMarks: Sendable, Equatable {
    /// The ad's measured duration: the quartiles are ad times `d/4`, `d/2`, `3d/4`.
    public var duration: MediaTime
    /// Whether the quartile frames are marked.
    public var quartiles: Bool
    /// Ad times whose first frame at or after them is marked (VAST `progress` offsets).
    public var offsets: [MediaTime]
    /// A frame is marked when at least this much ad time has passed since the last frame marked
    /// for the period (the first frame is); nil: no periodic mark.
    public var period: MediaTime?

    /// Marks for an ad of `duration`.
    public init(duration: MediaTime, quartiles: Bool = true, offsets: [MediaTime] = [], period: MediaTime? = nil) {
        self.duration = duration
        self.quartiles = quartiles
        self.offsets = offsets
        self.period = period
    }
}

/// Applies `AdFrameMarks` frame by frame on the loop's thread: `isMarked(_:)` says whether the
/// frame at that ad time must be handed to the observer.
@_spi(Engine) public struct AdFrameFilter: Sendable {
    private let marks: AdFrameMarks?
    private var frames = 0
    private var quartilesPassed = 0
    private var offsetsPassed: Set<Int> = []
    private var lastPeriodMark: MediaTime?

    /// A filter over `marks` (nil: every frame is marked).
    public init(_ marks: AdFrameMarks?) { self.marks = marks }

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
    /// Hands ad frame `adTime` (at stream time `at`) to the observer, as both feeds of the loop do: on a
    /// marked frame the loop waits for its answer on the request's queue; any other frame is
    /// queued there without waiting (in order) and counts as an answer to go on.
    func deliverFrame(_ adTime: MediaTime, at: MediaTime, marks: inout AdFrameFilter) -> Bool {
        let observer = onFrame
        if marks.isMarked(adTime) { return runAndWait(on: queue) { observer(adTime, at) } }
        queue.async { _ = observer(adTime, at) }
        return true
    }
}
