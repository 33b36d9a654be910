import Foundation
import Media
import Timing

/// The player's state and its frame loop: the one loop behind every `Player`. One thread (`run`)
/// owns the decoders, the cursors and the output; every other thread only sets requests under
/// `cond` and signals.
///
/// What the loop steps is its `feed`: content decoded frame by frame and presented on the
/// surface, real time or as fast as possible, seekable (`PresentedFeed`, a player); or a stitch's
/// `SpliceSession`, which presents into the same kind of surface in runs from cue to cue, copying
/// content packets where it can (`StitchedFeed`, `Player(stitching:)`). The control state
/// (`LoopControl`), the requests, the time observers, the notifications, the ad handed over and
/// the stall and failure handling are the loop's, once.
final class PlayerEngine: @unchecked Sendable {
    // @unchecked Sendable: the fields marked "loop" (and the feeds' own state) are touched only
    // by the loop thread (and by init before it starts, and a stitch's `close` after the loop has
    // ended); every other mutable field is guarded by `cond`.
    let surface: RenderSurface
    let clock: PlaybackClock
    let contentDuration: MediaTime
    weak var item: PlayerItem?
    let format: OutputFormat
    let threads: Int
    let cond = NSCondition()
    let feed: Feed

    /// What the loop steps.
    enum Feed {
        /// Content decoded and presented frame by frame (a player).
        case presented(PresentedFeed)
        /// A stitch's session, written in runs between cues.
        case stitched(StitchedFeed)
    }

    // guarded by cond
    var speed: Float = 1
    var seekRequest: (target: MediaTime, queue: DispatchQueue, completion: (@Sendable (Bool) -> Void)?)?
    var adRequest: AdPlayRequest?
    var control = LoopControl()   // a frozen double box holds content too
    var head: MediaTime?
    var observers = TimeObserverList()
    var timeline = TimelineMap()
    var master: AudioMasterClock?
    var pacerWall: [(stream: MediaTime, wall: Double)] = []
    /// A stitch: the app's calls that change the output, applied by the loop before the next frame.
    var commands: [(SpliceSession) -> Void] = []
    /// A stitch: the first failure (the output is then removed).
    var failure: Error?
    /// A stitch: the content time of the frame held at a cue.
    var held: MediaTime?
    var handler: (@Sendable (SpliceEvent) -> Void)?
    var stallLimit: Double?
    var stallArmedAt = 0.0
    /// The first error an output raised while presenting (the loop keeps going; `Player.close()`
    /// throws it).
    var firstOutputError: Error?

    // loop
    var pacer = RealTimePacer()
    var notice = EndNotice.none

    /// A player of the content at `path`.
    init(path: String, clock: PlaybackClock, size: (width: Int, height: Int)?, frameRate: Rational?, threads: Int) throws {
        let presented = try PresentedFeed(path: path, size: size, frameRate: frameRate, threads: threads)
        format = presented.format
        contentDuration = presented.duration
        self.clock = clock
        self.threads = threads
        surface = RenderSurface(format: format)
        feed = .presented(presented)
    }

    /// A stitching player: opens the content and the output (a temporary file until `close()`);
    /// throws `StitchFailure`.
    init(stitching request: StitchRequest, layers: [SurfaceLayer]) throws {
        let stitched = try StitchedFeed(request: request, layers: layers)
        let session = stitched.session
        surface = session.surface
        format = session.format
        contentDuration = session.contentDuration
        clock = .asFastAsPossible
        threads = request.threads
        timeline = session.timelineMap
        held = session.nextContentTime
        feed = .stitched(stitched)
        stitched.install(self)
    }

    func start() {
        let t = Thread { [self] in run() }
        switch feed {
        case .presented: t.name = "interlude-player"
        case .stitched: t.name = "interlude-stitch"
        }
        t.start()
    }

    /// Stops the loop without finishing (a stitch's temporary output is removed); does not wait.
    func shutdown() {
        cond.lock(); control.stop(finish: false); cond.broadcast(); cond.unlock()
    }

    /// A player: stops the loop and finishes the surface's outputs. A stitch: applies what the
    /// app asked last, flushes the encoders and moves the output into place, waiting for the
    /// loop. Throws the first failure.
    func close() throws {
        switch feed {
        case .presented:
            shutdown()
            let finishing = Result { try surface.finish() }
            if let e = outputError { throw e }
            try finishing.get()
        case .stitched:
            if let error = stop(finishing: true) { throw error }
        }
    }

    /// Stops the loop without finishing the output and waits for it.
    func abandon() {
        switch feed {
        case .presented:
            shutdown()
            _ = waitUntilIdle(timeout: 10)
        case .stitched:
            _ = stop(finishing: false)
        }
    }

    /// Asks the loop to end (finishing the output, or removing it) and waits for it; the failure
    /// met, if any. Once the loop has ended, later calls change nothing.
    private func stop(finishing finish: Bool) -> Error? {
        cond.lock(); defer { cond.unlock() }
        control.stop(finish: finish)
        cond.broadcast()
        while control.run != .exited { cond.wait() }
        return failure
    }

    // MARK: requests (any thread)

    var rate: Float {
        cond.lock(); defer { cond.unlock() }
        guard control.intent == .playing else { return 0 }
        if case .stitched = feed { return 1 }
        return speed
    }

    func setPlaying(_ on: Bool) {
        cond.lock(); control.setPlaying(on); cond.broadcast(); cond.unlock()
    }

    /// A stitch plays at 1 whatever the rate asked (it is not paced).
    func setRate(_ r: Float) {
        cond.lock()
        if r > 0 { speed = r; control.setPlaying(true) } else { control.setPlaying(false) }
        cond.broadcast(); cond.unlock()
    }

    var playhead: MediaTime? { cond.lock(); defer { cond.unlock() }; return head }
    var contentEndedFlag: Bool { cond.lock(); defer { cond.unlock() }; return control.content == .ended }
    var timelineSnapshot: TimelineMap { cond.lock(); defer { cond.unlock() }; return timeline }
    /// The master clock for real-time pacing; a stitch is not paced and has none.
    var masterClock: AudioMasterClock? {
        get { cond.lock(); defer { cond.unlock() }; return master }
        set {
            guard case .presented = feed else { return }
            cond.lock(); master = newValue; cond.unlock()
        }
    }

    func wallTime(of t: MediaTime) -> Double? {
        cond.lock(); defer { cond.unlock() }
        guard let i = pacerWall.lastIndex(where: { $0.stream <= t }) else { return nil }
        return pacerWall[i].wall + (t - pacerWall[i].stream).seconds
    }

    /// A stitch's session (its facts after `close()`); nil for a player.
    var spliceSession: SpliceSession? {
        if case .stitched(let s) = feed { return s.session }
        return nil
    }

    /// A stitch: called on the loop thread for each of the session's events.
    var eventHandler: (@Sendable (SpliceEvent) -> Void)? {
        get { cond.lock(); defer { cond.unlock() }; return handler }
        set { cond.lock(); handler = newValue; cond.unlock() }
    }

    /// Seconds the loop may wait for the app with no frame to write before a stitch fails
    /// (`StitchFailure.stalled`); counted from when it is set and from each time the loop runs
    /// out of work. nil: no limit. A player has none (a viewer may pause as long as they like).
    var stallTimeout: Double? {
        get { cond.lock(); defer { cond.unlock() }; return stallLimit }
        set {
            guard case .stitched = feed else { return }
            cond.lock(); stallLimit = newValue; stallArmedAt = monotonicSeconds(); cond.broadcast(); cond.unlock()
        }
    }

    /// Whether content packets are copied (a smart-rendered stitch): no layer may draw on content.
    var copiesContent: Bool {
        guard case .stitched(let s) = feed else { return false }
        cond.lock(); defer { cond.unlock() }
        return s.copying
    }

    /// A stitch: the content time of the next content frame to write (held at a cue).
    var nextContentTime: MediaTime? { cond.lock(); defer { cond.unlock() }; return held }

    /// A seek: refused while an ad or a double box plays, and always by a stitch (one pass over
    /// the content).
    func requestSeek(to target: MediaTime, queue: DispatchQueue, completion: (@Sendable (Bool) -> Void)?) {
        cond.lock()
        if case .stitched = feed { cond.unlock(); queue.async { completion?(false) }; return }
        if control.ad != .none || adRequest != nil || control.box == .on {
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
        cond.lock(); observers.remove(id); cond.unlock()
    }

    func enqueueAd(_ request: AdPlayRequest) {
        cond.lock(); adRequest = request; control.activity = .working; cond.broadcast(); cond.unlock()
    }

    func endAdAfterNextFrame() {
        cond.lock(); control.endAdAfterNextFrame(); cond.broadcast(); cond.unlock()
    }

    func stopAd() {
        cond.lock(); control.stopAd(); cond.broadcast(); cond.unlock()
    }

    func setAdPaused(_ paused: Bool) {
        cond.lock()
        control.freeze = paused ? .frozen : .none
        if !paused && (control.ad != .none || control.box == .on || isStitch) { control.activity = .working }
        cond.broadcast(); cond.unlock()
    }

    private var isStitch: Bool { if case .stitched = feed { return true }; return false }

    var isAdActive: Bool { cond.lock(); defer { cond.unlock() }; return control.ad != .none || adRequest != nil }

    func setDoubleBoxActive(_ on: Bool) {
        cond.lock(); control.setBox(on); cond.broadcast(); cond.unlock()
    }

    /// A player records the break on its timeline at once (at the stream time reached); a stitch
    /// hands it to the session before the next frame.
    func beginBreak(id: String, contentTime: MediaTime) {
        if isStitch { return queue { $0.beginBreak(id: id, contentTime: contentTime) } }
        cond.lock(); defer { cond.unlock() }
        let at = surface.streamTime
        timeline.breaks.append(.init(id: id, contentTime: contentTime, streamStart: at, streamEnd: at))
    }

    func endBreak() {
        if isStitch { return queue { $0.endBreak() } }
        cond.lock(); defer { cond.unlock() }
        guard !timeline.breaks.isEmpty else { return }
        timeline.breaks[timeline.breaks.count - 1].streamEnd = surface.streamTime
    }

    func recordOverlappingBreak(_ b: TimelineMap.Break, packaged: PackagedBreak?) {
        if isStitch {
            return queue { s in
                s.recordOverlappingBreak(b)
                if let packaged { s.markOverlappingBreak(packaged) }   // HLS date ranges, MP4 chapters
            }
        }
        cond.lock(); defer { cond.unlock() }
        timeline.breaks.append(b)
        timeline.breaks.sort { $0.streamStart < $1.streamStart }
    }

    /// A stitch: marks a double box's ads in the output; a player has no output markers.
    func markOverlappingBreak(_ b: PackagedBreak) {
        if isStitch { queue { $0.markOverlappingBreak(b) } }
    }

    private func queue(_ command: @escaping (SpliceSession) -> Void) {
        cond.lock(); commands.append(command); control.activity = .working; cond.broadcast(); cond.unlock()
    }

    func waitUntilIdle(timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        cond.lock(); defer { cond.unlock() }
        while !control.isIdle || adRequest != nil || seekRequest != nil || !commands.isEmpty {
            if !cond.wait(until: deadline) { return false }
        }
        return true
    }

    var outputError: Error? { cond.lock(); defer { cond.unlock() }; return firstOutputError }

    // MARK: the frame loop

    private enum Work { case quit(finish: Bool), commands([(SpliceSession) -> Void]), seek, ad(AdPlayRequest), content, stalled(Double) }

    private func nextWork() -> Work {
        let idleSince = monotonicSeconds()
        cond.lock(); defer { cond.unlock() }
        var waited = false
        while true {
            switch control.nextWork(commandsPending: !commands.isEmpty, seekPending: seekRequest != nil, adQueued: adRequest != nil) {
            case .commands:
                let c = commands
                commands = []
                return .commands(c)
            case .quit(let finish):
                return .quit(finish: finish)
            case .ad:
                let r = adRequest!
                adRequest = nil
                control.startAd()
                if waited { pacer.reanchor() }
                return .ad(r)
            case .seek, .content:
                control.activity = .working
                if waited { pacer.reanchor() }
                pacer.rate = Double(speed)
                return seekRequest != nil ? .seek : .content
            case .wait:
                break
            }
            control.activity = .waiting
            cond.broadcast()
            if let limit = waitForApp(since: idleSince) { return .stalled(limit) }
            waited = true
        }
    }

    /// Waits (with `cond` held) for the app to change something. Returns the stall timeout when
    /// it has run out since `since` (the loop has waited that long with nothing to do), else nil
    /// after the wait; the caller checks its state again.
    func waitForApp(since: Double) -> Double? {
        guard let limit = stallLimit, failure == nil else { cond.wait(); return nil }
        let left = max(since, stallArmedAt) + limit - monotonicSeconds()
        if left <= 0 { return limit }
        _ = cond.wait(until: Date(timeIntervalSinceNow: left))
        return nil
    }

    private func run() {
        loop: while true {
            switch nextWork() {
            case .quit(let finish):
                if case .stitched(let s) = feed { s.quit(finishing: finish, self) }
                break loop
            case .commands(let list):
                if case .stitched(let s) = feed { s.apply(list, self) }
            case .seek:
                if case .presented(let p) = feed { p.performSeek(self) }
            case .ad(let r):
                switch feed {
                case .presented(let p): p.playAd(r, self)
                case .stitched(let s): s.playAd(r, self)
                }
            case .content:
                switch feed {
                case .presented(let p): p.stepContent(self)
                case .stitched(let s): s.stepContent(self)
                }
            case .stalled(let seconds):
                if case .stitched(let s) = feed { s.stalled(after: seconds, self) }
            }
        }
        cond.lock(); control.run = .exited; control.activity = .waiting; cond.broadcast(); cond.unlock()
    }

    // MARK: shared by the feeds

    /// Waits while the app holds the ad picture (`setAdPaused`, unless the ad is being stopped or
    /// the loop quits); the stall timeout when it ran out meanwhile (a stitch), else nil.
    func waitWhileAdFrozen() -> Double? {
        let pausedSince = monotonicSeconds()
        cond.lock(); defer { cond.unlock() }
        while control.freeze == .frozen && control.run == .running && control.ad != .stopping {
            control.activity = .waiting
            cond.broadcast()
            if let limit = waitForApp(since: pausedSince) { control.activity = .working; return limit }
            pacer.reanchor()
        }
        control.activity = .working
        return nil
    }

    /// Periodic observers due at content frame `pts` (the playhead moves there).
    func reachContent(_ pts: MediaTime) -> [(TimeObserver, @Sendable () -> Void)] {
        cond.lock(); defer { cond.unlock() }
        head = pts
        return observers.takePeriodic(at: pts)
    }

    /// Stream-time observers due once the stream reaches `t`.
    func reachStream(_ t: MediaTime) -> [(TimeObserver, @Sendable () -> Void)] {
        cond.lock(); defer { cond.unlock() }
        return observers.takeStreamTimes(reached: t)
    }

    /// Boundary observers due before the content frame at `pts`, marked fired.
    func boundaries(beforeFrameAt pts: MediaTime) -> [(TimeObserver, @Sendable () -> Void)] {
        cond.lock(); defer { cond.unlock() }
        return observers.takeBoundaries(beforeFrameAt: pts)
    }

    /// The earliest boundary not fired yet: content holds its first frame at or after it.
    var nextBoundary: MediaTime? {
        cond.lock(); defer { cond.unlock() }
        return observers.nextBoundary
    }

    /// The ad is over: no ad, no freeze.
    func endAd() { cond.lock(); control.endAd(); cond.unlock() }

    /// Whether the ad is to end after the frame just out (`endAdAfterNextFrame`); a stitch also
    /// consumes a stop asked while the frame was written, and ends when the loop quits.
    func adEndsAfterFrame(consumingStop: Bool) -> Bool {
        cond.lock(); defer { cond.unlock() }
        if consumingStop { return control.takeAdStop() || control.adEndsHere }
        return control.adEndsHere
    }

    /// Posts the did-play-to-end notification once. Posted from the loop: observers registered
    /// with a queue (`.main`) run there and the post waits for them, so the loop does not run
    /// ahead of the app's answer.
    func postEnd() {
        cond.lock()
        let (due, next) = notice.postingEnd()
        notice = next
        cond.unlock()
        if due, let item { NotificationCenter.default.post(name: PlayerItem.didPlayToEndTimeNotification, object: item) }
    }

    /// The stitch failed (`failure` is set): posted once, instead of the did-play-to-end
    /// notification (or after it, when the stitch stalls while post-rolls play).
    func postFailed() {
        guard notice.postingFailure().due, let error = failureValue else { return }
        notice = .failed
        if let item {
            NotificationCenter.default.post(name: PlayerItem.failedToPlayToEndTimeNotification, object: item,
                                            userInfo: [PlayerItem.errorKey: error])
        }
    }

    func fail(_ error: Error) {
        cond.lock()
        if failure == nil { failure = error }
        control.content = .ended
        cond.unlock()
    }

    var failureValue: Error? { cond.lock(); defer { cond.unlock() }; return failure }
}

/// An ad handed to the player to play next (see `Player.playAd`).
struct AdPlayRequest: Sendable {
    let url: String
    /// The media as measured (a stitch needs its duration); nil: measured when it plays.
    var media: AdMedia? = nil
    var position = 1
    var totalAds = 1
    let queue: DispatchQueue
    /// The frames `onFrame` must see (the loop waits for it on those); nil: every frame.
    var marks: AdFrameMarks? = nil
    let onFrame: @Sendable (MediaTime, MediaTime) -> Bool
    let completion: @Sendable (Result<AdPlayback, Error>) -> Void
}
