import Foundation
import Playback
import Timing

/// The content player's playhead, as IMA's `IMAContentPlayhead`: the content time now showing.
/// The `AdsManager` reads it from its own queue.
public protocol ContentPlayhead: AnyObject, Sendable {
    /// Content time of the last content frame delivered (seconds for IMA parity: `currentTime`).
    var currentTime: Double { get }
}

/// The playhead of a `Player`, as IMA's `IMAAVPlayerContentPlayhead`: the content time of the last
/// content frame the player presented. With it, the `AdsManager` watches the player itself: it
/// places boundary observers at the cue points, so content pauses exactly on the cue frame.
public final class PlayerContentPlayhead: ContentPlayhead {
    /// The player watched.
    public let player: Player
    /// A playhead of `player`.
    public init(player: Player) { self.player = player }
    /// Seconds of the last content frame presented.
    public var currentTime: Double { player.currentTime().seconds }
}
