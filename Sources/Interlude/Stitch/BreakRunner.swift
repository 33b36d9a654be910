// The one way an app's own breaks (media breaks, native breaks) play through a player.
import Foundation
import Playback
import Timing

/// A break an app holds itself (its media chosen, not an ad response's): played through a player
/// by `BreakRunner`.
struct RunnerBreak: Sendable {
    /// Its id on the timeline and in the report.
    var id: String
    /// Where it was asked for.
    var position: BreakCue
    /// Its pod, in play order.
    var ads: [Ad]

    /// One ad: measured media, and what is done around it on the runner's queue (a native ad's
    /// layout shown while its media plays).
    struct Ad: Sendable {
        var media: AdMedia
        var willPlay: (@Sendable () -> Void)? = nil
        var didPlay: (@Sendable () -> Void)? = nil
    }
}

/// An ad of a `RunnerBreak` that failed while it played (frames it showed stay).
struct RunnerFailure: Sendable {
    var breakId: String
    var media: AdMedia
    var error: Error
}

/// Plays an app's own breaks through a player, one after another at a content time, each a break
/// of its own on the player's timeline (`beginBreak`, its ads through `playAd` as pod positions,
/// `endBreak`), and places them (`PlacedBreak`: where content paused and resumed, stream time,
/// duration, the ads as placed). The one place where a schedule the app holds meets the player:
/// `Stitcher` runs its media breaks with it, and native breaks (`interlude play`'s
/// `NativePlayerBreaks`, a tag stitch's beside the `AdsManager`'s) theirs. The order of breaks at
/// one cue, their names and pod indexes come from `BreakSequence`; an ad response's breaks are
/// the `AdsManager`'s, which plays them through `PlayerVideoDisplay` with IMA's events.
///
/// Everything runs on `queue`, where the player hands its callbacks.
final class BreakRunner: Sendable {
    let player: Player
    let queue: DispatchQueue

    init(player: Player, queue: DispatchQueue) {
        self.player = player
        self.queue = queue
    }

    /// Plays `breaks` one after another at content time `contentTime` (where content paused),
    /// then `done` on `queue` with where they landed and the ads that failed while playing.
    /// Call it on `queue`.
    func play(_ breaks: [RunnerBreak], at contentTime: MediaTime,
              then done: @escaping @Sendable ([PlacedBreak], [RunnerFailure]) -> Void) {
        play(breaks[...], at: contentTime, placed: [], failed: [], then: done)
    }

    private func play(_ breaks: ArraySlice<RunnerBreak>, at contentTime: MediaTime, placed: [PlacedBreak], failed: [RunnerFailure],
                      then done: @escaping @Sendable ([PlacedBreak], [RunnerFailure]) -> Void) {
        guard let b = breaks.first else { done(placed, failed); return }
        player.beginBreak(id: b.id, contentTime: contentTime)
        let start = player.streamTime
        playAds(b.ads[...], of: b, played: [], failed: failed) { [self] ads, failed in
            let here = PlacedBreak(id: b.id, position: b.position, contentTime: contentTime, resumeContentTime: player.nextContentTime,
                                   streamTime: start, duration: player.streamTime - start, ads: ads)
            player.endBreak()
            play(breaks.dropFirst(), at: contentTime, placed: placed + [here], failed: failed, then: done)
        }
    }

    private func playAds(_ pod: ArraySlice<RunnerBreak.Ad>, of b: RunnerBreak, played: [PlacedAd], failed: [RunnerFailure],
                         then done: @escaping @Sendable ([PlacedAd], [RunnerFailure]) -> Void) {
        guard let ad = pod.first else { done(played, failed); return }
        let position = pod.startIndex + 1, total = b.ads.count
        ad.willPlay?()
        player.playAd(ad.media, position: position, totalAds: total, queue: queue, onFrame: { _, _ in true }) { [self] result in
            ad.didPlay?()
            var played = played, failed = failed
            switch result {
            case .success(let p): played.append(p.placement(of: ad.media, podPosition: position, totalAds: total))
            case .failure(let error): failed.append(RunnerFailure(breakId: b.id, media: ad.media, error: error))
            }
            playAds(pod.dropFirst(), of: b, played: played, failed: failed, then: done)
        }
    }
}
