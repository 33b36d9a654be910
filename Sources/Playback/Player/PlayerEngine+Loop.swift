import Foundation
import Media
import Threads
import Timing

// The frame loop itself: what it does next, content (a frame or a run to the next cue), seeking.
extension PlayerEngine {
    // MARK: the frame loop

    enum Work { case quit(finish: Bool), commands([() -> Void]), seek, ad(AdPlayRequest), content, stalled(Double) }

    func nextWork() -> Work {
        let idleSince = monotonicSeconds()
        return shared.holding { h -> Work in
            var waited = false
            while true {
                switch h.value.control.nextWork(commandsPending: !h.value.commands.isEmpty, seekPending: h.value.seekRequest != nil,
                                                adQueued: h.value.adRequest != nil) {
                case .commands:
                    let c = h.value.commands
                    h.value.commands = []
                    return .commands(c)
                case .quit(let finish):
                    return .quit(finish: finish)
                case .ad:
                    let r = h.value.adRequest!
                    h.value.adRequest = nil
                    h.value.control.startAd()
                    if waited { pacer.reanchor() }
                    return .ad(r)
                case .seek, .content:
                    h.value.control.activity = .working
                    if waited { pacer.reanchor() }
                    pacer.rate = Double(h.value.speed)
                    return h.value.seekRequest != nil ? .seek : .content
                case .wait:
                    break
                }
                h.value.control.activity = .waiting
                h.broadcast()
                if let limit = waitForApp(h, since: idleSince) { return .stalled(limit) }
                waited = true
            }
        }
    }

    /// Waits (holding `shared`'s lock, through `h`) for the app to change something. Returns the
    /// stall timeout when it has run out since `since` (the loop has waited that long with
    /// nothing to do), else nil after the wait; the caller checks its state again.
    func waitForApp(_ h: borrowing LockedCondition<Shared>.Held, since: Double) -> Double? {
        guard let limit = h.value.stallLimit, h.value.failure == nil else { h.wait(); return nil }
        let left = max(since, h.value.stallArmedAt) + limit - monotonicSeconds()
        if left <= 0 { return limit }
        h.wait(before: Date(timeIntervalSinceNow: left))
        return nil
    }

    func run() {
        loopThread.bind()
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
        // the loop's state is the app's to read once the loop says it has exited
        loopThread.release()
        signalling { $0.control.run = .exited; $0.control.activity = .waiting }
    }

    /// The loop ends: a stitch's file is finished (unless the stitch failed) or removed; a
    /// player's outputs are finished by `close()`.
    func end(finishing finish: Bool) {
        guard let file else { return }
        guard finish, failureValue == nil else { file.abort(); return }
        do { try file.finish(timeline: timelineSnapshot) } catch { fail(error) }
    }

    /// A stitch waited `seconds` for the app with nothing to write: it fails.
    func stall(_ seconds: Double) {
        fail(StitchFailure.stalled(seconds: seconds, streamTime: surface.streamTime))
        postFailed()
    }

    // MARK: content

    /// Content from where it stands: one frame for a player (a pause, a seek or an ad takes effect
    /// at the next frame), or for a stitch a run up to the next cue (`LoopPass`). A frame held at
    /// a cue waits while the boundary observers run; the end of content is checked (a stitch's
    /// file) and posted; an error does what the pass says.
    func stepContent() {
        let (cue, events) = locked { ($0.observers.nextBoundary, $0.handler) }
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
                deliver(locked { $0.head = pts; return $0.observers.takePeriodic(at: pts) }, wait: clock == .asFastAsPossible)
                framePresented()
                return pass.runsToCue
            }
            ran(outcome, startingSegment: starts, feed)
            if feed.ended {
                try endContent(cue: cue, readError: feed.readError, events)
            } else if let held = feed.nextContentTime {
                if pass.cueEndsSegment { segment = .closed }
                deliver(locked { $0.observers.takeBoundaries(beforeFrameAt: held) }, wait: true)
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
    func ran(_ o: SegmentOutcome, startingSegment starts: Bool, _ feed: any Feed) {
        locked { s in
            if o.frames > 0 {
                if starts || s.timeline.segments.isEmpty {
                    s.timeline.segments.append(.init(contentStart: o.sourceStart, contentEnd: o.sourceEnd,
                                                     streamStart: o.streamStart, streamEnd: o.streamEnd))
                } else {
                    s.timeline.segments[s.timeline.segments.count - 1].contentEnd = o.sourceEnd
                    s.timeline.segments[s.timeline.segments.count - 1].streamEnd = o.streamEnd
                }
            }
            s.held = feed.nextContentTime
            s.copying = file?.copiesContent ?? false
        }
    }

    /// Content has ended (its last frame shown for its duration in real time): a stitch's file
    /// checks it is complete (or throws), then the end is posted.
    func endContent(cue: MediaTime?, readError: MediaError?, _ events: (@Sendable (SpliceEvent) -> Void)?) throws {
        waitOutLastFrame()
        try file?.contentEnded(timeline: timelineSnapshot, cue: cue, readError: readError)
        events?(.contentEnded(contentTime: playhead ?? .zero, streamTime: surface.streamTime))
        locked { $0.control.content = .ended }
        postEnd()
        pacer.reanchor()
    }

    /// In real time, waits until the last frame presented has been shown for its duration.
    func waitOutLastFrame() {
        if clock == .realTime { _ = pacer.wait(until: surface.streamTime, master: masterClock) }
    }

    /// The real-time clock (`RenderSurface.pace`): waits until stream time `at` is due; whether
    /// the frame is late by more than a frame.
    func pace(until at: MediaTime) -> Bool {
        let lateness = pacer.wait(until: at, master: masterClock)
        if let wall = pacer.wallTime(of: at) {
            locked { s in
                if s.pacerWall.last.map({ abs(($0.wall + (at - $0.stream).seconds) - wall) > 0.0005 }) ?? true {
                    s.pacerWall.append((at, wall))
                }
            }
        }
        return lateness > format.frameDuration.seconds
    }

    /// After each frame (content or ad) is out: the work layers handed over while drawing (a
    /// double box's ad frames, outside the surface's lock: they may wait for main), then the
    /// stream-time observers it reached, waited for.
    func framePresented() {
        surface.runAfterPresenting()
        let due = locked { $0.observers.takeStreamTimes(reached: surface.streamTime) }
        guard !due.isEmpty else { return }
        deliver(due, wait: true)
        pacer.reanchor()
    }

    /// A player's output failed while presenting: kept for `close()`.
    func keep(_ error: Error) {
        locked { if $0.firstOutputError == nil { $0.firstOutputError = error } }
    }

    // MARK: seeking

    func performSeek() {
        let request = locked { s -> SeekRequest? in
            guard let req = s.seekRequest, seeking != nil else { return nil }
            s.seekRequest = nil
            return req
        }
        guard let req = request, let seeking else { return }
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
            locked { s in
                s.control.content = found == nil ? .ended : .ahead
                notice = .none
                s.head = target
                s.held = nil
                s.observers.rearm(at: target)
            }
        } catch {
            ok = false
        }
        pacer.reanchor()
        if ok, let item {
            NotificationCenter.default.post(name: PlayerItem.timeJumpedNotification, object: item, userInfo: ["time": target])
        }
        if let c = req.completion { runAndWait(on: req.queue) { c(ok) } }
    }
}
