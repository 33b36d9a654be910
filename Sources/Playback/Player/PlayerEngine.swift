import Foundation
import Media
import Timing

/// The player's state and its frame loop: the one loop behind every `Player`. One thread (`run`)
/// owns the decoders, the feeds and the outputs; every other thread only sets requests under
/// `cond` and signals.
///
/// Content reaches the loop through its `Feed`: frames decoded (`DecodedFeed`), or packets copied
/// (`SmartContent`) when a stitch's file takes them; every ad goes through one ad path (`playAd`)
/// from either kind of feed. Both present into the surface, the one place frames are composed and
/// audio is pumped. A stitch (`init(stitching:)`) is this loop on the fast clock with a
/// `StitchFile` behind the surface. What a one-pass file changes is said where it does: content
/// plays in runs from cue to cue, each a segment of its own (a keyframe and a chapter at each cue,
/// packets copied between cues), so a pause takes effect at the next cue; seeks are refused; a
/// failure fails the stitch (a player keeps an output's error and goes on); the app's calls that
/// mark the file are applied by the loop before its next frame; `close()` waits for the loop to
/// finish the file.
final class PlayerEngine: @unchecked Sendable {
    // @unchecked Sendable: the fields marked "loop" are touched only by the loop thread (and by
    // init before it starts); every other mutable field is guarded by `cond`. `file` is driven by
    // the loop thread only, and read by the app once the loop has ended.
    let surface: RenderSurface
    let clock: PlaybackClock
    let contentDuration: MediaTime
    weak var item: PlayerItem?
    let format: OutputFormat
    let threads: Int
    let cond = NSCondition()
    /// The stitch file behind the surface (a stitching player); nil for a player.
    let file: StitchFile?
    /// A player's pass presents content; a stitch's writes it once into `file`.
    let pass: LoopPass
    /// How content opens again for a seek (a player); nil for a stitch, one pass over its content.
    private let seeking: Seeking?

    struct Seeking {
        let path: String
        let timeline: ContentTimeline
        let origin: MediaTime
        /// Content time of the content's first video frame (after 0 with a leading empty edit).
        let firstFrameTime: MediaTime
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
    /// The app's calls that mark a stitch's file or reach its event handler, applied by the loop
    /// before its next frame (a player has neither).
    var commands: [() -> Void] = []
    /// The failure that ended a stitch (its file is then removed).
    var failure: Error?
    /// The first error an output raised while a player presented (the loop goes on;
    /// `Player.close()` throws it).
    var firstOutputError: Error?
    /// The content time of the frame held at a cue.
    var held: MediaTime?
    /// Whether a stitch's file copies content packets (or will, with the layers there now).
    var copying = false
    var handler: (@Sendable (SpliceEvent) -> Void)?
    var stallLimit: Double?
    var stallArmedAt = 0.0
    /// The break begun and not ended yet; breaks ended so far (the next break's index).
    var openBreak: (id: String, start: MediaTime, index: Int)?
    var breaksEnded = 0

    // loop
    var pacer = RealTimePacer()
    var notice = EndNotice.none
    private var content: any Feed
    /// Whether the next content frame goes on the timeline's last segment or starts one (after an
    /// ad, a seek, or at each run of a stitch).
    private var segment = Segment.closed
    private enum Segment { case closed, open }

    /// A player of the content at `path`.
    init(path: String, clock: PlaybackClock, size: (width: Int, height: Int)?, frameRate: Rational?, threads: Int) throws {
        let probe = try Demuxer(url: path)
        guard let v = probe.bestStream(.video) else { throw MediaError.missingStream("\(path) has no video stream") }
        let video = probe.streams[v]
        let audio = probe.bestStream(.audio).map { probe.streams[$0] }
        let timeline = ContentTimeline(probe)
        guard let duration = timeline.end(of: video) ?? probe.duration, duration > .zero else {
            throw MediaError.unsupported("\(path) has no duration")
        }
        format = try OutputFormat.forContent(video: video, audio: audio, size: size, frameRate: frameRate)
        let source = try MediaSource(url: path, output: format, threads: threads, timeline: timeline)
        guard let first = try source.nextFrame() else { throw MediaError.missingStream("\(path) has no video frames") }
        source.pending = first
        seeking = Seeking(path: path, timeline: timeline, origin: source.video.origin ?? .zero, firstFrameTime: first.pts)
        content = DecodedFeed(source: source, output: format)
        contentDuration = duration
        self.clock = clock
        self.threads = threads
        surface = RenderSurface(format: format)
        file = nil
        pass = .presenting
    }

    /// A stitching player: opens the content and reserves the output (a temporary file until
    /// `close()`); throws `StitchFailure`.
    init(stitching request: StitchRequest, layers: [SurfaceLayer]) throws {
        let stack = LayerStack()
        layers.forEach(stack.add)
        let file = try StitchFile(request: request, layerStack: stack)
        surface = file.surface
        format = file.format
        contentDuration = file.contentDuration
        clock = .asFastAsPossible
        threads = request.threads
        content = DecodedFeed(source: file.contentSource, output: format)
        seeking = nil
        copying = file.copiesContent
        self.file = file
        pass = .stitching
    }

    func start() {
        if clock == .realTime { surface.pace = { [unowned self] in pace(until: $0) } }
        let t = Thread { [self] in run() }
        t.name = pass == .presenting ? "interlude-player" : "interlude-stitch"
        t.start()
    }

    /// Stops the loop without finishing (a stitch's temporary output is removed); does not wait.
    func shutdown() {
        cond.lock(); control.stop(finish: false); cond.broadcast(); cond.unlock()
    }

    /// A player: stops the loop and finishes the surface's outputs at once. A stitch: the loop
    /// applies what the app asked last and finishes its file (flushes, moves it into place), and
    /// this waits for it. Throws the first failure.
    func close() throws {
        if pass == .stitching {
            if let error = stop(finishing: true) { throw error }
            return
        }
        shutdown()
        let finishing = Result { try surface.finish() }
        if let e = outputError { throw e }
        try finishing.get()
    }

    /// Stops the loop without finishing the output and waits for it.
    func abandon() {
        if pass == .stitching { _ = stop(finishing: false); return }
        shutdown()
        _ = waitUntilIdle(timeout: 10)
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

    /// A stitch plays at 1 whatever the rate asked (it is not paced).
    var rate: Float {
        cond.lock(); defer { cond.unlock() }
        guard control.intent == .playing else { return 0 }
        return pass == .presenting ? speed : 1
    }

    func setPlaying(_ on: Bool) {
        cond.lock(); control.setPlaying(on); cond.broadcast(); cond.unlock()
    }

    func setRate(_ r: Float) {
        cond.lock()
        if r > 0 { speed = r; control.setPlaying(true) } else { control.setPlaying(false) }
        cond.broadcast(); cond.unlock()
    }

    var playhead: MediaTime? { locked { head } }
    var contentEndedFlag: Bool { locked { control.content == .ended } }
    var timelineSnapshot: TimelineMap { locked { timeline } }
    /// The master clock for real-time pacing; a stitch is not paced and has none.
    var masterClock: AudioMasterClock? {
        get { cond.lock(); defer { cond.unlock() }; return master }
        set {
            guard pass == .presenting else { return }
            cond.lock(); master = newValue; cond.unlock()
        }
    }

    func wallTime(of t: MediaTime) -> Double? {
        cond.lock(); defer { cond.unlock() }
        guard let i = pacerWall.lastIndex(where: { $0.stream <= t }) else { return nil }
        return pacerWall[i].wall + (t - pacerWall[i].stream).seconds
    }

    /// Called on the loop thread for each event (a stitch's `Player.spliceEvents`).
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
            guard pass == .stitching else { return }
            cond.lock(); stallLimit = newValue; stallArmedAt = monotonicSeconds(); cond.broadcast(); cond.unlock()
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
        if !paused && (control.ad != .none || control.box == .on) { control.activity = .working }
        cond.broadcast(); cond.unlock()
    }

    var isAdActive: Bool { locked { control.ad != .none || adRequest != nil } }

    func setDoubleBoxActive(_ on: Bool) {
        cond.lock(); control.setBox(on); cond.broadcast(); cond.unlock()
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
    private func enqueue(_ command: @escaping () -> Void) {
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
    private func locked<T>(_ body: () -> T) -> T { cond.lock(); defer { cond.unlock() }; return body() }

    // MARK: the frame loop

    private enum Work { case quit(finish: Bool), commands([() -> Void]), seek, ad(AdPlayRequest), content, stalled(Double) }

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
                end(finishing: finish)
                break loop
            case .commands(let list):
                for c in list { c() }
            case .seek:
                performSeek()
            case .ad(let r):
                playAd(r)
            case .content:
                stepContent()
            case .stalled(let seconds):
                stall(seconds)
            }
        }
        cond.lock(); control.run = .exited; control.activity = .waiting; cond.broadcast(); cond.unlock()
    }

    /// The loop ends: a stitch's file is finished (unless the stitch failed) or removed; a
    /// player's outputs are finished by `close()`.
    private func end(finishing finish: Bool) {
        guard let file else { return }
        guard finish, failureValue == nil else { file.abort(); return }
        do { try file.finish(timeline: timelineSnapshot) } catch { fail(error) }
    }

    /// A stitch waited `seconds` for the app with nothing to write: it fails.
    private func stall(_ seconds: Double) {
        fail(StitchFailure.stalled(seconds: seconds, streamTime: surface.streamTime))
        postFailed()
    }

    // MARK: content

    /// Content from where it stands: one frame for a player (a pause, a seek or an ad takes effect
    /// at the next frame), or for a stitch a run up to the next cue (`LoopPass`). A frame held at
    /// a cue waits while the boundary observers run; the end of content is checked (a stitch's
    /// file) and posted; an error does what the pass says.
    private func stepContent() {
        let (cue, events) = locked { (observers.nextBoundary, handler) }
        let period = format.frameDuration
        do {
            if let copied = try file?.open() { content = copied }   // a stitch's file opens at its first frame
            let feed = content
            let starts = segment == .closed
            if starts { feed.restart() }
            let outcome = try feed.play(until: cue, on: surface) { pts in
                let at = surface.streamTime - period
                if segment == .closed { segment = .open; events?(.contentResumed(contentTime: pts, streamTime: at)) }
                events?(.contentProgress(contentTime: pts, streamTime: at))
                // the playhead moves there; periodic observers due
                deliver(locked { head = pts; return observers.takePeriodic(at: pts) }, wait: clock == .asFastAsPossible)
                framePresented()
                return pass.runsToCue
            }
            ran(outcome, startingSegment: starts, feed)
            if feed.ended {
                try endContent(cue: cue, readError: feed.readError, events)
            } else if let held = feed.nextContentTime {
                if pass.cueEndsSegment { segment = .closed }
                deliver(locked { observers.takeBoundaries(beforeFrameAt: held) }, wait: true)
                pacer.reanchor()   // the time the app took to answer is not playback time
            }
        } catch {
            switch pass.onContentError(error) {
            case .keep(let e): keep(e)
            case .endContent: try? endContent(cue: cue, readError: nil, events)
            case .fail(let e): fail(e); postFailed()
            }
        }
    }

    /// After a content run: the timeline (a segment begun, or the open one extended), the frame
    /// held, and whether the file copies content.
    private func ran(_ o: SegmentOutcome, startingSegment starts: Bool, _ feed: any Feed) {
        cond.lock(); defer { cond.unlock() }
        if o.frames > 0 {
            if starts || timeline.segments.isEmpty {
                timeline.segments.append(.init(contentStart: o.sourceStart, contentEnd: o.sourceEnd,
                                               streamStart: o.streamStart, streamEnd: o.streamEnd))
            } else {
                timeline.segments[timeline.segments.count - 1].contentEnd = o.sourceEnd
                timeline.segments[timeline.segments.count - 1].streamEnd = o.streamEnd
            }
        }
        held = feed.nextContentTime
        copying = file?.copiesContent ?? false
    }

    /// Content has ended (its last frame shown for its duration in real time): a stitch's file
    /// checks it is complete (or throws), then the end is posted.
    private func endContent(cue: MediaTime?, readError: MediaError?, _ events: (@Sendable (SpliceEvent) -> Void)?) throws {
        waitOutLastFrame()
        try file?.contentEnded(timeline: timelineSnapshot, cue: cue, readError: readError)
        events?(.contentEnded(contentTime: playhead ?? .zero, streamTime: surface.streamTime))
        cond.lock(); control.content = .ended; cond.unlock()
        postEnd()
        pacer.reanchor()
    }

    /// In real time, waits until the last frame presented has been shown for its duration.
    private func waitOutLastFrame() {
        if clock == .realTime { _ = pacer.wait(until: surface.streamTime, master: masterClock) }
    }

    /// The real-time clock (`RenderSurface.pace`): waits until stream time `at` is due; whether
    /// the frame is late by more than a frame.
    private func pace(until at: MediaTime) -> Bool {
        let lateness = pacer.wait(until: at, master: masterClock)
        if let wall = pacer.wallTime(of: at) {
            cond.lock()
            if pacerWall.last.map({ abs(($0.wall + (at - $0.stream).seconds) - wall) > 0.0005 }) ?? true {
                pacerWall.append((at, wall))
            }
            cond.unlock()
        }
        return lateness > format.frameDuration.seconds
    }

    /// After each frame (content or ad) is out: the work layers handed over while drawing (a
    /// double box's ad frames, outside the surface's lock: they may wait for main), then the
    /// stream-time observers it reached, waited for.
    private func framePresented() {
        surface.runAfterPresenting()
        let due = locked { observers.takeStreamTimes(reached: surface.streamTime) }
        guard !due.isEmpty else { return }
        deliver(due, wait: true)
        pacer.reanchor()
    }

    /// A player's output failed while presenting: kept for `close()`.
    private func keep(_ error: Error) {
        cond.lock(); if firstOutputError == nil { firstOutputError = error }; cond.unlock()
    }

    // MARK: seeking

    private func performSeek() {
        cond.lock()
        guard let req = seekRequest, let seeking else { cond.unlock(); return }
        seekRequest = nil
        cond.unlock()
        let target = max(.zero, req.target)
        var ok = true
        do {
            let source = try MediaSource(url: seeking.path, output: format, threads: threads, timeline: seeking.timeline)
            source.video.origin = seeking.origin
            source.audio.origin = seeking.origin
            try source.reader.demuxer.seek(toKeyframeAtOrBefore: seeking.origin + target)
            var found: TimedFrame?
            while let f = try source.nextFrame() {
                if f.pts >= target { found = f; break }
            }
            source.pending = found
            // a seek before the first frame holds it from the target, as at the start
            source.gapStart = found.flatMap { $0.pts == seeking.firstFrameTime && target < $0.pts ? target : nil }
            content = DecodedFeed(source: source, output: format)
            segment = .closed
            cond.lock()
            control.content = found == nil ? .ended : .ahead
            notice = .none
            head = target
            held = nil
            observers.rearm(at: target)
            cond.unlock()
        } catch {
            ok = false
        }
        pacer.reanchor()
        if ok, let item {
            NotificationCenter.default.post(name: PlayerItem.timeJumpedNotification, object: item, userInfo: ["time": target])
        }
        if let c = req.completion { runAndWait(on: req.queue) { c(ok) } }
    }

    // MARK: ads

    /// Plays an ad, on any player: a stitch's file says how it reaches the file (the transcode
    /// cache, loudness, the rounding carried between ads) and places it; `runAd` steps its frames.
    /// The completion then runs on the app's queue and the loop waits for it (the app decides what
    /// follows). Frames already shown when the ad fails stay: a player reports them with the
    /// error, a stitch reports the failure.
    private func playAd(_ r: AdPlayRequest) {
        let start = surface.streamTime
        let (events, index, breakID) = locked { (handler, openBreak?.index ?? breaksEnded, openBreak?.id) }
        var frames: Int64 = 0
        var result: Result<AdPlayback, Error>
        do {
            if let error = failureValue { throw error }   // a failed stitch plays nothing more
            if let file {
                let media = try r.media ?? AdMediaProbe.measure(r.url, threads: threads)
                let (placed, ran) = try file.playAd(media, position: r.position, totalAds: r.totalAds, breakID: breakID) {
                    try runAd($0, r, media: media, breakIndex: index, events, frames: &frames)
                }
                result = .success(AdPlayback(streamStart: placed.streamTime, frames: placed.frames, duration: placed.duration,
                                             stoppedEarly: ran.end == .stopped, error: nil, placement: placed))
            } else {
                let ad = try MediaSource(url: r.url, output: format, threads: threads, policy: .adMedia)
                let ran = try runAd(DecodedFeed(source: ad, output: format, isAd: true), r, media: r.media, breakIndex: index, events,
                                    frames: &frames)
                result = .success(AdPlayback(streamStart: start, frames: ran.outcome.frames, duration: surface.streamTime - start,
                                             stoppedEarly: ran.end == .stopped, error: nil))
            }
            events?(.adEnded(breakIndex: index, position: r.position, duration: surface.streamTime - start, streamTime: surface.streamTime))
        } catch {
            let e = (error as? PresentFailure)?.error ?? error
            if case .keep = pass.onContentError(error) { keep(e) }
            result = pass.reportsFailedAd(afterFrames: frames)
                ? .success(AdPlayback(streamStart: start, frames: frames, duration: surface.streamTime - start, stoppedEarly: false, error: e))
                : .failure(e)
        }
        cond.lock()
        control.endAd()   // no ad, no freeze
        copying = file?.copiesContent ?? false   // the file may have opened for it
        cond.unlock()
        segment = .closed
        runAndWait(on: r.queue) { r.completion(result) }
        pacer.reanchor()
    }

    /// Steps an ad's frames from `feed`, the one place ad frames are stepped: each frame's event,
    /// then the work and observers it reached, then its observer (if `marks` says it sees it);
    /// before each frame the app may hold the picture (`setAdPaused`), stop the ad (`stopAd`,
    /// the observer's false answer, `endAdAfterNextFrame`), or end the loop. An ad that played
    /// out ends when its last frame has been shown for its duration (its `complete` is due then).
    private func runAd(_ feed: any Feed, _ r: AdPlayRequest, media: AdMedia?, breakIndex index: Int,
                       _ events: (@Sendable (SpliceEvent) -> Void)?, frames: inout Int64) throws -> AdRun {
        let start = surface.streamTime, period = format.frameDuration
        if let media {
            events?(.adStarted(breakIndex: index, position: r.position, totalAds: r.totalAds, media: media, streamTime: start))
        }
        pacer.reanchor()   // opening the ad is not playback time: its first frame anchors the clock
        var marks = AdFrameFilter(r.marks)
        var end = adGoesOn() ? AdEnd.playedOut : .stopped
        var outcome = SegmentOutcome(sourceStart: .zero, sourceEnd: .zero, frames: 0, streamStart: start, streamEnd: start)
        if end == .playedOut {
            outcome = try feed.play(until: nil, on: surface) { adTime in
                frames += 1
                let at = surface.streamTime - period
                events?(.adProgress(breakIndex: index, position: r.position, adTime: adTime, streamTime: at))
                framePresented()
                // the observer may wait for the app (marks.waits); a false answer ends the ad here
                guard r.deliverFrame(adTime, at: at, marks: &marks, loop: self), !locked({ control.adEndsHere }), adGoesOn() else {
                    end = .stopped
                    return false
                }
                return true
            }
        }
        if end == .playedOut, outcome.frames > 0 { waitOutLastFrame() }
        return AdRun(outcome: outcome, end: end)
    }

    /// Before an ad frame: waits while the app holds the ad picture; whether the ad goes on (not
    /// stopped, the loop not quitting, a stitch not stalled while held).
    private func adGoesOn() -> Bool {
        if let limit = waitWhileAdFrozen() { stall(limit); return false }
        return !locked { control.takeAdStop() }
    }

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

    // MARK: notices

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

    var failureValue: Error? { locked { failure } }
}

/// How an ad's run ended: it played out, or it was stopped (skipped, discarded, or the loop ended).
enum AdEnd { case playedOut, stopped }

/// What one ad's run put on the stream.
struct AdRun {
    var outcome: SegmentOutcome
    var end: AdEnd
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
