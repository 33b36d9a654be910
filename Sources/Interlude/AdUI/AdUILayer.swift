import Draw
import Foundation
import Media
import Playback
import Threads
import Timing

/// A button drawn by the ad UI, where a click in a live window lands.
package struct AdUIHitArea: Sendable, Equatable {
    /// Where it is drawn, in output pixels.
    package var rect: Draw.PixelRect
    /// What a click on it does.
    package var action: AdUIAction
}

/// The ad UI as a `SurfaceLayer`: on each ad frame it asks the renderer the ad calls for (IMA's
/// default UI, or the app's custom UI when the ad's `isUiDisabled` is true) for that frame's
/// elements and blends them. Text is rendered with FreeType into sprites only when the elements
/// change (once a second at most for countdowns); unchanged frames only blend. Never visible on
/// content frames.
///
/// The `AdsManager` tells it which ad is showing (`shown`) before the ad's first frame, through
/// the `AdDisplayContainer.adUI` it is installed in.
package final class AdUILayer: LoopOwnedLayer, Sendable {
    private struct Settings {
        var shown: ShownAd?
        var defaultUI: DefaultAdUI?
        var customUI: (any AdUIRenderer)?
        var hitAreas: [AdUIHitArea] = []
        weak var layout: CompanionLBarLayer?
    }
    private let settings: Locked<Settings>

    private let drawing: AdUIDrawing
    /// The frame loop that draws it (`LoopOwnedLayer`).
    package let loopOwner: ThreadOwner

    /// A layer drawing `defaultUI` on ads that keep IMA's UI (nil: none) and `customUI` on ads
    /// whose `isUiDisabled` is true (nil: none, the app draws its own). Throws `DrawError.font`
    /// when DejaVu Sans (Debian `fonts-dejavu-core`) cannot be loaded.
    package init(defaultUI: DefaultAdUI? = DefaultAdUI(), customUI: (any AdUIRenderer)? = nil) throws {
        let owner = ThreadOwner(name: "the frame loop drawing an ad UI")
        loopOwner = owner
        drawing = try AdUIDrawing(owner: owner)
        settings = Locked(Settings(defaultUI: defaultUI, customUI: customUI))
    }

    private func locked<T>(_ body: (inout Settings) -> T) -> T { settings.withLock(body) }

    /// The ad showing now (set by the `AdsManager`), nil between ads.
    package var shown: ShownAd? {
        get { locked { $0.shown } }
        set { locked { s in s.shown = newValue; if newValue == nil { s.hitAreas = [] } } }
    }
    /// IMA's default UI, drawn on ads that are not `isUiDisabled`; nil draws nothing on them.
    package var defaultUI: DefaultAdUI? {
        get { locked { $0.defaultUI } }
        set { locked { $0.defaultUI = newValue } }
    }
    /// The app's UI, drawn on ads whose `isUiDisabled` is true; nil draws nothing on them.
    package var customUI: (any AdUIRenderer)? {
        get { locked { $0.customUI } }
        set { locked { $0.customUI = newValue } }
    }
    /// An L-shaped companion layout below this layer: while it shows, the UI is laid out in the
    /// shrunk ad picture (its top-left part).
    package var companionLayout: CompanionLBarLayer? {
        get { locked { $0.layout } }
        set { locked { $0.layout = newValue } }
    }
    /// The buttons on the last ad frame drawn (empty between ads).
    package var hitAreas: [AdUIHitArea] { locked { $0.hitAreas } }
    /// How many times the drawing was rebuilt (text rendered, sprites made) so far.
    package var rebuilds: Int { drawing.rebuilds }

    /// The action of the button at (x, y), if any.
    package func action(atX x: Int, y: Int) -> AdUIAction? {
        hitAreas.last { $0.rect.contains(x: x, y: y) }?.action
    }

    private func renderer(for shown: ShownAd) -> (any AdUIRenderer)? {
        locked { shown.ad.isUiDisabled ? $0.customUI : $0.defaultUI }
    }

    /// Whether this frame is an ad frame with a UI to draw.
    package func isVisible(_ frame: SurfaceFrameInfo) -> Bool {
        guard frame.isAd, frame.sourceTime != nil, let s = shown else { return false }
        return renderer(for: s) != nil
    }

    /// Draws the UI's elements for the ad's exact time at this frame.
    package func draw(on canvas: Canvas, _ frame: SurfaceFrameInfo) throws {
        guard frame.isAd, let t = frame.sourceTime, let s = shown, let r = renderer(for: s) else { return }
        let area = companionLayout?.pictureArea(width: canvas.frame.width, height: canvas.frame.height)
        let context = AdUIContext(shown: s, adTime: t, width: area?.width ?? canvas.frame.width, height: area?.height ?? canvas.frame.height)
        let hits = try drawing.draw(r.elements(for: context), on: canvas)
        locked { $0.hitAreas = hits }
    }
}
