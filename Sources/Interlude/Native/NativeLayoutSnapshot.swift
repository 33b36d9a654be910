// A populated native layout frozen for drawing off the main actor.
import Draw
import Foundation
import Media

/// What a populated native view tree draws, in order, frozen so the frame loop can draw it on
/// its own thread: filled boxes, text, images, the media window (the ad's video frame) and the
/// content window (an L-bar's content frame). Made on the main actor from the views.
public struct NativeLayoutSnapshot: Sendable {
    /// One drawing step, in design pixels.
    public enum Op: Sendable {
        /// A filled rectangle.
        case fill(Draw.PixelRect, DrawColor)
        /// A line of text in a rectangle (shrunk to fit its width, centred vertically).
        case text(String, Draw.PixelRect, size: Int, color: DrawColor, bold: Bool)
        /// A picture scaled to fill a rectangle.
        case image(RGBAImage, Draw.PixelRect)
        /// The frame being played (the ad's video) scaled into a rectangle.
        case media(Draw.PixelRect)
        /// The content frame scaled into a rectangle (L-bar).
        case content(Draw.PixelRect)
    }
    /// The design size the ops are in.
    public let width: Int, height: Int
    /// The steps, bottom first.
    public let ops: [Op]

    /// The drawing of `root` (hidden views and their children left out).
    @MainActor public init(_ root: NativeView) {
        width = root.frame.width
        height = root.frame.height
        var ops: [Op] = []
        func walk(_ v: NativeView, origin: (x: Int, y: Int)) {
            guard !v.isHidden else { return }
            let r = Draw.PixelRect(x: origin.x + v.frame.x, y: origin.y + v.frame.y, width: v.frame.width, height: v.frame.height)
            if let bg = v.backgroundColor { ops.append(.fill(r, bg)) }
            switch v {
            case let l as NativeLabel:
                if let t = l.text, !t.isEmpty { ops.append(.text(t, r, size: l.fontSize, color: l.textColor, bold: l.isBold)) }
            case let i as NativeImageView:
                if let image = i.image { ops.append(.image(image, r)) }
            case let m as MediaView:
                if m.mediaContent?.hasVideoContent == true { ops.append(.media(r)) }
            case is ContentWindowView:
                ops.append(.content(r))
            default: break
            }
            for s in v.subviews { walk(s, origin: (r.x, r.y)) }
        }
        walk(root, origin: (-root.frame.x, -root.frame.y))
        self.ops = ops
    }

    /// Whether the layout shows the content (an L-bar).
    package var showsContent: Bool { ops.contains { if case .content = $0 { return true } else { return false } } }

    /// The content window scaled to an output of `w`x`h` (even coordinates), if any.
    package func contentWindow(width w: Int, height h: Int) -> Draw.PixelRect? {
        for op in ops { if case .content(let r) = op { return scale(r, toWidth: w, height: h) } }
        return nil
    }

    /// `r` from design pixels to an output of `w`x`h`, on even coordinates (where chroma lines up).
    package func scale(_ r: Draw.PixelRect, toWidth w: Int, height h: Int) -> Draw.PixelRect {
        func sx(_ v: Int) -> Int { (v * w / max(1, width)) & ~1 }
        func sy(_ v: Int) -> Int { (v * h / max(1, height)) & ~1 }
        let x0 = sx(r.x), y0 = sy(r.y)
        return Draw.PixelRect(x: x0, y: y0, width: max(2, sx(r.x + r.width) - x0), height: max(2, sy(r.y + r.height) - y0))
    }
}
