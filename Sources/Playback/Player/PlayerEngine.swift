import Foundation
import Media
import Timing

/// The player's state and its frame loop. One thread (`run`) owns the decoders, the cursors and
/// the presenting; every other thread only sets requests under `cond` and signals.
final class PlayerEngine: PlayerBackend, @unchecked Sendable {
    // @unchecked Sendable: the fields marked "loop" are touched only by the loop thread (and by
    // init before it starts); every other mutable field is guarded by `cond`.
    let surface: RenderSurface
    let clock: PlaybackClock
    let contentDuration: MediaTime
    let contentPath: String
    weak var item: PlayerItem?
    private let format: OutputFormat
    private let threads: Int
    private let cond = NSCondition()

    // guarded by cond
    private var speed: Float = 1
    private var seekRequest: (target: MediaTime, queue: DispatchQueue, completion: (@Sendable (Bool) -> Void)?)?
    private var adRequest: AdPlayRequest?
    private var control = LoopControl()   // a frozen double box holds content too
    private var head: MediaTime?
    private var observers = TimeObserverList()
    private var timeline = TimelineMap()
    private var master: AudioMasterClock?
    private var pacerWall: [(stream: MediaTime, wall: Double)] = []

    // loop
    private var content: SegmentCursor
    private var contentOrigin: MediaTime
    private let contentTimeline: ContentTimeline
    /// Content time of the content's first video frame (after 0 with a leading empty edit).
    private let firstFrameTime: MediaTime
    private var pacer = RealTimePacer()
    private var cursor = CursorState.inPlace
    private var segment = SegmentState.closed
    private var notice = EndNotice.none

    /// Whether the content cursor goes on where it is or starts again (after an ad).
    private enum CursorState { case inPlace, restart }
    /// Whether the timeline's last content segment is still being extended.
    private enum SegmentState { case closed, open }

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
        contentDuration = duration
        contentPath = path
        self.clock = clock
        self.threads = threads
        surface = RenderSurface(format: format)
        contentTimeline = timeline
        let source = try MediaSource(url: path, output: format, threads: threads, timeline: timeline)
        guard let first = try source.nextFrame() else { throw MediaError.missingStream("\(path) has no video frames") }
        source.pending = first
        contentOrigin = source.video.origin ?? .zero
        firstFrameTime = first.pts
        content = SegmentCursor(source: source, output: format)
    }

    func start() {
        let t = Thread { [self] in run() }
        t.name = "interlude-player"
        t.start()
    }

    func shutdown() {
        cond.lock(); control.stop(finish: false); cond.broadcast(); cond.unlock()
    }

    func close() throws {
        shutdown()
        let finishing = Result { try surface.finish() }
        if let e = outputError { throw e }
        try finishing.get()
    }

    func abandon() {
        shutdown()
        _ = waitUntilIdle(timeout: 10)
    }

    /// A player presents frames: it has no output markers.
    func markOverlappingBreak(_ b: PackagedBreak) {}
    var nextContentTime: MediaTime? { nil }

    /// A player decodes every content frame.
    var copiesContent: Bool { false }

    // MARK: requests (any thread)

    var rate: Float { cond.lock(); defer { cond.unlock() }; return control.intent == .playing ? speed : 0 }

    func setPlaying(_ on: Bool) {
        cond.lock(); control.setPlaying(on); cond.broadcast(); cond.unlock()
    }

    func setRate(_ r: Float) {
        cond.lock()
        if r > 0 { speed = r; control.setPlaying(true) } else { control.setPlaying(false) }
        cond.broadcast(); cond.unlock()
    }

    var playhead: MediaTime? { cond.lock(); defer { cond.unlock() }; return head }
    var contentEndedFlag: Bool { cond.lock(); defer { cond.unlock() }; return control.content == .ended }
    var timelineSnapshot: TimelineMap { cond.lock(); defer { cond.unlock() }; return timeline }
    var masterClock: AudioMasterClock? {
        get { cond.lock(); defer { cond.unlock() }; return master }
        set { cond.lock(); master = newValue; cond.unlock() }
    }

    func wallTime(of t: MediaTime) -> Double? {
        cond.lock(); defer { cond.unlock() }
        guard let i = pacerWall.lastIndex(where: { $0.stream <= t }) else { return nil }
        return pacerWall[i].wall + (t - pacerWall[i].stream).seconds
    }

    func requestSeek(to target: MediaTime, queue: DispatchQueue, completion: (@Sendable (Bool) -> Void)?) {
        cond.lock()
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
        if !paused && (control.ad != .none || control.box == .on) { control.activity = .working }
        cond.broadcast(); cond.unlock()
    }

    var isAdActive: Bool { cond.lock(); defer { cond.unlock() }; return control.ad != .none || adRequest != nil }

    func beginBreak(id: String, contentTime: MediaTime) {
        cond.lock(); defer { cond.unlock() }
        let at = surface.streamTime
        timeline.breaks.append(.init(id: id, contentTime: contentTime, streamStart: at, streamEnd: at))
    }

    func setDoubleBoxActive(_ on: Bool) {
        cond.lock(); control.setBox(on); cond.broadcast(); cond.unlock()
    }

    func recordOverlappingBreak(_ b: TimelineMap.Break, packaged: PackagedBreak?) {
        cond.lock(); defer { cond.unlock() }
        timeline.breaks.append(b)
        timeline.breaks.sort { $0.streamStart < $1.streamStart }
    }

    func endBreak() {
        cond.lock(); defer { cond.unlock() }
        guard !timeline.breaks.isEmpty else { return }
        timeline.breaks[timeline.breaks.count - 1].streamEnd = surface.streamTime
    }

    func waitUntilIdle(timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        cond.lock(); defer { cond.unlock() }
        while control.activity != .waiting || adRequest != nil || seekRequest != nil {
            if !cond.wait(until: deadline) { return false }
        }
        return true
    }

    // MARK: the frame loop

    private enum Work { case quit, seek, ad(AdPlayRequest), content }

    private func nextWork() -> Work {
        cond.lock(); defer { cond.unlock() }
        var waited = false
        wait: while true {
            switch control.nextWork(seekPending: seekRequest != nil, adQueued: adRequest != nil) {
            case .quit: return .quit
            case .seek, .content: break wait
            case .ad:
                let r = adRequest!
                adRequest = nil
                control.startAd()
                if waited { pacer.reanchor() }
                return .ad(r)
            case .commands, .wait: break   // a player has no output commands
            }
            control.activity = .waiting
            cond.broadcast()
            cond.wait()
            waited = true
        }
        control.activity = .working
        if waited { pacer.reanchor() }
        pacer.rate = Double(speed)
        return seekRequest != nil ? .seek : .content
    }

    private func run() {
        while true {
            switch nextWork() {
            case .quit:
                cond.lock(); control.activity = .waiting; cond.broadcast(); cond.unlock()
                return
            case .seek:
                performSeek()
            case .ad(let r):
                playAd(r)
            case .content:
                stepContent()
            }
        }
    }

    private func stepContent() {
        if cursor == .restart { content.restart(); cursor = .inPlace; segment = .closed }
        let step: SegmentCursor.Step
        do {
            step = try content.step(streamSamples: surface.presentedSamples, sampleIndex: format.sampleIndex(at:),
                                    cue: nextBoundary)
        } catch {
            step = .end
        }
        switch step {
        case .held(let pts):
            fireBoundaries(pts)
            pacer.reanchor()   // the time the app took to answer is not playback time
        case .frame(let f, let first):
            present(f.frame, sourceTime: f.pts, keyframe: first || segment == .closed, isAd: false, audio: content.source.audio, offset: content.audioOffset)
            let streamEnd = surface.streamTime
            cond.lock()
            head = f.pts
            if segment == .closed || first {
                timeline.segments.append(.init(contentStart: f.pts, contentEnd: content.segmentEnd,
                                               streamStart: streamEnd - format.frameDuration, streamEnd: streamEnd))
            } else if !timeline.segments.isEmpty {
                timeline.segments[timeline.segments.count - 1].contentEnd = content.segmentEnd
                timeline.segments[timeline.segments.count - 1].streamEnd = streamEnd
            }
            let periodic = observers.takePeriodic(at: f.pts)
            cond.unlock()
            segment = .open
            deliver(periodic, wait: clock == .asFastAsPossible)
        case .end:
            waitOutLastFrame()   // content ends when its last frame has been shown for its duration
            cond.lock()
            control.content = .ended
            if !timeline.segments.isEmpty { timeline.segments[timeline.segments.count - 1].contentEnd = content.segmentEnd }
            let (post, next) = notice.postingEnd()
            notice = next
            cond.unlock()
            // Posted from the frame loop: observers registered with a queue (`.main`) run there and
            // the post waits for them, so the loop does not run ahead of the app's answer.
            if post, let item { NotificationCenter.default.post(name: PlayerItem.didPlayToEndTimeNotification, object: item) }
            pacer.reanchor()
        }
    }

    /// In real time, waits until the last frame presented has been shown for its duration.
    private func waitOutLastFrame() {
        if clock == .realTime { _ = pacer.wait(until: surface.streamTime, master: masterClock) }
    }

    private func present(_ frame: Frame, sourceTime: MediaTime?, keyframe: Bool, isAd: Bool, audio: AudioTrack, offset: Int64) {
        let at = surface.streamTime
        var late = false
        if clock == .realTime {
            let lateness = pacer.wait(until: at, master: masterClock)
            late = lateness > format.frameDuration.seconds
            if let wall = pacer.wallTime(of: at) {
                cond.lock()
                if pacerWall.last.map({ abs(($0.wall + (at - $0.stream).seconds) - wall) > 0.0005 }) ?? true {
                    pacerWall.append((at, wall))
                }
                cond.unlock()
            }
        }
        do {
            try surface.presentVideo(frame, keyframe: keyframe, isAd: isAd, sourceTime: sourceTime, late: late)
            try surface.presentAudio(from: audio, offset: offset)
        } catch {
            cond.lock(); if firstOutputError == nil { firstOutputError = error }; cond.unlock()
        }
        // layers' callbacks (a double box's ad frames), outside the surface lock: they may wait for main
        surface.runAfterPresenting()
        fireStreamTimes(reached: surface.streamTime)
    }

    private func fireStreamTimes(reached t: MediaTime) {
        cond.lock()
        let due = observers.takeStreamTimes(reached: t)
        cond.unlock()
        guard !due.isEmpty else { return }
        deliver(due, wait: true)
        pacer.reanchor()
    }

    /// The first error an output raised while presenting (the loop keeps going; `Player.close()`
    /// throws it).
    private var firstOutputError: Error?
    var outputError: Error? { cond.lock(); defer { cond.unlock() }; return firstOutputError }

    // MARK: observers

    /// The earliest boundary not fired yet: content holds its first frame at or after it.
    private var nextBoundary: MediaTime? {
        cond.lock(); defer { cond.unlock() }
        return observers.nextBoundary
    }

    private func fireBoundaries(_ pts: MediaTime) {
        cond.lock()
        let due = observers.takeBoundaries(beforeFrameAt: pts)
        cond.unlock()
        deliver(due, wait: true)
    }

    // MARK: seeking

    private func performSeek() {
        cond.lock()
        guard let req = seekRequest else { cond.unlock(); return }
        seekRequest = nil
        cond.unlock()
        let target = max(.zero, req.target)
        var ok = true
        do {
            let source = try MediaSource(url: contentPath, output: format, threads: threads, timeline: contentTimeline)
            source.video.origin = contentOrigin
            source.audio.origin = contentOrigin
            try source.reader.demuxer.seek(toKeyframeAtOrBefore: contentOrigin + target)
            var found: TimedFrame?
            while let f = try source.nextFrame() {
                if f.pts >= target { found = f; break }
            }
            source.pending = found
            // a seek before the first frame holds it from the target, as at the start
            source.gapStart = found.flatMap { $0.pts == firstFrameTime && target < $0.pts ? target : nil }
            content = SegmentCursor(source: source, output: format)
            segment = .closed
            cursor = .inPlace
            cond.lock()
            control.content = found == nil ? .ended : .ahead
            notice = .none
            head = target
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

    private func playAd(_ r: AdPlayRequest) {
        let start = surface.streamTime
        var frames: Int64 = 0
        var stopped = false
        var failure: Error?
        do {
            let source = try MediaSource(url: r.url, output: format, threads: threads, policy: .adMedia)
            let cursor = SegmentCursor(source: source, output: format)
            var marks = AdFrameFilter(r.marks)
            pacer.reanchor()   // opening the ad is not playback time: its first frame anchors the clock
            loop: while true {
                cond.lock()
                while control.freeze == .frozen && control.run == .running && control.ad != .stopping {
                    control.activity = .waiting; cond.broadcast(); cond.wait(); pacer.reanchor()
                }
                control.activity = .working
                let quit = control.run != .running, stop = control.ad == .stopping
                if stop { control.ad = .playing }
                cond.unlock()
                if quit { break }
                if stop { stopped = true; break }
                switch try cursor.step(streamSamples: surface.presentedSamples, sampleIndex: format.sampleIndex(at:), cue: nil) {
                case .frame(let f, let first):
                    present(f.frame, sourceTime: f.pts, keyframe: first, isAd: true, audio: source.audio, offset: cursor.audioOffset)
                    frames += 1
                    let at = surface.streamTime - format.frameDuration
                    let goOn = r.deliverFrame(f.pts, at: at, marks: &marks)   // waits on marked frames only
                    cond.lock(); let ends = control.adEndsHere; cond.unlock()
                    if !goOn || ends { stopped = true; break loop }
                case .held, .end:
                    break loop
                }
            }
        } catch {
            failure = error
        }
        // an ad that played out ends when its last frame has been shown for its duration (its
        // `complete` is due then), not when that frame appears
        if frames > 0, !stopped, failure == nil { waitOutLastFrame() }
        cond.lock()
        control.endAd()
        cond.unlock()
        cursor = .restart
        segment = .closed
        let result: Result<AdPlayback, Error>
        if let failure, frames == 0 {
            result = .failure(failure)
        } else {
            result = .success(AdPlayback(streamStart: start, frames: frames, duration: surface.streamTime - start,
                                         stoppedEarly: stopped, error: failure))
        }
        runAndWait(on: r.queue) { r.completion(result) }
        pacer.reanchor()
    }
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

/// What one ad played through the player put on the stream.
public struct AdPlayback: Sendable {
    /// Stream time of its first frame.
    public var streamStart: MediaTime
    /// Output frames presented.
    public var frames: Int64
    /// Stream time it occupied.
    public var duration: MediaTime
    /// Whether it was stopped before its end (skipped or discarded).
    public var stoppedEarly: Bool
    /// A decode error that ended it after some frames had been shown.
    public var error: Error?
    /// A stitch's full account of the ad (its loudness, transcode cache use, conform time); nil
    /// on a player presenting frames.
    public var placement: PlacedAd? = nil
}

extension Player {
    /// Plays ad media at `url` through this player and its surface, as soon as possible (content
    /// should be paused: the ad takes the surface while it plays). `onFrame(adTime, streamTime)` is
    /// called on `queue` for each ad frame presented, and the loop waits for it: returning false
    /// ends the ad after that frame. `completion` runs once on `queue` at the end.
    public func playAd(url: String, queue: DispatchQueue = .main,
                       onFrame: @escaping @Sendable (MediaTime, MediaTime) -> Bool,
                       completion: @escaping @Sendable (Result<AdPlayback, Error>) -> Void) {
        enqueueAd(AdPlayRequest(url: url, queue: queue, onFrame: onFrame, completion: completion))
    }

    /// Plays measured ad media (`AdMediaProbe.measure`) as ad `position` of `totalAds` in the
    /// current break, as `playAd(url:…)` does. A stitching player uses the measurement (its
    /// duration places the ad exactly) and reports the ad's full placement in the completion.
    /// With `marks`, the loop waits for `onFrame` only on the marked frames (the first, quartiles,
    /// offsets, one per period); it hands `queue` the others without waiting (their answers are
    /// not read: `stopAd` and `endAdAfterNextFrame` end the ad from any thread).
    public func playAd(_ media: AdMedia, position: Int, totalAds: Int, queue: DispatchQueue = .main,
                       marks: AdFrameMarks? = nil,
                       onFrame: @escaping @Sendable (MediaTime, MediaTime) -> Bool,
                       completion: @escaping @Sendable (Result<AdPlayback, Error>) -> Void) {
        enqueueAd(AdPlayRequest(url: media.url, media: media, position: position, totalAds: totalAds,
                                queue: queue, marks: marks, onFrame: onFrame, completion: completion))
    }

    /// Ends the ad playing once its next frame is presented (or written), as an `onFrame`
    /// answering false there would (a discarded break).
    public func endAdAfterNextFrame() { engine?.endAdAfterNextFrame() }

    private func enqueueAd(_ request: AdPlayRequest) {
        guard let engine else {
            request.queue.async { request.completion(.failure(MediaError.unsupported("the player has no content"))) }
            return
        }
        engine.enqueueAd(request)
    }

    /// Ends the ad playing before its next frame is presented (a skip).
    public func stopAd() { engine?.stopAd() }
    /// Freezes (true) or resumes (false) the ad playing: no ad frame is presented while frozen.
    public func setAdPaused(_ paused: Bool) { engine?.setAdPaused(paused) }
    /// Whether an ad is playing or about to.
    public var isPlayingAd: Bool { engine?.isAdActive ?? false }
    /// Records the start of an ad break at the current stream time (content paused at `contentTime`).
    public func beginBreak(id: String, contentTime: MediaTime) { engine?.beginBreak(id: id, contentTime: contentTime) }
    /// Records the end of the current ad break.
    public func endBreak() { engine?.endBreak() }
    /// Marks a double box as playing over content (true) or over (false). While it plays, the ad
    /// is drawn on content frames, so `setAdPaused(true)` holds the content (and the ad with it);
    /// its end clears the pause.
    public func setDoubleBoxActive(_ active: Bool) { engine?.setDoubleBoxActive(active) }
    /// Records a break that played beside content without pausing it (a double box): it goes on
    /// the timeline with `overlapsContent` true.
    /// `packaged` (a stitch): the break's ads as HLS date ranges and MP4 chapters.
    public func recordOverlappingBreak(_ b: TimelineMap.Break, packaged: PackagedBreak? = nil) {
        engine?.recordOverlappingBreak(b, packaged: packaged)
    }
    /// A stitching player: marks a double box's ads in the output (HLS date ranges, MP4 chapters)
    /// without putting the break on the timeline (`recordOverlappingBreak` does both).
    public func markOverlappingBreak(_ b: PackagedBreak) { engine?.markOverlappingBreak(b) }
    /// A stitching player: the content time of the next content frame it will write (the frame
    /// held at a cue, or the first); nil on a player presenting frames, or when content has ended.
    public var nextContentTime: MediaTime? { engine?.nextContentTime }
    /// Whether content packets are copied (a smart-rendered stitch): layers that draw on content
    /// frames cannot be added.
    public var copiesContent: Bool { engine?.copiesContent ?? false }
}
