import Foundation
import Media
import Timing

/// The frame loop of a stitching `Player` (`Player(stitching:)`): the player's controls, time
/// observers and ads over a `SpliceSession`, as fast as possible, written to the request's output.
///
/// Content plays in runs from boundary to boundary (the next boundary observer's time, or the
/// end): each run is one `playContent(until:)`, so a smart-rendered stitch still copies the
/// content's packets between cues and re-encodes only the GOPs a cue splits. A boundary holds the
/// first frame at or after its time while the observer block runs (the loop waits for it), exactly
/// as `PlayerEngine` does, so cues are frame-exact on both backends. Periodic and stream-time
/// observers run inside a run, after the frame that reaches them.
///
/// One thread (`run`) drives the session. The app's calls that change the output (`beginBreak`,
/// `endBreak`, overlapping breaks) are queued and applied by that thread before the next frame,
/// so an observer block or an ad-frame callback never waits for the session.
final class SpliceBackend: PlayerBackend, @unchecked Sendable {
    // @unchecked Sendable: fields marked "loop" are touched only by the loop thread (and init,
    // and `close` after the loop has ended); every other mutable field is guarded by `cond`.
    let surface: RenderSurface
    let contentDuration: MediaTime
    weak var item: PlayerItem?
    private let request: StitchRequest
    private let cond = NSCondition()

    // guarded by cond
    private var control = LoopControl()
    private var adRequest: AdPlayRequest?
    private var head: MediaTime?
    private var observers = TimeObserverList()
    private var timeline = TimelineMap()
    private var held: MediaTime?
    private var commands: [(SpliceSession) -> Void] = []
    private var failure: Error?
    private var copying: Bool
    private var handler: (@Sendable (SpliceEvent) -> Void)?
    private var stallLimit: Double?
    private var stallArmedAt = 0.0

    // loop
    private var session: SpliceSession
    private var notice = EndNotice.none
    private var layerCheck = LayerCheck.pending

    /// Whether the layers were checked against copying content (`checkLayers`).
    private enum LayerCheck { case pending, done }

    /// Opens the content and the output (a temporary file until `close()`); throws `StitchFailure`.
    init(request: StitchRequest, layers: [SurfaceLayer]) throws {
        self.request = request
        let stack = LayerStack()
        layers.forEach(stack.add)
        session = try SpliceSession(request: request, layerStack: stack)
        surface = session.surface
        contentDuration = session.contentDuration
        copying = session.copiesContent
        timeline = session.timelineMap
        held = session.nextContentTime
        install()
    }

    /// The session (read its facts after `close()`).
    var spliceSession: SpliceSession { session }

    /// Called on the loop thread for each of the session's events.
    var eventHandler: (@Sendable (SpliceEvent) -> Void)? {
        get { cond.lock(); defer { cond.unlock() }; return handler }
        set { cond.lock(); handler = newValue; cond.unlock() }
    }

    func start() {
        let t = Thread { [self] in run() }
        t.name = "interlude-stitch"
        t.start()
    }

    /// Stops without finishing: the temporary output is removed.
    func shutdown() {
        cond.lock(); control.stop(finish: false); cond.broadcast(); cond.unlock()
    }

    /// Applies what the app asked last, flushes the encoders and moves the output into place;
    /// throws the first failure (the output is then removed).
    func close() throws {
        if let error = stop(finishing: true) { throw error }
    }

    func abandon() { _ = stop(finishing: false) }

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

    var rate: Float { cond.lock(); defer { cond.unlock() }; return control.intent == .playing ? 1 : 0 }
    func setPlaying(_ on: Bool) {
        cond.lock(); control.setPlaying(on); cond.broadcast(); cond.unlock()
    }
    func setRate(_ r: Float) { setPlaying(r > 0) }
    var playhead: MediaTime? { cond.lock(); defer { cond.unlock() }; return head }
    var contentEndedFlag: Bool { cond.lock(); defer { cond.unlock() }; return control.content == .ended }
    var timelineSnapshot: TimelineMap { cond.lock(); defer { cond.unlock() }; return timeline }
    /// A stitch is not paced: there is no master clock.
    var masterClock: AudioMasterClock? { get { nil } set {} }
    func wallTime(of t: MediaTime) -> Double? { nil }
    var copiesContent: Bool { cond.lock(); defer { cond.unlock() }; return copying }

    /// Seconds the loop may wait for the app with no frame to write before the stitch fails
    /// (`StitchFailure.stalled`); counted from when it is set and from each time the loop runs
    /// out of work. nil: no limit.
    var stallTimeout: Double? {
        get { cond.lock(); defer { cond.unlock() }; return stallLimit }
        set { cond.lock(); stallLimit = newValue; stallArmedAt = monotonicSeconds(); cond.broadcast(); cond.unlock() }
    }

    /// A stitch cannot seek (its output is one pass over the content): refused.
    func requestSeek(to target: MediaTime, queue: DispatchQueue, completion: (@Sendable (Bool) -> Void)?) {
        queue.async { completion?(false) }
    }

    func addObserver(_ kind: TimeObserver.Kind, queue: DispatchQueue) -> TimeObserverToken {
        cond.lock(); defer { cond.unlock() }
        return observers.add(kind, queue: queue, head: head)
    }

    func removeObserver(_ id: Int) { cond.lock(); observers.remove(id); cond.unlock() }

    func waitUntilIdle(timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        cond.lock(); defer { cond.unlock() }
        while !control.isIdle || adRequest != nil || !commands.isEmpty {
            if !cond.wait(until: deadline) { return false }
        }
        return true
    }

    func enqueueAd(_ request: AdPlayRequest) {
        cond.lock(); adRequest = request; control.activity = .working; cond.broadcast(); cond.unlock()
    }
    func endAdAfterNextFrame() { cond.lock(); control.endAdAfterNextFrame(); cond.broadcast(); cond.unlock() }
    func stopAd() { cond.lock(); control.stopAd(); cond.broadcast(); cond.unlock() }
    func setAdPaused(_ paused: Bool) {
        cond.lock(); control.freeze = paused ? .frozen : .none; if !paused { control.activity = .working }; cond.broadcast(); cond.unlock()
    }
    var isAdActive: Bool { cond.lock(); defer { cond.unlock() }; return control.ad != .none || adRequest != nil }
    func setDoubleBoxActive(_ on: Bool) {
        cond.lock(); control.setBox(on); cond.broadcast(); cond.unlock()
    }

    func beginBreak(id: String, contentTime: MediaTime) { queue { $0.beginBreak(id: id, contentTime: contentTime) } }
    func endBreak() { queue { $0.endBreak() } }
    func recordOverlappingBreak(_ b: TimelineMap.Break, packaged: PackagedBreak?) {
        queue { s in
            s.recordOverlappingBreak(b)
            if let packaged { s.markOverlappingBreak(packaged) }   // HLS date ranges, MP4 chapters
        }
    }

    func markOverlappingBreak(_ b: PackagedBreak) { queue { $0.markOverlappingBreak(b) } }
    var nextContentTime: MediaTime? { cond.lock(); defer { cond.unlock() }; return held }

    private func queue(_ command: @escaping (SpliceSession) -> Void) {
        cond.lock(); commands.append(command); control.activity = .working; cond.broadcast(); cond.unlock()
    }

    // MARK: the loop

    private enum Work { case quit(finish: Bool), commands([(SpliceSession) -> Void]), ad(AdPlayRequest), content, stalled(Double) }

    private func nextWork() -> Work {
        let idleSince = monotonicSeconds()
        cond.lock(); defer { cond.unlock() }
        while true {
            switch control.nextWork(commandsPending: !commands.isEmpty, adQueued: adRequest != nil) {
            case .commands: let c = commands; commands = []; return .commands(c)
            case .quit(let finish): return .quit(finish: finish)
            case .ad: let r = adRequest!; adRequest = nil; control.startAd(); return .ad(r)
            case .content: control.activity = .working; return .content
            case .seek, .wait: break   // a stitch never seeks
            }
            control.activity = .waiting
            cond.broadcast()
            if let limit = waitForApp(since: idleSince) { return .stalled(limit) }
        }
    }

    /// Waits (with `cond` held) for the app to change something. Returns the stall timeout when
    /// it has run out since `since` (the loop has waited that long with nothing to do), else nil
    /// after the wait; the caller checks its state again.
    private func waitForApp(since: Double) -> Double? {
        guard let limit = stallLimit, failure == nil else { cond.wait(); return nil }
        let left = max(since, stallArmedAt) + limit - monotonicSeconds()
        if left <= 0 { return limit }
        _ = cond.wait(until: Date(timeIntervalSinceNow: left))
        return nil
    }

    /// The loop waited `seconds` for the app with nothing to do: the stitch fails.
    private func stalled(after seconds: Double) {
        fail(StitchFailure.stalled(seconds: seconds, streamTime: session.streamTime))
        postFailed()
    }

    private func run() {
        loop: while true {
            switch nextWork() {
            case .quit(let finish):
                if finish { finishNow() } else { session.abort() }
                break loop
            case .commands(let list):
                for c in list { c(session) }
                snapshot()
            case .ad(let r):
                playAd(r)
            case .content:
                stepContent()
            case .stalled(let seconds):
                stalled(after: seconds)
            }
        }
        cond.lock(); control.run = .exited; control.activity = .waiting; cond.broadcast(); cond.unlock()
    }

    private func finishNow() {
        if failureValue != nil { session.abort(); return }
        do { try session.finish() } catch { fail(error) }
        snapshot()
    }

    private func fail(_ error: Error) {
        cond.lock()
        if failure == nil { failure = error }
        control.content = .ended
        cond.unlock()
    }

    private func snapshot() {
        let t = session.timelineMap, next = session.nextContentTime
        cond.lock(); timeline = t; held = next; cond.unlock()
    }

    /// Before anything is written: when the layers added since the output was opened draw on
    /// content frames and the output copies content packets, it is opened again (nothing written
    /// yet) so that smart rendering is decided knowing them (`auto` re-encodes and says why,
    /// `on` fails).
    private func checkLayers() throws {
        guard layerCheck == .pending else { return }
        layerCheck = .done
        guard session.copiesContent, session.videoFrames == 0, surface.layers.drawsOnContent else { return }
        session.abort()
        session = try SpliceSession(request: request, layerStack: surface.layers, surface: surface)
        install()
        cond.lock(); copying = session.copiesContent; cond.unlock()
    }

    /// Follows each frame written (the session presents it into the player's surface): the
    /// playhead, observers due, and the work layers handed over while drawing.
    private func install() {
        let period = session.format.frameDuration
        session.onEvent = { [unowned self] event in
            let h = eventHandler
            h?(event)
            switch event {
            case .contentProgress(let pts, let at):
                cond.lock()
                head = pts
                let periodic = observers.takePeriodic(at: pts)
                cond.unlock()
                deliver(periodic, wait: true)
                afterFrame(at + period)
            case .adProgress(_, _, _, let at):
                afterFrame(at + period)
            default: break
            }
        }
    }

    private func afterFrame(_ reached: MediaTime) {
        surface.runAfterPresenting()
        cond.lock()
        let due = observers.takeStreamTimes(reached: reached)
        cond.unlock()
        deliver(due, wait: true)
    }

    private func stepContent() {
        do { try checkLayers() } catch { fail(error); postFailed(); return }
        cond.lock()
        let cue = observers.nextBoundary
        cond.unlock()
        do {
            try session.playContent(until: cue)
        } catch {
            fail(error)
        }
        snapshot()
        if failureValue != nil { postFailed(); return }
        if session.contentEnded {
            cond.lock(); control.content = .ended; cond.unlock()
            postEnd()
            return
        }
        guard let held = session.nextContentTime else { return }
        cond.lock()
        let due = observers.takeBoundaries(beforeFrameAt: held)
        cond.unlock()
        deliver(due, wait: true)
    }

    /// Posted from the loop: observers registered with a queue run there and the post waits.
    private func postEnd() {
        let (due, next) = notice.postingEnd()
        guard due else { return }
        notice = next
        if let item { NotificationCenter.default.post(name: PlayerItem.didPlayToEndTimeNotification, object: item) }
    }

    /// The stitch failed (`failure` is set): posted once, instead of the did-play-to-end
    /// notification (or after it, when the stitch stalls while post-rolls play).
    private func postFailed() {
        guard notice.postingFailure().due, let error = failureValue else { return }
        notice = .failed
        if let item {
            NotificationCenter.default.post(name: PlayerItem.failedToPlayToEndTimeNotification, object: item,
                                            userInfo: [PlayerItem.errorKey: error])
        }
    }

    private func playAd(_ r: AdPlayRequest) {
        var stopped = false
        let result: Result<PlacedAd, Error>
        if let error = failureValue {
            result = .failure(error)
        } else {
            do { try checkLayers() } catch { fail(error) }
            result = Result {
                if let error = failureValue { throw error }
                let media = try r.media ?? AdMediaProbe.measure(r.url, threads: request.threads)
                var marks = AdFrameFilter(r.marks)
                return try session.playAd(media, position: r.position, totalAds: r.totalAds) { [self] adTime, at in
                    let pausedSince = monotonicSeconds()
                    var stall: Double?
                    cond.lock()
                    while control.freeze == .frozen && control.run == .running && control.ad != .stopping {
                        control.activity = .waiting
                        cond.broadcast()
                        if let limit = waitForApp(since: pausedSince) { stall = limit; break }
                    }
                    control.activity = .working
                    cond.unlock()
                    if let stall { stalled(after: stall); stopped = true; return false }
                    let goOn = r.deliverFrame(adTime, at: at, marks: &marks)   // waits on marked frames only
                    cond.lock(); let stop = control.takeAdStop() || control.adEndsHere; cond.unlock()
                    if !goOn || stop { stopped = true; return false }
                    return true
                }
            }
        }
        snapshot()
        cond.lock(); control.endAd(); cond.unlock()
        let playback = result.map {
            AdPlayback(streamStart: $0.streamTime, frames: $0.frames, duration: $0.duration, stoppedEarly: stopped,
                       error: nil, placement: $0)
        }
        runAndWait(on: r.queue) { r.completion(playback) }
    }

    private var failureValue: Error? { cond.lock(); defer { cond.unlock() }; return failure }
}
