import Foundation
import Playback
import Timing

/// The content player's playhead, as IMA's `IMAContentPlayhead`: the content time now showing.
@MainActor public protocol ContentPlayhead: AnyObject {
    /// Content time of the last content frame delivered (seconds for IMA parity: `currentTime`).
    var currentTime: Double { get }
}

/// The engine's playhead: content time is the presentation time of the last content frame written
/// to the output. It conforms to `ContentPlayhead`; the stitcher sets it at each cue and at the end of content.
@MainActor final class EnginePlayhead: ContentPlayhead {
    /// Exact content time of the last content frame out; nil before the first.
    public internal(set) var contentTime: MediaTime?
    /// Stream time of that frame.
    public internal(set) var streamTime: MediaTime = .zero
    /// Makes a playhead at the start.
    public init() {}
    /// Seconds, for IMA parity.
    public var currentTime: Double { contentTime?.seconds ?? 0 }
}


/// The playhead of a `Player`, as IMA's `IMAAVPlayerContentPlayhead`: the content time of the last
/// content frame the player presented. With it, the `AdsManager` watches the player itself: it
/// places boundary observers at the cue points, so content pauses exactly on the cue frame.
@MainActor public final class PlayerContentPlayhead: ContentPlayhead {
    /// The player watched.
    public let player: Player
    /// A playhead of `player`.
    public init(player: Player) { self.player = player }
    /// Seconds of the last content frame presented.
    public var currentTime: Double { player.currentTime().seconds }
}
