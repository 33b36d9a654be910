import Foundation
import Media
import Timing

/// What a stitching player's loop steps: its `SpliceSession`, as fast as possible, written to
/// the request's output.
///
/// Content plays in runs from boundary to boundary (the next boundary observer's time, or the
/// end): each run is one `playContent(until:)`, so a smart-rendered stitch still copies the
/// content's packets between cues and re-encodes only the GOPs a cue splits. A boundary holds the
/// first frame at or after its time while the observer block runs (the loop waits for it), exactly
/// as a presenting player does, so cues are frame-exact on both. Periodic and stream-time
/// observers run inside a run, after the frame that reaches them. The app's calls that change
/// the output (`beginBreak`, `endBreak`, overlapping breaks) are queued and applied by the loop
/// before the next frame, so an observer block or an ad-frame callback never waits for the session.
///
/// The session opens its output file when the first frame is written, so layers the app adds to
/// the surface before starting (overlays, double boxes) decide smart rendering with the rest.
///
/// Loop state: touched only by the loop thread (and init, and `close` after the loop has ended);
/// `copying` is read under the loop's `cond`.
final class StitchedFeed {
    private let request: StitchRequest
    let session: SpliceSession
    /// Whether content packets are copied, or before the first frame will be (guarded by the
    /// loop's `cond`; refreshed after each step).
    var copying: Bool

    init(request: StitchRequest, layers: [SurfaceLayer]) throws {
        self.request = request
        let stack = LayerStack()
        layers.forEach(stack.add)
        session = try SpliceSession(request: request, layerStack: stack)
        copying = session.copiesContent
    }

    /// Follows each frame written (the session presents it into the player's surface): the
    /// playhead, observers due, and the work layers handed over while drawing.
    func install(_ loop: PlayerEngine) {
        let period = session.format.frameDuration
        session.onEvent = { [unowned loop] event in
            let h = loop.eventHandler
            h?(event)
            switch event {
            case .contentProgress(let pts, let at):
                deliver(loop.reachContent(pts), wait: true)
                Self.afterFrame(at + period, loop)
            case .adProgress(_, _, _, let at):
                Self.afterFrame(at + period, loop)
            default: break
            }
        }
    }

    private static func afterFrame(_ reached: MediaTime, _ loop: PlayerEngine) {
        loop.surface.runAfterPresenting()
        deliver(loop.reachStream(reached), wait: true)
    }

    /// The loop ends: the output is finished (unless the stitch failed) or removed.
    func quit(finishing finish: Bool, _ loop: PlayerEngine) {
        guard finish, loop.failureValue == nil else { session.abort(); return }
        do { try session.finish() } catch { loop.fail(error) }
        snapshot(loop)
    }

    func apply(_ commands: [(SpliceSession) -> Void], _ loop: PlayerEngine) {
        for c in commands { c(session) }
        snapshot(loop)
    }

    /// The loop waited `seconds` for the app with nothing to do: the stitch fails.
    func stalled(after seconds: Double, _ loop: PlayerEngine) {
        loop.fail(StitchFailure.stalled(seconds: seconds, streamTime: session.streamTime))
        loop.postFailed()
    }

    private func snapshot(_ loop: PlayerEngine) {
        let t = session.timelineMap, next = session.nextContentTime, copies = session.copiesContent
        loop.cond.lock(); loop.timeline = t; loop.held = next; copying = copies; loop.cond.unlock()
    }

    func stepContent(_ loop: PlayerEngine) {
        let cue = loop.nextBoundary
        do {
            try session.playContent(until: cue)
        } catch {
            loop.fail(error)
        }
        snapshot(loop)
        if loop.failureValue != nil { loop.postFailed(); return }
        if session.contentEnded {
            loop.cond.lock(); loop.control.content = .ended; loop.cond.unlock()
            loop.postEnd()
            return
        }
        guard let held = session.nextContentTime else { return }
        deliver(loop.boundaries(beforeFrameAt: held), wait: true)
    }

    func playAd(_ r: AdPlayRequest, _ loop: PlayerEngine) {
        var stopped = false
        let result: Result<PlacedAd, Error>
        if let error = loop.failureValue {
            result = .failure(error)
        } else {
            result = Result {
                if let error = loop.failureValue { throw error }
                let media = try r.media ?? AdMediaProbe.measure(r.url, threads: request.threads)
                var marks = AdFrameFilter(r.marks)
                return try session.playAd(media, position: r.position, totalAds: r.totalAds) { adTime, at in
                    if let stall = loop.waitWhileAdFrozen() { stalled(after: stall, loop); stopped = true; return false }
                    let goOn = r.deliverFrame(adTime, at: at, marks: &marks, loop: loop)   // waits only if the marks say so
                    if !goOn || loop.adEndsAfterFrame(consumingStop: true) { stopped = true; return false }
                    return true
                }
            }
        }
        snapshot(loop)
        loop.endAd()
        let playback = result.map {
            AdPlayback(streamStart: $0.streamTime, frames: $0.frames, duration: $0.duration, stoppedEarly: stopped,
                       error: nil, placement: $0)
        }
        runAndWait(on: r.queue) { r.completion(playback) }
    }
}
