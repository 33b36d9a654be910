import Foundation
import Playback

/// Picture-in-picture for a `Player`, as AVKit's `AVPictureInPictureController`: while active,
/// what the player's surface shows is the video scaled into a small window in a corner over a
/// dimmed background (`PictureInPictureLayer`), with no ad UI in it; stopping restores full size.
/// Ads that play through the same player (a break reached during PiP) play inside the window.
///
/// Changes take effect from the next frame the player presents. The delegate hears will/did
/// start/stop; set it to a `PictureInPictureProxy` so that the `AdsManager` hears them too.
@MainActor public final class PictureInPictureController {
    /// The player whose surface shows the window.
    public let player: Player
    /// Hears start and stop (IMA's apps set a `PictureInPictureProxy` here).
    public weak var delegate: PictureInPictureControllerDelegate?
    /// The window drawn on the player's surface while active.
    public let layer: PictureInPictureLayer
    /// Whether picture-in-picture is active.
    public private(set) var isPictureInPictureActive = false

    /// Whether the platform supports picture-in-picture (always, on a render surface).
    public static var isPictureInPictureSupported: Bool { true }

    /// Whether picture-in-picture can start now: the player could open its content.
    public var isPictureInPicturePossible: Bool { player.status == .readyToPlay }

    /// A controller for `player` (AVKit: `init(playerLayer:)`); `layer` sets the window's corner,
    /// size and dimming.
    public init(player: Player, layer: PictureInPictureLayer = PictureInPictureLayer()) {
        self.player = player
        self.layer = layer
    }

    /// Why picture-in-picture could not start.
    public struct StartFailure: Error, Sendable, CustomStringConvertible {
        /// One line.
        public var description: String
    }

    /// Enters picture-in-picture: will-start, the window on top of the surface's layers,
    /// did-start. Nothing happens when already active.
    public func startPictureInPicture() {
        guard !isPictureInPictureActive else { return }
        guard isPictureInPicturePossible else {
            delegate?.pictureInPictureController(self, failedToStartPictureInPictureWithError:
                StartFailure(description: "the player has no content to show (\(player.error.map { "\($0)" } ?? "not ready"))"))
            return
        }
        delegate?.pictureInPictureControllerWillStartPictureInPicture(self)
        // on top of every layer, so that what they draw (ad UI) is left out of the window
        player.surface.layers.remove(layer)
        player.surface.addLayer(layer)
        layer.isActive = true
        isPictureInPictureActive = true
        delegate?.pictureInPictureControllerDidStartPictureInPicture(self)
    }

    /// Leaves picture-in-picture: will-stop, full size again, did-stop. Nothing happens when not active.
    public func stopPictureInPicture() {
        guard isPictureInPictureActive else { return }
        delegate?.pictureInPictureControllerWillStopPictureInPicture(self)
        layer.isActive = false
        player.surface.layers.remove(layer)
        isPictureInPictureActive = false
        delegate?.pictureInPictureControllerDidStopPictureInPicture(self)
    }
}
