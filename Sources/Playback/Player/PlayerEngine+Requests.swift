import Foundation
import Media
import Timing

// What any thread asks of the loop: play, pause, rate, seek, observers, ads, breaks, waits; each
// request is set under the loop's `cond` and signalled.
extension PlayerEngine {
    // MARK: requests (any thread)

    /// A stitch plays at 1 whatever the rate asked (it is not paced).
    var rate: Float {
        cond.lock(); defer { cond.unlock() }
        guard control.intent == .playing else { return 0 }
        return pass == .presenting ? speed : 1
    }

    func setPlaying(_ on: Bool) {
        signalling { control.setPlaying(on) }
    }

    func setRate(_ r: Float) {
        signalling { if r > 0 { speed = r; control.setPlaying(true) } else { control.setPlaying(false) } }
    }

    var playhead: MediaTime? { locked { head } }
    var contentEndedFlag: Bool { locked { control.content == .ended } }
    var timelineSnapshot: TimelineMap { locked { timeline } }
    /// The master clock for real-time pacing; a stitch is not paced and has none.
    var masterClock: AudioMasterClock? {
        get { locked { master } }
        set {
            guard pass == .presenting else { return }
            locked { master = newValue }
        }
    }

    func wallTime(of t: MediaTime) -> Double? {
        cond.lock(); defer { cond.unlock() }
        guard let i = pacerWall.lastIndex(where: { $0.stream <= t }) else { return nil }
        return pacerWall[i].wall + (t - pacerWall[i].stream).seconds
    }

    /// Called on the loop thread for each event (a stitch's `Player.spliceEvents`).
    var eventHandler: (@Sendable (SpliceEvent) -> Void)? {
        get { locked { handler } }
        set { locked { handler = newValue } }
    }

    /// Seconds the loop may wait for the app with no frame to write before a stitch fails
    /// (`StitchFailure.stalled`); counted from when it is set and from each time the loop runs
    /// out of work. nil: no limit. A player has none (a viewer may pause as long as they like).
    var stallTimeout: Double? {
        get { locked { stallLimit } }
        set {
            guard pass == .stitching else { return }
            signalling { stallLimit = newValue; stallArmedAt = monotonicSeconds() }
        }
    }

    /// Whether content packets are copied (a smart-rendered stitch): no layer may draw on content.
    var copiesContent: Bool { locked { copying } }

    /// The content time of the next content frame to present (held at a cue).
    var nextContentTime: MediaTime? { locked { held } }

    /// A seek: refused while an ad or a double box plays, and always by a stitch (one pass over
    /// the content).
    func requestSeek(to target: MediaTime, queue: DispatchQueue, completion: (@Sendable (Bool) -> Void)?) {
        cond.lock()
        guard seeking != nil, control.ad == .none, adRequest == nil, control.box != .on else {
            cond.unlock()
            queue.async { completion?(false) }
            return
        }
        seekRequest = (target, queue, completion)
        control.activity = .working
        cond.broadcast(); cond.unlock()
    }

    func addObserver(_ kind: TimeObserver.Kind, queue: DispatchQueue) -> TimeObserverToken {
        cond.lock(); defer { cond.unlock() }
        return observers.add(kind, queue: queue, head: head)
    }

    func removeObserver(_ id: Int) {
        locked { observers.remove(id) }
    }

    func enqueueAd(_ request: AdPlayRequest) {
        signalling { adRequest = request; control.activity = .working }
    }

    func endAdAfterNextFrame() {
        signalling { control.endAdAfterNextFrame() }
    }

    func stopAd() {
        signalling { control.stopAd() }
    }

    func setAdPaused(_ paused: Bool) {
        signalling {
            control.freeze = paused ? .frozen : .none
            if !paused && (control.ad != .none || control.box == .on) { control.activity = .working }
        }
    }

    var isAdActive: Bool { locked { control.ad != .none || adRequest != nil } }

    func setDoubleBoxActive(_ on: Bool) {
        signalling { control.setBox(on) }
    }

    /// Records the break on the timeline at the stream time reached; its event follows before
    /// the next frame.
    func beginBreak(id: String, contentTime: MediaTime) {
        cond.lock(); defer { cond.unlock() }
        let at = surface.streamTime, index = breaksEnded
        openBreak = (id, at, index)
        timeline.breaks.append(.init(id: id, contentTime: contentTime, streamStart: at, streamEnd: at))
        enqueue { [unowned self] in eventHandler?(.breakStarted(index: index, id: id, contentTime: contentTime, streamTime: at)) }
    }

    /// Ends the break begun last at the stream time reached; a stitch's file marks it (HLS) before
    /// the next frame.
    func endBreak() {
        cond.lock(); defer { cond.unlock() }
        guard let b = openBreak else { return }
        openBreak = nil
        breaksEnded += 1
        let at = surface.streamTime
        if let i = timeline.breaks.lastIndex(where: { $0.id == b.id && $0.streamStart == b.start && !$0.overlapsContent }) {
            timeline.breaks[i].streamEnd = at
        }
        enqueue { [unowned self] in
            file?.breakEnded(id: b.id, start: b.start, end: at)
            eventHandler?(.breakEnded(index: b.index, streamTime: at))
        }
    }

    /// Puts a break that overlapped content on the timeline, in stream order; `packaged` marks it
    /// in a stitch's file (HLS date ranges, MP4 chapters).
    func recordOverlappingBreak(_ b: TimelineMap.Break, packaged: PackagedBreak?) {
        cond.lock(); defer { cond.unlock() }
        timeline.breaks.append(b)
        timeline.breaks.sort { $0.streamStart < $1.streamStart }
        if let packaged { enqueue { [unowned self] in file?.markOverlappingBreak(packaged) } }
    }

    /// Marks a double box's ads in a stitch's file; a player has no file to mark.
    func markOverlappingBreak(_ b: PackagedBreak) {
        cond.lock(); defer { cond.unlock() }
        enqueue { [unowned self] in file?.markOverlappingBreak(b) }
    }

    /// Queues work the loop applies before its next frame (with `cond` held); a player has no file
    /// and no event handler, so nothing to queue.
    func enqueue(_ command: @escaping () -> Void) {
        guard file != nil else { return }
        commands.append(command)
        control.activity = .working
        cond.broadcast()
    }

    func waitUntilIdle(timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        cond.lock(); defer { cond.unlock() }
        while !control.isIdle || adRequest != nil || seekRequest != nil || !commands.isEmpty {
            if !cond.wait(until: deadline) { return false }
        }
        return true
    }

    var outputError: Error? { locked { firstOutputError } }

    /// `body` with `cond` held.
    func locked<T>(_ body: () -> T) -> T { cond.lock(); defer { cond.unlock() }; return body() }

    /// `body` with `cond` held, then the loop woken: a request it must see before its next wait.
    func signalling<T>(_ body: () -> T) -> T { cond.lock(); defer { cond.broadcast(); cond.unlock() }; return body() }
}
