import Foundation
import Timing

/// The content a player plays, as AVFoundation's `AVPlayerItem`: its location, duration, and the
/// notifications the player posts about it.
public final class PlayerItem: Sendable {
    /// The content's location (a path or a URL FFmpeg can read).
    public let url: URL
    /// The content's duration as its container declares it.
    public let duration: MediaTime

    /// Posted (object: the item) when the last content frame has been presented (in real time,
    /// once it has been shown for its duration), as `AVPlayerItemDidPlayToEndTime`. It is posted from the player's thread: register the
    /// observer with a queue (`.main`) to run there; the player waits for it.
    public static let didPlayToEndTimeNotification = Notification.Name("InterludePlayerItemDidPlayToEndTime")
    /// Posted (object: the item) when playback jumped: a seek completed. `userInfo["time"]` holds
    /// the target `MediaTime`, as `AVPlayerItemTimeJumped`.
    public static let timeJumpedNotification = Notification.Name("InterludePlayerItemTimeJumped")
    /// Posted (object: the item) by a stitching player when the stitch failed (encoding or muxing
    /// failed, or the stitch stalled: `Player.stallTimeout`), as `AVPlayerItemFailedToPlayToEndTime`;
    /// `userInfo[PlayerItem.errorKey]` holds the error, which `close()` throws too. Posted once,
    /// instead of `didPlayToEndTimeNotification` (or after it, when the stitch stalls while
    /// post-rolls play).
    /// Posted from the player's thread, like the others.
    public static let failedToPlayToEndTimeNotification = Notification.Name("InterludePlayerItemFailedToPlayToEndTime")
    /// The `userInfo` key of the error in `failedToPlayToEndTimeNotification`
    /// (`AVPlayerItemFailedToPlayToEndTimeErrorKey`).
    public static let errorKey = "error"

    init(url: URL, duration: MediaTime) {
        self.url = url
        self.duration = duration
    }
}

extension Notification.Name {
    /// `PlayerItem.didPlayToEndTimeNotification`, spelled as AVFoundation's constant.
    public static let PlayerItemDidPlayToEndTime = PlayerItem.didPlayToEndTimeNotification
    /// `PlayerItem.timeJumpedNotification`, spelled as AVFoundation's constant.
    public static let PlayerItemTimeJumped = PlayerItem.timeJumpedNotification
    /// `PlayerItem.failedToPlayToEndTimeNotification`, spelled as AVFoundation's constant.
    public static let PlayerItemFailedToPlayToEndTime = PlayerItem.failedToPlayToEndTimeNotification
}
