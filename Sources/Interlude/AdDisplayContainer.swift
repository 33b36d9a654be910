import Foundation
import Playback
import Timing

/// Where ads show, as IMA's `IMAAdDisplayContainer`: the player's render surface (the ad plays
/// through that surface's player, `PlayerVideoDisplay`), or an explicit video display. Any thread
/// may make and set it; the `AdsManager` reads it from its own queue.
public final class AdDisplayContainer: Sendable {
    /// What plays ad media; made from the surface's player when the container was given a surface.
    package var videoDisplay: AdVideoDisplay? { get { _videoDisplay.value } set { _videoDisplay.value = newValue } }
    private let _videoDisplay: Guarded<AdVideoDisplay?>
    /// The surface ads are drawn on, when given one.
    public let adContainer: RenderSurface?
    /// The ad UI drawn on the ads shown here (IMA's default UI, or the app's custom UI for ads
    /// with `isUiDisabled`); the `AdsManager` tells it which ad shows. A container over a surface
    /// installs one there (nil only when DejaVu Sans cannot be loaded); a stitch sets its own.
    package var adUI: AdUILayer? { get { _adUI.value } set { _adUI.value = newValue } }
    private let _adUI = Guarded<AdUILayer?>(nil)
    /// Where VAST NonLinear overlays are drawn over the content (installed over a surface like
    /// `adUI`; a stitch sets its own).
    package var overlays: AdOverlayLayer? { get { _overlays.value } set { _overlays.value = newValue } }
    private let _overlays = Guarded<AdOverlayLayer?>(nil)
    /// Slots beside the player filled with each ad's companion of their size (IMA's `companionSlots`).
    public var companionSlots: [CompanionAdSlot] { get { _companionSlots.value } set { _companionSlots.value = newValue } }
    private let _companionSlots: Guarded<[CompanionAdSlot]>
    /// An L-shaped layout showing the companions beside the shrunk ad picture, when set.
    package var companionLayout: CompanionLBarLayer? { get { _companionLayout.value } set { _companionLayout.value = newValue } }
    private let _companionLayout = Guarded<CompanionLBarLayer?>(nil)

    /// A container over `adContainer`, a player's surface (IMA: the view ads are drawn in).
    public init(adContainer: RenderSurface, companionSlots: [CompanionAdSlot] = []) {
        self.adContainer = adContainer
        _companionSlots = Guarded(companionSlots)
        _videoDisplay = Guarded(adContainer.player.map { PlayerVideoDisplay(player: $0) })
        overlays = try? AdOverlayLayer()
        if let overlays { adContainer.addLayer(overlays) }
        adUI = try? AdUILayer()
        if let adUI { adContainer.addLayer(adUI) }
    }

    /// A container with an explicit display (a stitching player's `PlayerVideoDisplay`, an app's
    /// own, or none yet).
    package init(videoDisplay: AdVideoDisplay? = nil, companionSlots: [CompanionAdSlot] = []) {
        _videoDisplay = Guarded(videoDisplay)
        _companionSlots = Guarded(companionSlots)
        adContainer = nil
    }
}
