import Foundation
import Media
import Threads
import Timing

// What any thread asks of the loop: play, pause, rate, seek, observers, ads, breaks, waits; each
// request is set in `shared`, under its lock, and signalled.
extension PlayerEngine {
    // MARK: requests (any thread)

    /// A stitch plays at 1 whatever the rate asked (it is not paced).
    var rate: Float {
        locked { s in
            guard s.control.intent == .playing else { return 0 }
            return pass == .presenting ? s.speed : 1
        }
    }

    func setPlaying(_ on: Bool) {
        signalling { $0.control.setPlaying(on) }
    }

    func setRate(_ r: Float) {
        signalling { s in if r > 0 { s.speed = r; s.control.setPlaying(true) } else { s.control.setPlaying(false) } }
    }

    var playhead: MediaTime? { locked { $0.head } }
    var contentEndedFlag: Bool { locked { $0.control.content == .ended } }
    var timelineSnapshot: TimelineMap { locked { $0.timeline } }
    /// The master clock for real-time pacing; a stitch is not paced and has none.
    var masterClock: AudioMasterClock? {
        get { locked { $0.master } }
        set {
            guard pass == .presenting else { return }
            locked { $0.master = newValue }
        }
    }

    func wallTime(of t: MediaTime) -> Double? {
        locked { s in
            guard let i = s.pacerWall.lastIndex(where: { $0.stream <= t }) else { return nil }
            return s.pacerWall[i].wall + (t - s.pacerWall[i].stream).seconds
        }
    }

    /// Called on the loop thread for each event (a stitch's `Player.spliceEvents`).
    var eventHandler: (@Sendable (SpliceEvent) -> Void)? {
        get { locked { $0.handler } }
        set { locked { $0.handler = newValue } }
    }

    /// Seconds the loop may wait for the app with no frame to write before a stitch fails
    /// (`StitchFailure.stalled`); counted from when it is set and from each time the loop runs
    /// out of work. nil: no limit. A player has none (a viewer may pause as long as they like).
    var stallTimeout: Double? {
        get { locked { $0.stallLimit } }
        set {
            guard pass == .stitching else { return }
            signalling { $0.stallLimit = newValue; $0.stallArmedAt = monotonicSeconds() }
        }
    }

    /// Whether content packets are copied (a smart-rendered stitch): no layer may draw on content.
    var copiesContent: Bool { locked { $0.copying } }

    /// The content time of the next content frame to present (held at a cue).
    var nextContentTime: MediaTime? { locked { $0.held } }

    /// A seek: refused while an ad or a double box plays, and always by a stitch (one pass over
    /// the content).
    func requestSeek(to target: MediaTime, queue: DispatchQueue, completion: (@Sendable (Bool) -> Void)?) {
        let taken = shared.holding { h in
            guard seeking != nil, h.value.control.ad == .none, h.value.adRequest == nil, h.value.control.box != .on else {
                return false
            }
            h.value.seekRequest = (target, queue, completion)
            h.value.control.activity = .working
            h.broadcast()
            return true
        }
        if !taken { queue.async { completion?(false) } }
    }

    func addObserver(_ kind: TimeObserver.Kind, queue: DispatchQueue) -> TimeObserverToken {
        locked { $0.observers.add(kind, queue: queue, head: $0.head) }
    }

    func removeObserver(_ id: Int) {
        locked { $0.observers.remove(id) }
    }

    func enqueueAd(_ request: AdPlayRequest) {
        signalling { $0.adRequest = request; $0.control.activity = .working }
    }

    func endAdAfterNextFrame() {
        signalling { $0.control.endAdAfterNextFrame() }
    }

    func stopAd() {
        signalling { $0.control.stopAd() }
    }

    func setAdPaused(_ paused: Bool) {
        signalling { s in
            s.control.freeze = paused ? .frozen : .none
            if !paused && (s.control.ad != .none || s.control.box == .on) { s.control.activity = .working }
        }
    }

    var isAdActive: Bool { locked { $0.control.ad != .none || $0.adRequest != nil } }

    func setDoubleBoxActive(_ on: Bool) {
        signalling { $0.control.setBox(on) }
    }

    /// Records the break on the timeline at the stream time reached; its event follows before
    /// the next frame.
    func beginBreak(id: String, contentTime: MediaTime) {
        shared.holding { h in
            let at = surface.streamTime, index = h.value.breaksEnded
            h.value.openBreak = (id, at, index)
            h.value.timeline.breaks.append(.init(id: id, contentTime: contentTime, streamStart: at, streamEnd: at))
            enqueue(h) { [unowned self] in eventHandler?(.breakStarted(index: index, id: id, contentTime: contentTime, streamTime: at)) }
        }
    }

    /// Ends the break begun last at the stream time reached; a stitch's file marks it (HLS) before
    /// the next frame.
    func endBreak() {
        shared.holding { h in
            guard let b = h.value.openBreak else { return }
            h.value.openBreak = nil
            h.value.breaksEnded += 1
            let at = surface.streamTime
            if let i = h.value.timeline.breaks.lastIndex(where: { $0.id == b.id && $0.streamStart == b.start && !$0.overlapsContent }) {
                h.value.timeline.breaks[i].streamEnd = at
            }
            enqueue(h) { [unowned self] in
                file?.breakEnded(id: b.id, start: b.start, end: at)
                eventHandler?(.breakEnded(index: b.index, streamTime: at))
            }
        }
    }

    /// Puts a break that overlapped content on the timeline, in stream order; `packaged` marks it
    /// in a stitch's file (HLS date ranges, MP4 chapters).
    func recordOverlappingBreak(_ b: TimelineMap.Break, packaged: PackagedBreak?) {
        shared.holding { h in
            h.value.timeline.breaks.append(b)
            h.value.timeline.breaks.sort { $0.streamStart < $1.streamStart }
            if let packaged { enqueue(h) { [unowned self] in file?.markOverlappingBreak(packaged) } }
        }
    }

    /// Marks a double box's ads in a stitch's file; a player has no file to mark.
    func markOverlappingBreak(_ b: PackagedBreak) {
        shared.holding { h in enqueue(h) { [unowned self] in file?.markOverlappingBreak(b) } }
    }

    /// Runs `body` on a stitch's frame loop before its next frame and returns what it returned:
    /// setup of state the loop owns (a double box's ads) once the loop has started. Runs it here
    /// when there is no loop to run it (a player has no file; a loop that has exited owns nothing).
    func onLoop<T>(_ body: @escaping () throws -> T) throws -> T {
        let outcome = Locked<Result<T, Error>?>(nil)
        let queued = shared.holding { h -> Bool in
            guard file != nil, h.value.control.run != .exited else { return false }
            enqueue(h) { [unowned self] in
                let result = Result { try body() }
                signalling { _ in outcome.withLock { $0 = result } }
            }
            return true
        }
        guard queued else { return try body() }
        shared.holding { h in h.wait(until: { s in outcome.withLock { $0 != nil } || s.control.run == .exited }) }
        guard let result = outcome.withLock({ $0 }) else { return try body() }   // the loop exited before it
        return try result.get()
    }

    /// Queues work the loop applies before its next frame (called holding `shared`'s lock); a
    /// player has no file and no event handler, so nothing to queue.
    func enqueue(_ h: borrowing LockedCondition<Shared>.Held, _ command: @escaping () -> Void) {
        guard file != nil else { return }
        h.value.commands.append(command)
        h.value.control.activity = .working
        h.broadcast()
    }

    func waitUntilIdle(timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        return shared.holding { h in
            h.wait(until: { $0.control.isIdle && $0.adRequest == nil && $0.seekRequest == nil && $0.commands.isEmpty }, before: deadline)
        }
    }

    var outputError: Error? { locked { $0.firstOutputError } }

    /// `body` with `shared`'s lock held.
    func locked<T>(_ body: (inout Shared) -> T) -> T { shared.withLock(body) }

    /// `body` with `shared`'s lock held, then the loop woken: a request it must see before its
    /// next wait.
    func signalling<T>(_ body: (inout Shared) -> T) -> T {
        shared.holding { h in
            defer { h.broadcast() }
            return body(&h.value)
        }
    }
}
