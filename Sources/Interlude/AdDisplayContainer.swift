import Foundation
import Playback
import Synchronization
import Timing

/// Where ads show, as IMA's `IMAAdDisplayContainer`: the player's render surface (the ad plays
/// through that surface's player, `PlayerVideoDisplay`), or an explicit video display. Any thread
/// may make and set it; the `AdsManager` reads it from its own queue.
public final class AdDisplayContainer: Sendable {
    private struct Parts {
        var videoDisplay: AdVideoDisplay?
        var adUI: AdUILayer?
        var overlays: AdOverlayLayer?
        var companionSlots: [CompanionAdSlot]
        var companionLayout: CompanionLBarLayer?
    }
    private let parts: Mutex<Parts>

    /// What plays ad media; made from the surface's player when the container was given a surface.
    public var videoDisplay: AdVideoDisplay? {
        get { parts.withLock { $0.videoDisplay } }
        set { parts.withLock { $0.videoDisplay = newValue } }
    }
    /// The surface ads are drawn on, when given one.
    public let adContainer: RenderSurface?
    /// The ad UI drawn on the ads shown here (IMA's default UI, or the app's custom UI for ads
    /// with `isUiDisabled`); the `AdsManager` tells it which ad shows. A container over a surface
    /// installs one there (nil only when DejaVu Sans cannot be loaded); a stitch sets its own.
    public var adUI: AdUILayer? {
        get { parts.withLock { $0.adUI } }
        set { parts.withLock { $0.adUI = newValue } }
    }
    /// Where VAST NonLinear overlays are drawn over the content (installed over a surface like
    /// `adUI`; a stitch sets its own).
    public var overlays: AdOverlayLayer? {
        get { parts.withLock { $0.overlays } }
        set { parts.withLock { $0.overlays = newValue } }
    }
    /// Slots beside the player filled with each ad's companion of their size (IMA's `companionSlots`).
    public var companionSlots: [CompanionAdSlot] {
        get { parts.withLock { $0.companionSlots } }
        set { parts.withLock { $0.companionSlots = newValue } }
    }
    /// An L-shaped layout showing the companions beside the shrunk ad picture, when set.
    public var companionLayout: CompanionLBarLayer? {
        get { parts.withLock { $0.companionLayout } }
        set { parts.withLock { $0.companionLayout = newValue } }
    }

    /// A container over `adContainer`, a player's surface (IMA: the view ads are drawn in).
    public init(adContainer: RenderSurface, companionSlots: [CompanionAdSlot] = []) {
        self.adContainer = adContainer
        let overlays = try? AdOverlayLayer()
        if let overlays { adContainer.addLayer(overlays) }
        let adUI = try? AdUILayer()
        if let adUI { adContainer.addLayer(adUI) }
        parts = Mutex(Parts(videoDisplay: adContainer.player.map { PlayerVideoDisplay(player: $0) }, adUI: adUI,
                            overlays: overlays, companionSlots: companionSlots, companionLayout: nil))
    }

    /// A container with an explicit display (a stitching player's `PlayerVideoDisplay`, an app's
    /// own, or none yet).
    public init(videoDisplay: AdVideoDisplay? = nil, companionSlots: [CompanionAdSlot] = []) {
        adContainer = nil
        parts = Mutex(Parts(videoDisplay: videoDisplay, adUI: nil, overlays: nil, companionSlots: companionSlots, companionLayout: nil))
    }
}
