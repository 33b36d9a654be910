import Draw
import Foundation
import Media
import Threads

/// Turns ad UI elements into sprites and blends them: text rendered with FreeType (DejaVu Sans)
/// and images converted only when the element list changes; unchanged frames only blend.
/// Used by one frame-loop thread at a time.
final class AdUIDrawing: @unchecked Sendable {
    // @unchecked Sendable: used by one frame-loop thread; `builds` is a `Locked`.
    private let regular: Font, bold: Font
    private var lastElements: [AdUIElement] = []
    private var placed: [Placed] = []
    private var hits: [AdUIHitArea] = []
    private var textSprites: [TextKey: Sprite] = [:]
    private var imageSprites: [ImageKey: Sprite] = [:]
    private let builds = Locked(0)

    private enum Placed { case fill(Draw.PixelRect, DrawColor), sprite(Sprite, Int, Int) }
    private struct TextKey: Hashable { var text: String; var style: AdUITextStyle }
    private struct ImageKey: Hashable { var image: AdUIImage; var width: Int; var height: Int }

    /// Loads DejaVu Sans and its bold; throws `DrawError.font` when they are missing.
    init() throws {
        regular = try Font.dejaVuSans()
        bold = try Font.dejaVuSans(bold: true)
    }

    /// How many times the element list changed and was rebuilt.
    var rebuilds: Int { builds.withLock { $0 } }

    /// The height of a line of text at `pixelHeight` (what a text element's sprite measures).
    func lineHeight(_ pixelHeight: Int) throws -> Int { try regular.render(" ", pixelHeight: pixelHeight).height }

    /// Draws `elements` on `canvas` (rebuilding the sprites when they changed); the buttons drawn.
    func draw(_ elements: [AdUIElement], on canvas: Canvas) throws -> [AdUIHitArea] {
        if elements != lastElements { try rebuild(elements) }
        for p in placed {
            switch p {
            case .fill(let rect, let color): canvas.fill(rect, color: color)
            case .sprite(let sprite, let x, let y): canvas.draw(sprite, x: x, y: y)
            }
        }
        return hits
    }

    private func rebuild(_ elements: [AdUIElement]) throws {
        var texts: [TextKey: Sprite] = [:], images: [ImageKey: Sprite] = [:]
        var out: [Placed] = [], buttons: [AdUIHitArea] = []
        for e in elements {
            switch e {
            case let .text(string, x, y, anchor, style, action):
                let key = TextKey(text: string, style: style)
                let sprite: Sprite
                if let known = texts[key] ?? textSprites[key] { sprite = known } else {
                    let mask = try (style.bold ? bold : regular).render(string, pixelHeight: style.pixelHeight)
                    sprite = Sprite(mask: mask, color: style.color)
                }
                texts[key] = sprite
                let w = sprite.width + 2 * style.padding, h = sprite.height + 2 * style.padding
                let left = anchor == .topLeft || anchor == .bottomLeft ? x : x - w
                let top = anchor == .topLeft || anchor == .topRight ? y : y - h
                let box = Draw.PixelRect(x: left & ~1, y: top & ~1, width: w, height: h)
                if let bg = style.background { out.append(.fill(box, bg)) }
                out.append(.sprite(sprite, box.x + style.padding, box.y + style.padding))
                if let action { buttons.append(AdUIHitArea(rect: box, action: action)) }
            case let .box(rect, color):
                out.append(.fill(rect, color))
            case let .image(image, rect):
                guard rect.width > 0, rect.height > 0 else { continue }
                let key = ImageKey(image: image, width: rect.width, height: rect.height)
                let sprite: Sprite
                if let known = images[key] ?? imageSprites[key] { sprite = known } else {
                    let pixels = (image.image.width == rect.width && image.image.height == rect.height)
                        ? image.image : try image.image.scaled(width: rect.width, height: rect.height)
                    sprite = Sprite(image: pixels)
                }
                images[key] = sprite
                out.append(.sprite(sprite, rect.x, rect.y))
            }
        }
        textSprites = texts
        imageSprites = images
        placed = out
        hits = buttons
        lastElements = elements
        builds.withLock { $0 += 1 }
    }
}
