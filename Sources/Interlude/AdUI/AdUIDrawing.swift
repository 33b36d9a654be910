import Draw
import Foundation
import Media
import Threads

/// Turns ad UI elements into sprites and blends them: text rendered with FreeType (DejaVu Sans)
/// and images converted only when the element list changes; unchanged frames only blend.
/// Its fonts and sprites are a `LoopBound` of the frame loop that draws its layer.
final class AdUIDrawing: Sendable {
    /// What the drawing loop keeps: the fonts (FreeType faces) and what the last elements became.
    private struct Drawn {
        let regular: Font, bold: Font
        var lastElements: [AdUIElement] = []
        var placed: [Placed] = []
        var hits: [AdUIHitArea] = []
        var textSprites: [TextKey: Sprite] = [:]
        var imageSprites: [ImageKey: Sprite] = [:]
    }
    private let drawn: LoopBound<Drawn>
    private var regular: Font { drawn.value.regular }
    private var bold: Font { drawn.value.bold }
    private var lastElements: [AdUIElement] { get { drawn.value.lastElements } _modify { yield &drawn.value.lastElements } }
    private var placed: [Placed] { get { drawn.value.placed } _modify { yield &drawn.value.placed } }
    private var hits: [AdUIHitArea] { get { drawn.value.hits } _modify { yield &drawn.value.hits } }
    private var textSprites: [TextKey: Sprite] { get { drawn.value.textSprites } _modify { yield &drawn.value.textSprites } }
    private var imageSprites: [ImageKey: Sprite] { get { drawn.value.imageSprites } _modify { yield &drawn.value.imageSprites } }
    private let builds = Locked(0)

    private enum Placed { case fill(Draw.PixelRect, DrawColor), sprite(Sprite, Int, Int) }
    private struct TextKey: Hashable { var text: String; var style: AdUITextStyle }
    private struct ImageKey: Hashable { var image: AdUIImage; var width: Int; var height: Int }

    /// Loads DejaVu Sans and its bold, for the loop `owner` owns (a layer's `loopOwner`); throws
    /// `DrawError.font` when they are missing.
    init(owner: ThreadOwner) throws {
        drawn = LoopBound(Drawn(regular: try Font.dejaVuSans(), bold: try Font.dejaVuSans(bold: true)), owner: owner, name: "its fonts and sprites")
    }

    /// How many times the element list changed and was rebuilt.
    var rebuilds: Int { builds.withLock { $0 } }

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
