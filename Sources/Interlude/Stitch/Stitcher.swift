import Ads
import Foundation
import Playback
import Threads
import Timing

/// Splices a fixed schedule of ad pods (media files the app chose) into content and writes the
/// result: `interlude stitch --ad-break TIME=MEDIA…`.
///
/// It is an app on a stitching `Player` (`Player(stitching:)`, as fast as possible), as
/// `TagStitcher` is for ad tags: each mid-roll cue is a boundary time observer that pauses the
/// player on the first content frame at or after the cue and plays the break's ads through it
/// (`Player.playAd`); pre-rolls play before `play()`, post-rolls on the did-play-to-end
/// notification. Every ad is measured before the first frame (an ad that cannot be opened or
/// decoded is left out of its pod and reported). The output is a temporary file beside the
/// target, moved into place by `close()`, so a failed stitch never leaves a partial file.
///
/// What `stitch(_:breaks:options:)` runs for `.media` (apps call that).
package final class Stitcher {
    /// What to stitch.
    package let request: StitchRequest
    /// Called for each event of the frame loop, on the stitching thread.
    package var onEvent: (@Sendable (SpliceEvent) -> Void)?
    /// Called after each output frame with the stream time reached and the expected total.
    package var onProgress: (@Sendable (MediaTime, MediaTime) -> Void)?

    /// Layers drawn on the output's frames (ad UI, overlays) and mixed into its audio.
    package let layers: [SurfaceLayer]

    /// Prepares a stitch; nothing is opened until `run()`.
    package init(request: StitchRequest, layers: [SurfaceLayer] = []) {
        self.request = request
        self.layers = layers
    }

    /// Runs the stitch, blocking the caller until the output is written (the player's callbacks
    /// run on a queue of the stitch's own, so any thread may call it); throws `StitchFailure`
    /// when no output could be made.
    package func run() throws -> StitchResult {
        let started = monotonicSeconds()
        let all = Stitcher.ordered(request.breaks)
        // double-box breaks do not pause content: layers over it, drawn while content plays
        let boxes = try all.filter { $0.doubleBox != nil }.map { b -> DoubleBoxLayer in
            guard let style = b.doubleBox, let cue = b.position.contentTime else {
                throw StitchFailure.invalidOption("double-box break \(b.id) at the end of the content: content must go on beside it")
            }
            return DoubleBoxLayer(breakId: b.id, cue: cue, style: style, threads: request.threads)
        }
        let player = try Player(stitching: request, layers: layers + boxes)
        let contentDuration = player.currentItem?.duration ?? .zero
        let format = player.surface.format
        let ordered = all.filter { $0.doubleBox == nil }
        for b in all {
            if case .midroll(let t) = b.position, t >= contentDuration {
                player.abandon()
                throw StitchFailure.cuePastEnd(cue: t, duration: contentDuration)
            }
        }
        var issues: [StitchIssue] = []
        var measured: [String: Result<AdMedia, Error>] = [:]   // each media file is measured once
        let pods = ordered.map { b in
            b.ads.compactMap { url -> AdMedia? in
                let result = measured[url] ?? Result { try AdMediaProbe.measure(url, threads: request.threads) }
                measured[url] = result
                switch result {
                case .success(let media): return media
                case .failure(let error):
                    issues.append(StitchIssue(rejection: error, url: url, breakId: b.id))
                    return nil
                }
            }
        }
        do {
            // the boxes are the loop's now (`LoopOwnedLayer`): set up on it
            let threads = request.threads
            issues += try player.onLoop {
                var found: [StitchIssue] = []
                try DoubleBoxLayer.configure(boxes, breaks: all, format: format, contentDuration: contentDuration, threads: threads, issues: &found)
                return found
            }
        } catch {
            player.abandon()
            throw error
        }
        let period = format.frameDuration
        let sequence = BreakSequence(ordered)
        let podDurations = pods.map { $0.reduce(MediaTime.zero) { $0 + period * FrameSelection.frameCount(from: .zero, to: $1.duration, period: period) } }
        let expectedTotal = sequence.streamTimes(durations: podDurations, contentDuration: contentDuration).end
        let planned = monotonicSeconds()

        let emit = onEvent, progress = onProgress
        for box in boxes { box.onEvent = { emit?($0) } }
        player.spliceEvents = { event in
            emit?(event)
            switch event {
            case let .contentProgress(_, at), let .adProgress(_, _, _, at): progress?(at + period, expectedTotal)
            default: break
            }
        }

        // The app: its state is touched only on `queue`, where every player callback runs.
        let app = ScheduleApp(player: player, sequence: sequence, breaks: Array(zip(ordered, pods)))
        player.stallTimeout = request.stallTimeout   // every ad is measured: nothing should keep the loop waiting
        app.start()
        app.waitUntilDone()
        for box in boxes { if let b = box.packagedBreak { player.markOverlappingBreak(b) } }   // HLS date ranges, MP4 chapters
        let session = try player.finishStitch()
        issues += app.issues
        var placed = app.placed
        var timeline = session.timelineMap
        for box in boxes {
            if let e = box.failure {
                issues.append(StitchIssue(code: 405, message: "double-box break \(box.breakId) ended early: \(e)", breakId: box.breakId))
            }
            guard let b = box.placedBreak(in: &timeline) else { continue }
            placed.append(b)
        }
        placed.sort { $0.streamTime < $1.streamTime }
        var result = StitchResult(schedule: .app, session: session, breaks: placed, timeline: timeline, issues: issues,
                                  started: started, planned: planned)
        if !boxes.isEmpty, !layers.contains(where: \.drawsOnContent), result.smartRendering?.used == false {
            result.smartRendering?.reason = DoubleBoxLayer.smartRenderingRefusal   // the boxes, not overlays, turned copying off
        }
        return result
    }

    /// Breaks in play order (`BreakSequence`): pre-rolls, mid-rolls by time, post-rolls; ties keep
    /// request order; a break without an id gets the sequencer's name.
    package static func ordered(_ breaks: [AdBreakRequest]) -> [AdBreakRequest] {
        BreakSequence(breaks).slots.map { s in
            var b = breaks[s.source]
            b.id = s.name
            return b
        }
    }
}

/// The app `Stitcher` runs on the player: pre-rolls, then content with a boundary observer at
/// each mid-roll cue (the breaks there play through the player, content resumes at the cue
/// frame), post-rolls when content has played to its end; the breaks themselves play through a
/// `BreakRunner`. All of its state lives on `queue`. A failed stitch (the player's
/// failed-to-play-to-end notification) ends it at once.
private final class ScheduleApp: @unchecked Sendable {
    // @unchecked Sendable: what the stitch decides is `decided`, a `LoopBound` of `queue` (the
    // player's callbacks run there; `start` hops there; asserted in debug builds), let go when
    // the stitch is done for the caller to read after `waitUntilDone`; the two observers are the
    // caller's (`start` and `waitUntilDone`, on its thread).
    let player: Player
    /// The breaks' order; `breaks` are indexed by its slots' `source`.
    let sequence: BreakSequence
    let breaks: [RunnerBreak]
    private let queue = DispatchQueue(label: "interlude.stitcher")
    private let queueKey = DispatchSpecificKey<Void>()
    private let runner: BreakRunner
    private let done = DispatchSemaphore(value: 0)
    private var endObserver: NSObjectProtocol?
    private var failureObserver: NSObjectProtocol?
    private enum Ending { case running, done }
    /// What the stitch decides, on `queue`.
    private struct Decided {
        var ending = Ending.running
        var placed: [PlacedBreak] = []
        var issues: [StitchIssue] = []
    }
    private let decided: LoopBound<Decided>
    private var ending: Ending { get { decided.value.ending } set { decided.value.ending = newValue } }
    private(set) var placed: [PlacedBreak] { get { decided.value.placed } _modify { yield &decided.value.placed } }
    private(set) var issues: [StitchIssue] { get { decided.value.issues } _modify { yield &decided.value.issues } }

    init(player: Player, sequence: BreakSequence, breaks: [(AdBreakRequest, [AdMedia])]) {
        self.player = player
        self.sequence = sequence
        self.breaks = breaks.map { b, pod in RunnerBreak(id: b.id, position: b.position, ads: pod.map { RunnerBreak.Ad(media: $0) }) }
        runner = BreakRunner(player: player, queue: queue)
        queue.setSpecific(key: queueKey, value: ())
        let owner = ThreadOwner(name: "the stitcher's queue", queue: queue, key: queueKey)
        decided = LoopBound(Decided(), owner: owner, name: "its breaks and issues")
        owner.bind()
    }

    func start() {
        for cue in sequence.midrollTimes {
            player.addBoundaryTimeObserver(forTimes: [cue], queue: queue) { [self] in
                player.pause()
                playBreaks(at: .midroll(cue), contentTime: cue) { [self] in player.play() }
            }
        }
        // posted on the player's thread, which waits for the block: it hops onto `queue`
        endObserver = NotificationCenter.default.addObserver(forName: PlayerItem.didPlayToEndTimeNotification, object: player.currentItem,
                                                             queue: nil) { [self] _ in
            queue.sync {
                let end = player.timeline.segments.last?.contentEnd ?? .zero
                playBreaks(at: .postroll, contentTime: end) { [self] in finish() }
            }
        }
        failureObserver = NotificationCenter.default.addObserver(forName: PlayerItem.failedToPlayToEndTimeNotification,
                                                                 object: player.currentItem, queue: nil) { [self] _ in
            queue.sync { finish() }   // `close()` throws the failure
        }
        queue.async { [self] in
            playBreaks(at: .preroll, contentTime: .zero) { [self] in player.play() }
        }
    }

    /// Plays the breaks at `cue`, in play order, then `then` (on `queue`).
    private func playBreaks(at cue: BreakCue, contentTime: MediaTime, then: @escaping @Sendable () -> Void) {
        runner.play(sequence.slots(at: cue).map { breaks[$0.source] }, at: contentTime) { [self] placed, failed in
            self.placed += placed
            issues += failed.map {
                StitchIssue(code: 405, message: "ad media \($0.media.url) failed while splicing: \($0.error)", mediaFile: $0.media.url,
                            breakId: $0.breakId)
            }
            then()
        }
    }

    func waitUntilDone() {
        done.wait()
        for o in [endObserver, failureObserver].compactMap({ $0 }) { NotificationCenter.default.removeObserver(o) }
    }

    /// Lets `waitUntilDone` return (once).
    private func finish() {
        guard ending == .running else { return }
        ending = .done
        decided.owner.release()   // the caller reads the breaks and issues once `done` is signalled
        done.signal()
    }
}
