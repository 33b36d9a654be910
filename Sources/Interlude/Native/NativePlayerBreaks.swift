// Native ads on a player's surface (`interlude play`): L-bars as layers, full-frame native breaks played at their cues.
import Ads
import Foundation
import Playback
import Timing

/// Native ads shown by a `Player`, on its surface, as in a stitch: an L-bar is a layer over its
/// range of content; a full-frame native break plays at its cue as a break of its own
/// (`BreakRunner`, as a stitch's media breaks): a boundary observer holds the frame loop at the
/// cue, content pauses, the ad media (the video asset, or a still of the declared duration) plays
/// through the player with the layout drawn over it, and content resumes at the cue frame. Impressions are
/// recorded on the first frame shown (and sent when the ad's `firesTrackersLive`). Breaks at one
/// cue play in turn, in the order given (`BreakSequence`), before content resumes.
///
/// Post-rolls (`end`) are not played by a player (its session ends with the content); a seek
/// does not play the native breaks it jumps over.
@MainActor final class NativePlayerBreaks {
    /// The player.
    public let player: Player
    /// The native ads, in request order.
    public let natives: [NativeBreak]
    /// Where network video assets are fetched.
    public var mediaCache = AdMediaCache()
    /// Seconds to fetch one video asset.
    public var videoTimeout: Double = 8
    /// Problems that did not stop playback (a video that could not be fetched, a break left out).
    public private(set) var warnings: [String] = []
    private var prepared: [PreparedNative] = []
    private var tokens: [Any] = []
    private var measurements = AdMeasurements(threads: 0)
    private lazy var runner = BreakRunner(player: player, queue: .main)
    private let work = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-native-play-\(UUID().uuidString.prefix(8))")

    /// Native ads for `player`; nothing happens until `attach()`.
    public init(player: Player, natives: [NativeBreak]) {
        self.player = player
        self.natives = natives
    }

    /// Prepares the ads (fetching videos, writing stills), adds their layers to the player's
    /// surface and puts boundary observers at the full-frame cues. Call before playback starts.
    /// Throws `StitchFailure` for a native ad that cannot be placed (an L-bar at the end).
    public func attach() async throws {
        if natives.contains(where: { $0.layout == .fullFrame }) { try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true) }
        let (prepared, warnings) = try await NativePreparation.prepare(natives, cache: mediaCache, videoTimeout: videoTimeout, work: work)
        self.prepared = prepared
        self.warnings = warnings
        for p in prepared { player.surface.addLayer(p.layer) }
        let fullFrame = prepared.indices.filter { prepared[$0].mediaPath != nil }
        for i in fullFrame where prepared[i].cueTime == nil {
            self.warnings.append("\(prepared[i].id): a native post-roll is not played by a player (the session ends with the content); left out")
        }
        // one observer per cue: the breaks at it play in turn, in the order given
        let sequence = BreakSequence(cues: fullFrame.map { prepared[$0].native.position })
        for cue in sequence.cues {
            guard let time = cue.contentTime else { continue }
            let due = sequence.slots(at: cue).map { fullFrame[$0.source] }
            tokens.append(player.addBoundaryTimeObserver(forTimes: [time], queue: .main) { [weak self] in
                MainActor.assumeIsolated { self?.play(due, at: time) }
            })
        }
    }

    /// Where each ad showed, in request order.
    public var placements: [NativePlacement] {
        prepared.map(\.placement)
    }

    /// Removes the observers and the stills (call when playback has ended).
    public func detach() {
        for t in tokens { player.removeTimeObserver(t) }
        tokens = []
        try? FileManager.default.removeItem(at: work)
    }

    /// Plays the native breaks `due` (indexes into `prepared`) one after another at content time
    /// `cue` (those whose media cannot play left out, with a warning), pausing content while they
    /// play, then lets content play on.
    private func play(_ due: [Int], at cue: MediaTime) {
        let (breaks, leftOut) = PreparedNative.runnerBreaks(due.map { prepared[$0] }, &measurements)
        warnings += leftOut
        guard !breaks.isEmpty else { return }
        player.pause()
        runner.play(breaks, at: cue) { [weak self] _, failed in
            MainActor.assumeIsolated {
                for f in failed { self?.warnings.append("\(f.breakId): \(f.error)") }
                self?.player.play()
            }
        }
    }
}
