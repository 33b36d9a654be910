import Foundation
import Media
import Timing

// Ads on the loop (one path for players and stitches) and the end and failure notices.
extension PlayerEngine {
    // MARK: ads

    /// Plays an ad, on any player: a stitch's file says how it reaches the file (the transcode
    /// cache, loudness, the rounding carried between ads) and places it; `runAd` steps its frames.
    /// The completion then runs on the app's queue and the loop waits for it (the app decides what
    /// follows). Frames already shown when the ad fails stay: a player reports them with the
    /// error, a stitch reports the failure.
    func playAd(_ r: AdPlayRequest) {
        let start = surface.streamTime
        let (events, index, breakID) = locked { ($0.handler, $0.openBreak?.index ?? $0.breaksEnded, $0.openBreak?.id) }
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
        locked { s in
            s.control.endAd()   // no ad, no freeze
            s.copying = file?.copiesContent ?? false   // the file may have opened for it
        }
        segment = .closed
        runAndWait(on: r.queue) { r.completion(result) }
        pacer.reanchor()
    }

    /// Steps an ad's frames from `feed`, the one place ad frames are stepped: each frame's event,
    /// then the work and observers it reached, then its observer (if `marks` says it sees it);
    /// before each frame the app may hold the picture (`setAdPaused`), stop the ad (`stopAd`,
    /// the observer's false answer, `endAdAfterNextFrame`), or end the loop. An ad that played
    /// out ends when its last frame has been shown for its duration (its `complete` is due then).
    func runAd(_ feed: any Feed, _ r: AdPlayRequest, media: AdMedia?, breakIndex index: Int,
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
                guard r.deliverFrame(adTime, at: at, marks: &marks, loop: self), !locked({ $0.control.adEndsHere }), adGoesOn() else {
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
    func adGoesOn() -> Bool {
        if let limit = waitWhileAdFrozen() { stall(limit); return false }
        return !locked { $0.control.takeAdStop() }
    }

    /// Waits while the app holds the ad picture (`setAdPaused`, unless the ad is being stopped or
    /// the loop quits); the stall timeout when it ran out meanwhile (a stitch), else nil.
    func waitWhileAdFrozen() -> Double? {
        let pausedSince = monotonicSeconds()
        return shared.holding { h -> Double? in
            while h.value.control.freeze == .frozen && h.value.control.run == .running && h.value.control.ad != .stopping {
                h.value.control.activity = .waiting
                h.broadcast()
                if let limit = waitForApp(h, since: pausedSince) { h.value.control.activity = .working; return limit }
                pacer.reanchor()
            }
            h.value.control.activity = .working
            return nil
        }
    }

    // MARK: notices

    /// Posts the did-play-to-end notification once. Posted from the loop: observers registered
    /// with a queue (`.main`) run there and the post waits for them, so the loop does not run
    /// ahead of the app's answer.
    func postEnd() {
        let due = locked { _ in
            let (due, next) = notice.postingEnd()
            notice = next
            return due
        }
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
        locked { s in
            if s.failure == nil { s.failure = error }
            s.control.content = .ended
        }
    }

    var failureValue: Error? { locked { $0.failure } }
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
