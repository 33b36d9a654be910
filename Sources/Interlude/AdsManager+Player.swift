import Foundation
import Playback
import Timing

/// Watching a `Player` as IMA watches an AVPlayer through `IMAAVPlayerContentPlayhead`: boundary
/// observers at the mid-roll cues, the time-jump notification for seeks (snapback), and the
/// pre-roll when playback starts. The observers run on the manager's queue; the player waits for
/// them (a cue, a seek), never for the app.
extension AdsManager {
    /// The player behind the content playhead, when it is a `PlayerContentPlayhead`.
    var watchedPlayer: Player? { (request.contentPlayhead as? PlayerContentPlayhead)?.player }

    /// Puts observers on the watched player (called by `initialize`). With ad rules the pre-roll
    /// starts at once (content resumes at once when there is none); a plain VAST response waits
    /// for `start()`.
    func watchPlayer() {
        guard let player = watchedPlayer, playerObservers.isEmpty else { return }
        for b in adState.breaks {
            guard case .midroll(let cue) = b.cue else { continue }
            let token = player.addBoundaryTimeObserver(forTimes: [cue], queue: queue) { [weak self] in
                self?.playerReached(cue)
            }
            playerObservers.append(token)
        }
        // posted by the player's thread before the seek completes: the manager decides before
        // content goes on from the target (a snapback pauses it there)
        jumpObserver = NotificationCenter.default.addObserver(forName: PlayerItem.timeJumpedNotification,
                                                              object: player.currentItem, queue: nil) { [weak self] note in
            guard let self, let target = note.userInfo?["time"] as? MediaTime else { return }
            self.perform { self.playerJumped(to: target) }
        }
        if isAdRules { queue.async { [weak self] in self?.startWatchedPlayer() } }
    }

    /// Plays what is due at the player's position (the pre-roll), or asks for content to resume.
    func startWatchedPlayer() {
        guard let player = watchedPlayer, !destroyed else { return }
        let at = player.currentTime()
        if adState.nextCue(atOrAfter: at).map({ $0 <= at }) ?? false {
            // content waits for the pre-roll; if it could not play (and so never paused content),
            // content is asked to start all the same
            // (a single VAST ad that is not linear, an overlay, does not pause content either: it
            // shows over content, which is asked to start; a failed one was reported as a fatal
            // error, on which the app resumes content itself, as IMA's guide does)
            let overlaysBefore = overlaysShown
            reach(at) { [weak self] paused in
                guard let self, !paused, !self.destroyed, self.isAdRules || self.overlaysShown > overlaysBefore else { return }
                self.toDelegate { d, m in d.adsManagerDidRequestContentResume(m) }
            }
        } else if !breakPlaying {
            toDelegate { d, m in d.adsManagerDidRequestContentResume(m) }
        }
    }

    func unwatchPlayer() {
        if let player = watchedPlayer { for t in playerObservers { player.removeTimeObserver(t) } }
        playerObservers = []
        if let j = jumpObserver { NotificationCenter.default.removeObserver(j) }
        jumpObserver = nil
    }

    /// The player is about to show the first frame at or after `cue`.
    /// A linear break due there pauses content only once its media is ready (it may still be
    /// downloading); until then the player holds at the cue, so that no content frame at or after
    /// the cue is shown before the ads, on either clock (a viewer sees the picture wait, as while
    /// buffering). Content goes on by itself when nothing ends up pausing it (the break failed).
    func playerReached(_ cue: MediaTime) {
        // content goes on under a double box: a break due inside it is skipped (with a LOG event)
        if doubleBox != nil { reach(cue) { _ in }; return }
        guard !breakPlaying else { return }
        let (_, due) = adState.reaching(cue)
        let linear = due.contains { !isOverlayBreak(plans[$0]) }
        guard linear, isAdRules || started, !destroyed, let player = watchedPlayer else {
            reach(cue) { _ in }
            return
        }
        player.pause()
        reach(cue) { [weak self] paused in
            guard let self, !paused, !self.destroyed else { return }
            player.play()
        }
    }

    /// The player jumped to `target` (a seek): the last unplayed break before it plays (IMA's
    /// snapback), then content continues at the target.
    func playerJumped(to target: MediaTime) {
        guard !breakPlaying, isAdRules || started else { return }
        let due = adState.breaks.contains { b in
            guard b.state == .scheduled, case .midroll(let c) = b.cue else { return false }
            return c <= target
        }
        if due { reach(target) { _ in } }
    }
}
