import Foundation
import Timing

/// The token `addPeriodicTimeObserver` / `addBoundaryTimeObserver` return; pass it to
/// `removeTimeObserver(_:)`.
public final class TimeObserverToken: @unchecked Sendable {
    // @unchecked Sendable: immutable.
    let id: Int
    init(id: Int) { self.id = id }
}

/// A registered time observer and what it has fired.
struct TimeObserver {
    enum Kind {
        /// Every `interval` of content time while content plays.
        case periodic(interval: MediaTime, block: @Sendable (MediaTime) -> Void)
        /// When the first content frame at or after each time is about to be presented.
        case boundary(times: [MediaTime], block: @Sendable () -> Void)
        /// When the stream (content or ad) reaches each time: after the frame that reaches it.
        case stream(times: [MediaTime], block: @Sendable (MediaTime) -> Void)
    }
    let id: Int
    let kind: Kind
    let queue: DispatchQueue
    /// Periodic: the next content time at which it fires. Boundary: indices of times fired.
    var nextPeriodic: MediaTime?
    var fired: Set<Int> = []

    /// Boundary indices due before a frame at `pts` is shown (times in (after, pts]).
    func dueBoundaries(beforeFrameAt pts: MediaTime) -> [Int] {
        guard case .boundary(let times, _) = kind else { return [] }
        return times.indices.filter { !fired.contains($0) && times[$0] <= pts }
    }

    /// Stream-time indices reached once the stream stands at `streamTime`.
    func dueStreamTimes(reached streamTime: MediaTime) -> [Int] {
        guard case .stream(let times, _) = kind else { return [] }
        return times.indices.filter { !fired.contains($0) && times[$0] <= streamTime }
    }

    /// After a jump to `target`: boundaries at or before it count as passed, later ones re-arm.
    mutating func rearm(at target: MediaTime) {
        switch kind {
        case .stream:
            break
        case .boundary(let times, _):
            fired = Set(times.indices.filter { times[$0] <= target })
        case .periodic:
            nextPeriodic = nil
        }
    }
}

/// Runs `body` on `queue` and waits for it: how the frame loop hands a decision to the app
/// (a boundary, an ad frame, the end) without running ahead of it.
func runAndWait<T>(on queue: DispatchQueue, _ body: () -> T) -> T {
    if queue === DispatchQueue.main, Thread.isMainThread { return body() }
    return queue.sync(execute: body)
}
