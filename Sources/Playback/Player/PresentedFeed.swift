import Foundation
import Media
import Timing

/// What a player's loop steps: content decoded frame by frame through its `SegmentCursor` and
/// presented on the surface (paced in real time), ads the same way, seeks. Loop state: touched
/// only by the loop thread (and init).
final class PresentedFeed {
    let format: OutputFormat
    let duration: MediaTime
    let path: String
    private let threads: Int
    private var content: SegmentCursor
    private var contentOrigin: MediaTime
    private let contentTimeline: ContentTimeline
    /// Content time of the content's first video frame (after 0 with a leading empty edit).
    private let firstFrameTime: MediaTime
    private var cursor = CursorState.inPlace
    private var segment = SegmentState.closed

    /// Whether the content cursor goes on where it is or starts again (after an ad).
    private enum CursorState { case inPlace, restart }
    /// Whether the timeline's last content segment is still being extended.
    private enum SegmentState { case closed, open }

    init(path: String, size: (width: Int, height: Int)?, frameRate: Rational?, threads: Int) throws {
        let probe = try Demuxer(url: path)
        guard let v = probe.bestStream(.video) else { throw MediaError.missingStream("\(path) has no video stream") }
        let video = probe.streams[v]
        let audio = probe.bestStream(.audio).map { probe.streams[$0] }
        let timeline = ContentTimeline(probe)
        guard let duration = timeline.end(of: video) ?? probe.duration, duration > .zero else {
            throw MediaError.unsupported("\(path) has no duration")
        }
        format = try OutputFormat.forContent(video: video, audio: audio, size: size, frameRate: frameRate)
        self.duration = duration
        self.path = path
        self.threads = threads
        contentTimeline = timeline
        let source = try MediaSource(url: path, output: format, threads: threads, timeline: timeline)
        guard let first = try source.nextFrame() else { throw MediaError.missingStream("\(path) has no video frames") }
        source.pending = first
        contentOrigin = source.video.origin ?? .zero
        firstFrameTime = first.pts
        content = SegmentCursor(source: source, output: format)
    }

    // MARK: content

    func stepContent(_ loop: PlayerEngine) {
        if cursor == .restart { content.restart(); cursor = .inPlace; segment = .closed }
        let surface = loop.surface
        let step: SegmentCursor.Step
        do {
            step = try content.step(streamSamples: surface.presentedSamples, sampleIndex: format.sampleIndex(at:),
                                    cue: loop.nextBoundary)
        } catch {
            step = .end
        }
        switch step {
        case .held(let pts):
            deliver(loop.boundaries(beforeFrameAt: pts), wait: true)
            loop.pacer.reanchor()   // the time the app took to answer is not playback time
        case .frame(let f, let first):
            present(f.frame, sourceTime: f.pts, keyframe: first || segment == .closed, isAd: false,
                    audio: content.source.audio, offset: content.audioOffset, loop)
            let streamEnd = surface.streamTime
            loop.cond.lock()
            loop.head = f.pts
            if segment == .closed || first {
                loop.timeline.segments.append(.init(contentStart: f.pts, contentEnd: content.segmentEnd,
                                                    streamStart: streamEnd - format.frameDuration, streamEnd: streamEnd))
            } else if !loop.timeline.segments.isEmpty {
                loop.timeline.segments[loop.timeline.segments.count - 1].contentEnd = content.segmentEnd
                loop.timeline.segments[loop.timeline.segments.count - 1].streamEnd = streamEnd
            }
            let periodic = loop.observers.takePeriodic(at: f.pts)
            loop.cond.unlock()
            segment = .open
            deliver(periodic, wait: loop.clock == .asFastAsPossible)
        case .end:
            waitOutLastFrame(loop)   // content ends when its last frame has been shown for its duration
            loop.cond.lock()
            loop.control.content = .ended
            if !loop.timeline.segments.isEmpty {
                loop.timeline.segments[loop.timeline.segments.count - 1].contentEnd = content.segmentEnd
            }
            loop.cond.unlock()
            loop.postEnd()
            loop.pacer.reanchor()
        }
    }

    /// In real time, waits until the last frame presented has been shown for its duration.
    private func waitOutLastFrame(_ loop: PlayerEngine) {
        if loop.clock == .realTime { _ = loop.pacer.wait(until: loop.surface.streamTime, master: loop.masterClock) }
    }

    private func present(_ frame: Frame, sourceTime: MediaTime?, keyframe: Bool, isAd: Bool, audio: AudioTrack, offset: Int64,
                         _ loop: PlayerEngine) {
        let surface = loop.surface
        let at = surface.streamTime
        var late = false
        if loop.clock == .realTime {
            let lateness = loop.pacer.wait(until: at, master: loop.masterClock)
            late = lateness > format.frameDuration.seconds
            if let wall = loop.pacer.wallTime(of: at) {
                loop.cond.lock()
                if loop.pacerWall.last.map({ abs(($0.wall + (at - $0.stream).seconds) - wall) > 0.0005 }) ?? true {
                    loop.pacerWall.append((at, wall))
                }
                loop.cond.unlock()
            }
        }
        do {
            try surface.presentVideo(frame, keyframe: keyframe, isAd: isAd, sourceTime: sourceTime, late: late)
            try surface.presentAudio(from: audio, offset: offset)
        } catch {
            loop.cond.lock(); if loop.firstOutputError == nil { loop.firstOutputError = error }; loop.cond.unlock()
        }
        // layers' callbacks (a double box's ad frames), outside the surface lock: they may wait for main
        surface.runAfterPresenting()
        let due = loop.reachStream(surface.streamTime)
        guard !due.isEmpty else { return }
        deliver(due, wait: true)
        loop.pacer.reanchor()
    }

    // MARK: seeking

    func performSeek(_ loop: PlayerEngine) {
        loop.cond.lock()
        guard let req = loop.seekRequest else { loop.cond.unlock(); return }
        loop.seekRequest = nil
        loop.cond.unlock()
        let target = max(.zero, req.target)
        var ok = true
        do {
            let source = try MediaSource(url: path, output: format, threads: threads, timeline: contentTimeline)
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
            loop.cond.lock()
            loop.control.content = found == nil ? .ended : .ahead
            loop.notice = .none
            loop.head = target
            loop.observers.rearm(at: target)
            loop.cond.unlock()
        } catch {
            ok = false
        }
        loop.pacer.reanchor()
        if ok, let item = loop.item {
            NotificationCenter.default.post(name: PlayerItem.timeJumpedNotification, object: item, userInfo: ["time": target])
        }
        if let c = req.completion { runAndWait(on: req.queue) { c(ok) } }
    }

    // MARK: ads

    func playAd(_ r: AdPlayRequest, _ loop: PlayerEngine) {
        let surface = loop.surface
        let start = surface.streamTime
        var frames: Int64 = 0
        var stopped = false
        var failure: Error?
        do {
            let source = try MediaSource(url: r.url, output: format, threads: threads, policy: .adMedia)
            let cursor = SegmentCursor(source: source, output: format)
            var marks = AdFrameFilter(r.marks)
            loop.pacer.reanchor()   // opening the ad is not playback time: its first frame anchors the clock
            adFrames: while true {
                _ = loop.waitWhileAdFrozen()   // a player has no stall timeout
                loop.cond.lock()
                let quit = loop.control.run != .running, stop = loop.control.ad == .stopping
                if stop { loop.control.ad = .playing }
                loop.cond.unlock()
                if quit { break }
                if stop { stopped = true; break }
                switch try cursor.step(streamSamples: surface.presentedSamples, sampleIndex: format.sampleIndex(at:), cue: nil) {
                case .frame(let f, let first):
                    present(f.frame, sourceTime: f.pts, keyframe: first, isAd: true, audio: source.audio, offset: cursor.audioOffset, loop)
                    frames += 1
                    let at = surface.streamTime - format.frameDuration
                    let goOn = r.deliverFrame(f.pts, at: at, marks: &marks, loop: loop)   // waits only if the marks say so
                    if !goOn || loop.adEndsAfterFrame(consumingStop: false) { stopped = true; break adFrames }
                case .held, .end:
                    break adFrames
                }
            }
        } catch {
            failure = error
        }
        // an ad that played out ends when its last frame has been shown for its duration (its
        // `complete` is due then), not when that frame appears
        if frames > 0, !stopped, failure == nil { waitOutLastFrame(loop) }
        loop.endAd()
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
        loop.pacer.reanchor()
    }
}
