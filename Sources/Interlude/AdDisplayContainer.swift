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
    /// The ad UI drawn on the ads shown here (IMA's default UI, or the app's custom UI for ads
    /// with `isUiDisabled`); the `AdsManager` tells it which ad shows. A container over a surface
    /// installs one there (nil only when DejaVu Sans cannot be loaded); a stitch sets its own.
    public var adUI: AdUILayer?
    /// Where VAST NonLinear overlays are drawn over the content (installed over a surface like
    /// `adUI`; a stitch sets its own).
    public var overlays: AdOverlayLayer?
    /// Slots beside the player filled with each ad's companion of their size (IMA's `companionSlots`).
    public var companionSlots: [CompanionAdSlot]
    /// An L-shaped layout showing the companions beside the shrunk ad picture, when set.
    public var companionLayout: CompanionLBarLayer?

    /// A container over `adContainer`, a player's surface (IMA: the view ads are drawn in).
    public init(adContainer: RenderSurface, companionSlots: [CompanionAdSlot] = []) {
        self.adContainer = adContainer
        self.companionSlots = companionSlots
        videoDisplay = adContainer.player.map { PlayerVideoDisplay(player: $0) }
        overlays = try? AdOverlayLayer()
        if let overlays { adContainer.addLayer(overlays) }
        adUI = try? AdUILayer()
        if let adUI { adContainer.addLayer(adUI) }
    }

    /// A container with an explicit display (a stitch's `SessionVideoDisplay`, or none yet).
    public init(videoDisplay: AdVideoDisplay? = nil, companionSlots: [CompanionAdSlot] = []) {
        self.videoDisplay = videoDisplay
        self.companionSlots = companionSlots
        adContainer = nil
    }
}
