import Draw
import Foundation
import Media
import Playback
import Threads

/// The L-shaped ad layout (`--companions lbar`): on ad frames with companions, the ad picture is
/// shrunk to the top-left three quarters of the output and the companions fill the L around it —
/// a tall or square one centred in the right column, a wide one (at least 3:1) in the bottom band —
/// each scaled to fit, never stretched, on a dark grey ground. Content frames are left as they are.
/// Add it below the other layers: it redraws the picture from the frame as played.
package final class CompanionLBarLayer: LoopOwnedLayer, Sendable {
    private let images = Locked<[AdUIImage]>([])
    private let drawing: AdUIDrawing
    /// The frame loop that draws it (`LoopOwnedLayer`).
    package let loopOwner: ThreadOwner
    private let scaler: LoopBound<FrameScaler>
    /// The ground colour of the L.
    static let ground = DrawColor(r: 32, g: 33, b: 36)

    /// An empty layout; throws `DrawError.font` when DejaVu Sans is missing.
    package init() throws {
        let owner = ThreadOwner(name: "the frame loop drawing companions in an L")
        loopOwner = owner
        drawing = try AdUIDrawing(owner: owner)
        scaler = LoopBound(FrameScaler(), owner: owner, name: "its scaler")
    }

    /// Shows `companions` from the next ad frame on (empty: the ad fills the picture again).
    package func show(_ companions: [FilledCompanion]) {
        images.withLock { $0 = companions.map(\.image) }
    }

    private var current: [AdUIImage] { images.withLock { $0 } }

    /// Whether this is an ad frame with companions to show.
    package func isVisible(_ frame: SurfaceFrameInfo) -> Bool { frame.isAd && !current.isEmpty }

    /// Where the ad picture is on a `width`×`height` output while companions show; nil otherwise
    /// (the ad UI is laid out in it).
    func pictureArea(width: Int, height: Int) -> Draw.PixelRect? {
        current.isEmpty ? nil : Self.layout([], width: width, height: height).video
    }

    /// Where the ad picture and each companion go on a `w`×`h` output.
    package static func layout(_ images: [(width: Int, height: Int)], width w: Int, height h: Int) -> (video: Draw.PixelRect, companions: [Draw.PixelRect?]) {
        let video = Draw.PixelRect(x: 0, y: 0, width: (w * 3 / 4) & ~1, height: (h * 3 / 4) & ~1)
        let right = Draw.PixelRect(x: video.width, y: 0, width: w - video.width, height: video.height)
        let bottom = Draw.PixelRect(x: 0, y: video.height, width: w, height: h - video.height)
        var usedRight = false, usedBottom = false
        let rects = images.map { img -> Draw.PixelRect? in
            let wide = img.width >= 3 * img.height
            let area: Draw.PixelRect
            if wide, !usedBottom { usedBottom = true; area = bottom } else if !wide, !usedRight { usedRight = true; area = right } else { return nil }
            let pad = max(2, h / 60)
            let aw = Double(area.width - 2 * pad), ah = Double(area.height - 2 * pad)
            let scale = min(aw / Double(max(1, img.width)), ah / Double(max(1, img.height)))
            let sw = max(2, Int(Double(img.width) * scale)), sh = max(2, Int(Double(img.height) * scale))
            return Draw.PixelRect(x: area.x + (area.width - sw) / 2, y: area.y + (area.height - sh) / 2, width: sw, height: sh)
        }
        return (video, rects)
    }

    /// Shrinks the ad picture to the top-left and draws the companions around it.
    package func draw(on canvas: Canvas, _ frame: SurfaceFrameInfo) throws {
        let imgs = current
        guard frame.isAd, !imgs.isEmpty else { return }
        let w = canvas.frame.width, h = canvas.frame.height
        let l = Self.layout(imgs.map { ($0.image.width, $0.image.height) }, width: w, height: h)
        canvas.fill(canvas.bounds, color: Self.ground)
        try canvas.draw(frame: frame.original, in: l.video, scaler: scaler.value)
        let elements: [AdUIElement] = zip(imgs, l.companions).compactMap { img, r in r.map { .image(img, $0) } }
        _ = try drawing.draw(elements, on: canvas)
    }
}
