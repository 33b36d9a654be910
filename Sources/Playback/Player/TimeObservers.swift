import Foundation
import Timing

/// The token `addPeriodicTimeObserver` / `addBoundaryTimeObserver` return; pass it to
/// `removeTimeObserver(_:)`.
public final class TimeObserverToken: Sendable {
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
/// (a boundary, an ad frame, the end) without running ahead of it; a double box's layer hands the
/// manager its frames the same way.
package func runAndWait<T>(on queue: DispatchQueue, _ body: () -> T) -> T {
    if queue === DispatchQueue.main, Thread.isMainThread { return body() }
    return queue.sync(execute: body)
}

/// A player's registered time observers: what the loop (`PlayerEngine`, either feed) asks of
/// them — which are due, and marking them fired. Not thread-safe: the loop's lock guards it. The
/// blocks are run by the caller outside that lock (`deliver`).
struct TimeObserverList {
    private var observers: [TimeObserver] = []
    private var nextID = 0

    /// Adds an observer; times at or before `head` (the playhead) count as passed.
    mutating func add(_ kind: TimeObserver.Kind, queue: DispatchQueue, head: MediaTime?) -> TimeObserverToken {
        nextID += 1
        var o = TimeObserver(id: nextID, kind: kind, queue: queue)
        if let head { o.rearm(at: head) }
        observers.append(o)
        return TimeObserverToken(id: nextID)
    }

    mutating func remove(_ id: Int) { observers.removeAll { $0.id == id } }

    /// After a jump to `target`.
    mutating func rearm(at target: MediaTime) { for i in observers.indices { observers[i].rearm(at: target) } }

    /// The earliest boundary time not fired yet.
    var nextBoundary: MediaTime? {
        observers.compactMap { o -> MediaTime? in
            guard case .boundary(let times, _) = o.kind else { return nil }
            return times.indices.filter { !o.fired.contains($0) }.map { times[$0] }.min()
        }.min()
    }

    /// Boundary blocks due before the frame at `pts`, marked fired.
    mutating func takeBoundaries(beforeFrameAt pts: MediaTime) -> [(TimeObserver, @Sendable () -> Void)] {
        var due: [(TimeObserver, @Sendable () -> Void)] = []
        for i in observers.indices {
            let idx = observers[i].dueBoundaries(beforeFrameAt: pts)
            guard !idx.isEmpty, case .boundary(_, let block) = observers[i].kind else { continue }
            observers[i].fired.formUnion(idx)
            due.append((observers[i], block))
        }
        return due
    }

    /// Stream-time blocks due once the stream stands at `t`, marked fired (one call per time).
    mutating func takeStreamTimes(reached t: MediaTime) -> [(TimeObserver, @Sendable () -> Void)] {
        var due: [(TimeObserver, @Sendable () -> Void)] = []
        for i in observers.indices {
            let idx = observers[i].dueStreamTimes(reached: t)
            guard !idx.isEmpty, case .stream(let times, let block) = observers[i].kind else { continue }
            observers[i].fired.formUnion(idx)
            for k in idx { let time = times[k]; due.append((observers[i], { block(time) })) }
        }
        return due
    }

    /// Periodic blocks due at content time `t`, each re-armed for the next multiple of its interval.
    mutating func takePeriodic(at t: MediaTime) -> [(TimeObserver, @Sendable () -> Void)] {
        var due: [(TimeObserver, @Sendable () -> Void)] = []
        for i in observers.indices {
            guard case .periodic(let interval, let block) = observers[i].kind, interval > .zero else { continue }
            if let next = observers[i].nextPeriodic, t < next { continue }
            let n = (t.seconds / interval.seconds).rounded(.down) + 1   // next multiple of the interval after t
            observers[i].nextPeriodic = interval * Int64(n)
            due.append((observers[i], { block(t) }))
        }
        return due
    }
}

/// Runs due observer blocks on their queues; `wait`: the loop waits for each (boundaries, stream
/// times, and every block as fast as possible).
func deliver(_ due: [(TimeObserver, @Sendable () -> Void)], wait: Bool) {
    for (o, body) in due {
        if wait { runAndWait(on: o.queue, body) } else { o.queue.async(execute: body) }
    }
}
