import Draw
import Foundation
import Media
import Threads
import Timing

/// The picture-in-picture window on the surface: the video scaled into a corner over a dimmed
/// background, as a system PiP window floats over the screen it left. It scales
/// `SurfaceFrameInfo.original` — the frame as played, before any layer drew on it — so no ad UI
/// drawn by the layers below appears in the window or in the background (the system PiP window
/// shows none); it must therefore be the top layer (`PictureInPictureController` puts it there).
///
/// Content and ad frames alike are drawn in the window: a break reached during PiP plays in it.
/// Thread use: `isActive` from any thread; drawing on the frame loop (asserted: `LoopOwnedLayer`).
public final class PictureInPictureLayer: LoopOwnedLayer, Sendable {

    /// The corner the window floats in.
    public enum Corner: String, Sendable, CaseIterable {
        /// Top left.
        case topLeft
        /// Top right.
        case topRight
        /// Bottom left.
        case bottomLeft
        /// Bottom right (the default).
        case bottomRight
    }

    /// Where the window sits.
    public let corner: Corner
    /// The window's width as a fraction of the picture's (its height keeps the picture's aspect).
    public let widthFraction: Double
    /// The gap between the window and the picture's edges, as a fraction of the picture's width.
    public let marginFraction: Double
    /// How much the background is dimmed: a black veil of this alpha (0 none, 255 black).
    public let dimAlpha: UInt8

    private let active = Locked(false)
    /// The frame loop that draws the window (`LoopOwnedLayer`).
    package let loopOwner: ThreadOwner
    private let scaler: LoopBound<FrameScaler>

    /// A window in `corner`, `widthFraction` of the picture wide, over a background dimmed by a
    /// black veil of alpha `dimAlpha`.
    public init(corner: Corner = .bottomRight, widthFraction: Double = 0.4, marginFraction: Double = 0.03, dimAlpha: UInt8 = 176) {
        self.corner = corner
        self.widthFraction = min(max(widthFraction, 0.05), 1)
        self.marginFraction = min(max(marginFraction, 0), 0.2)
        self.dimAlpha = dimAlpha
        let owner = ThreadOwner(name: "the frame loop drawing a picture-in-picture window")
        loopOwner = owner
        scaler = LoopBound(FrameScaler(), owner: owner, name: "its scaler")
    }

    /// Whether the window is shown (from the next frame presented).
    package var isActive: Bool {
        get { active.withLock { $0 } }
        set { active.withLock { $0 = newValue } }
    }

    /// The window's rectangle on a `width`×`height` picture (even coordinates and sizes, where the
    /// half-resolution chroma lines up).
    public func windowRect(width: Int, height: Int) -> PixelRect {
        let w = max(2, Int((Double(width) * widthFraction).rounded()) & ~1)
        let h = max(2, (w * height / max(width, 1)) & ~1)
        let m = Int((Double(width) * marginFraction).rounded()) & ~1
        let left = m, right = max(0, (width - w - m) & ~1)
        let top = m, bottom = max(0, (height - h - m) & ~1)
        switch corner {
        case .topLeft: return PixelRect(x: left, y: top, width: w, height: h)
        case .topRight: return PixelRect(x: right, y: top, width: w, height: h)
        case .bottomLeft: return PixelRect(x: left, y: bottom, width: w, height: h)
        case .bottomRight: return PixelRect(x: right, y: bottom, width: w, height: h)
        }
    }

    /// Whether the window is shown (`isActive`), on content and ad frames alike.
    public func isVisible(_ frame: SurfaceFrameInfo) -> Bool { isActive }

    /// Redraws the whole picture from the frame as played: dimmed as the background, and scaled into the bordered window.
    public func draw(on canvas: Canvas, _ frame: SurfaceFrameInfo) throws {
        let bounds = canvas.bounds
        // the background: the picture as played (nothing the layers below drew), dimmed
        try canvas.draw(frame: frame.original, in: bounds, scaler: scaler.value)
        canvas.fill(bounds, color: DrawColor.black.withAlpha(dimAlpha))
        let rect = windowRect(width: bounds.width, height: bounds.height)
        PictureInPictureLayer.drawBorder(around: rect, on: canvas)
        try canvas.draw(frame: frame.original, in: rect, scaler: scaler.value)
    }

    /// A 2-pixel light frame just outside `rect`, so that a window stands out from what is behind it.
    package static func drawBorder(around rect: PixelRect, on canvas: Canvas, color: DrawColor = DrawColor(r: 224, g: 224, b: 224)) {
        canvas.fill(PixelRect(x: rect.x - 2, y: rect.y - 2, width: rect.width + 4, height: 2), color: color)
        canvas.fill(PixelRect(x: rect.x - 2, y: rect.y + rect.height, width: rect.width + 4, height: 2), color: color)
        canvas.fill(PixelRect(x: rect.x - 2, y: rect.y, width: 2, height: rect.height), color: color)
        canvas.fill(PixelRect(x: rect.x + rect.width, y: rect.y, width: 2, height: rect.height), color: color)
    }

    /// The window is drawn on content frames too.
    public var drawsOnContent: Bool { true }
    /// Nothing is drawn over the PiP window: layers added while it is active go under it.
    public var staysOnTop: Bool { true }
}
