import Draw
import Foundation
import Playback
import Threads

/// One of the app's own controls over the ad, shaped as the UIKit outlets of IMA's custom-UI guide
/// (`UILabel`, `UIButton`): a frame in output pixels, text, colours and `isHidden`. The app changes
/// it on the main actor (from its `AdsManagerDelegate` callbacks); the surface's subview layer
/// draws the visible ones on ad frames. Thread-safe.
public class AdUIView: @unchecked Sendable {
    // @unchecked Sendable: every stored value is in `look`, under its lock (a class open to
    // subclasses cannot be checked).
    private struct Look {
        var hidden = false, frame: Draw.PixelRect, text = ""
        var textColor = DrawColor.white, background: DrawColor? = DrawColor.black.withAlpha(160)
        var fontSize: Int, z = 0.0
    }
    private let look: Locked<Look>

    /// A view at `frame` (output pixels) with text `fontSize` pixels high (0: 60 % of the frame's height).
    public init(frame: Draw.PixelRect, fontSize: Int = 0) {
        look = Locked(Look(frame: frame, fontSize: fontSize > 0 ? fontSize : max(6, frame.height * 3 / 5)))
    }

    private func locked<T>(_ body: (inout Look) -> T) -> T { look.withLock(body) }

    /// Whether it is hidden (UIView's `hidden`).
    public var isHidden: Bool { get { locked { $0.hidden } } set { locked { $0.hidden = newValue } } }
    /// Where it is drawn, in output pixels.
    public var frame: Draw.PixelRect { get { locked { $0.frame } } set { locked { $0.frame = newValue } } }
    /// Text colour.
    public var textColor: DrawColor { get { locked { $0.textColor } } set { locked { $0.textColor = newValue } } }
    /// The box behind the text; nil for none.
    public var backgroundColor: DrawColor? { get { locked { $0.background } } set { locked { $0.background = newValue } } }
    /// Text height in pixels.
    public var fontSize: Int { get { locked { $0.fontSize } } set { locked { $0.fontSize = max(1, newValue) } } }
    /// Drawing order among the surface's subviews (CALayer's `zPosition`); higher is on top.
    public var zPosition: Double { get { locked { $0.z } } set { locked { $0.z = newValue } } }

    var shownText: String { get { locked { $0.text } } set { locked { $0.text = newValue } } }

    /// What the view draws now; nil when hidden.
    func elements() -> [AdUIElement] {
        locked { v in
            guard !v.hidden else { return [] }
            var out: [AdUIElement] = []
            if let bg = v.background { out.append(.box(v.frame, color: bg)) }
            if !v.text.isEmpty {
                let pad = max(2, (v.frame.height - v.fontSize * 6 / 5) / 2)
                out.append(.text(v.text, x: v.frame.x + pad, y: v.frame.y + pad, anchor: .topLeft,
                                 style: AdUITextStyle(pixelHeight: v.fontSize, color: v.textColor), action: nil))
            }
            return out
        }
    }
}

/// A text label (the guide's `adCountdown`).
public final class AdUILabel: AdUIView, Sendable {
    /// Its text (UILabel's `text`).
    public var text: String? { get { shownText } set { shownText = newValue ?? "" } }
}

/// Control states of a button's title; only `.normal` exists here (UIControlStateNormal).
public enum AdUIControlState: Sendable {
    /// The title shown when the button is not pressed (the only state here).
    case normal
}

/// A button (the guide's `learnMore` and `skipAd`): its title, and in a live window a hit area.
public final class AdUIButton: AdUIView, Sendable {
    /// Sets the title (UIButton's `setTitle(_:for:)`).
    public func setTitle(_ title: String?, for state: AdUIControlState) { shownText = title ?? "" }
    /// The title (UIButton's `title(for:)`).
    public func title(for state: AdUIControlState) -> String? { shownText }
    /// Called when the viewer clicks the button in a live window (the guide's IBAction).
    public var onTouchUpInside: (@MainActor @Sendable () -> Void)? {
        get { action.withLock { $0 } }
        set { action.withLock { $0 = newValue } }
    }
    private let action = Locked<(@MainActor @Sendable () -> Void)?>(nil)
}

/// The app's views added to a surface (`RenderSurface.addSubview`), drawn on ad frames in
/// `zPosition` order (ties: the order added, `bringSubviewToFront` moves one last). Like the
/// guide's views they show whatever the app last set; drawing them only on ad frames keeps the
/// content frames exactly as played.
public final class AdUISubviewsLayer: LoopOwnedLayer, Sendable {
    private struct State {
        var views: [AdUIView] = []
        var hits: [(Draw.PixelRect, AdUIButton)] = []
    }
    private let state = Locked(State())
    private let drawing: AdUIDrawing
    /// The frame loop that draws it (`LoopOwnedLayer`).
    package let loopOwner: ThreadOwner

    /// An empty layer; throws `DrawError.font` when DejaVu Sans is missing.
    public init() throws {
        let owner = ThreadOwner(name: "the frame loop drawing ad UI views")
        loopOwner = owner
        drawing = try AdUIDrawing(owner: owner)
    }

    /// Adds a view on top.
    public func add(_ view: AdUIView) { state.withLock { s in s.views.removeAll { $0 === view }; s.views.append(view) } }
    /// Moves a view to the top.
    public func bringToFront(_ view: AdUIView) { add(view) }

    /// The button drawn at (x, y) on the last ad frame, if any.
    public func button(atX x: Int, y: Int) -> AdUIButton? {
        state.withLock { s in s.hits.last { $0.0.contains(x: x, y: y) }?.1 }
    }

    private var ordered: [AdUIView] {
        state.withLock { s in
            s.views.enumerated().sorted { ($0.element.zPosition, $0.offset) < ($1.element.zPosition, $1.offset) }.map(\.element)
        }
    }

    /// Whether this is an ad frame and any view is shown.
    public func isVisible(_ frame: SurfaceFrameInfo) -> Bool { frame.isAd && ordered.contains { !$0.isHidden } }

    /// Draws the shown views, lowest `zPosition` first.
    public func draw(on canvas: Canvas, _ frame: SurfaceFrameInfo) throws {
        let shown = ordered.filter { !$0.isHidden }
        _ = try drawing.draw(shown.flatMap { $0.elements() }, on: canvas)
        let buttons = shown.compactMap { $0 as? AdUIButton }.map { ($0.frame, $0) }
        state.withLock { $0.hits = buttons }
    }
}

extension RenderSurface {
    /// The layer holding the app's views on this surface, made on first use; nil when DejaVu Sans
    /// cannot be loaded.
    public var adUISubviews: AdUISubviewsLayer? { adUISubviews(existing: false) }

    /// The app's views layer; with `existing`, nil unless one was made already.
    package func adUISubviews(existing: Bool) -> AdUISubviewsLayer? {
        if let known = layers.all.lazy.compactMap({ $0 as? AdUISubviewsLayer }).first { return known }
        guard !existing, let made = try? AdUISubviewsLayer() else { return nil }
        addLayer(made)
        return made
    }

    /// Adds one of the app's views over the video (UIView's `addSubview`).
    public func addSubview(_ view: AdUIView) { adUISubviews?.add(view) }

    /// Puts a view above the others (UIView's `bringSubviewToFront`).
    public func bringSubviewToFront(_ view: AdUIView) { adUISubviews?.bringToFront(view) }
}
