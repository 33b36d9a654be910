import Foundation
import Playback
import Timing

/// Where ads show, as IMA's `IMAAdDisplayContainer`: the player's render surface (the ad plays
/// through that surface's player, `PlayerVideoDisplay`), or an explicit video display (a stitch's
/// `SessionVideoDisplay`).
@MainActor public final class AdDisplayContainer {
    /// What plays ad media; made from the surface's player when the container was given a surface.
    public var videoDisplay: AdVideoDisplay?
    /// The surface ads are drawn on, when given one.
    public let adContainer: RenderSurface?

    /// A container over `adContainer`, a player's surface (IMA: the view ads are drawn in).
    public init(adContainer: RenderSurface) {
        self.adContainer = adContainer
        videoDisplay = adContainer.player.map { PlayerVideoDisplay(player: $0) }
    }

    /// A container with an explicit display (a stitch's `SessionVideoDisplay`, or none yet).
    public init(videoDisplay: AdVideoDisplay? = nil) {
        self.videoDisplay = videoDisplay
        adContainer = nil
    }
}
