import Ads
import Draw
import Foundation
import Playback
import Threads
import Timing

/// A VAST NonLinear (overlay) ad scheduled over the content: its decoded static image, its size
/// as VAST gives it, and the content-time window it shows in (from its break's cue for
/// `minSuggestedDuration`).
public struct ScheduledOverlay: Sendable {
    /// The ad's id.
    package var adId: String
    /// The break it came from.
    package var breakId: String
    /// The image (decoded once by FFmpeg).
    package var image: AdUIImage
    /// Width and height in pixels as VAST declares them (the image's own size when it does not).
    package var width: Int, height: Int
    /// Content time of its first frame.
    package var contentStart: MediaTime
    /// Content time where it is gone.
    package var contentEnd: MediaTime
    /// `NonLinearClickThrough`: where a click on it leads (nil: nowhere).
    package var clickThrough: URLTemplate? = nil
    /// NonLinearClickTracking fired on a click: the wrappers', then the InLine NonLinear's.
    package var clickTracking: [URLTemplate] = []

    /// Where it is drawn on a `frameWidth`×`frameHeight` picture: at its VAST size, scaled down
    /// to fit when larger than 90 % of the width or a third of the height, centred at the bottom
    /// with a margin of 1/20 of the height (where IMA puts overlays).
    package func rect(frameWidth: Int, frameHeight: Int) -> Draw.PixelRect {
        let maxW = Double(frameWidth) * 0.9, maxH = Double(frameHeight) / 3
        let scale = min(1, maxW / Double(max(1, width)), maxH / Double(max(1, height)))
        let w = max(2, Int(Double(width) * scale)), h = max(2, Int(Double(height) * scale))
        return Draw.PixelRect(x: (frameWidth - w) / 2, y: frameHeight - frameHeight / 20 - h, width: w, height: h)
    }
}

/// VAST NonLinear overlays drawn over content frames while the content plays on: each from its
/// cue's content time for its duration, never on ad frames. Its `drawsOnContent` is true only
/// when overlays are scheduled or expected (a stitch whose ad response has some), so a stitch
/// without them keeps smart rendering.
package final class AdOverlayLayer: LoopOwnedLayer, Sendable {
    private struct State {
        var overlays: [ScheduledOverlay] = []
        var expected = false
        var hits: [(overlay: ScheduledOverlay, rect: Draw.PixelRect)] = []
    }
    private let state = Locked(State())
    private let drawing: AdUIDrawing
    /// The frame loop that draws it (`LoopOwnedLayer`).
    package let loopOwner: ThreadOwner

    /// An empty layer; throws `DrawError.font` when DejaVu Sans is missing.
    package init() throws {
        let owner = ThreadOwner(name: "the frame loop drawing ad overlays")
        loopOwner = owner
        drawing = try AdUIDrawing(owner: owner)
    }

    /// Declares that overlays will come (before a stitch opens its output).
    var expectsOverlays: Bool {
        get { state.withLock { $0.expected } }
        set { state.withLock { $0.expected = newValue } }
    }

    /// Schedules an overlay.
    package func add(_ overlay: ScheduledOverlay) { state.withLock { $0.overlays.append(overlay) } }

    /// Every overlay scheduled so far.
    package var scheduled: [ScheduledOverlay] { state.withLock { $0.overlays } }

    /// True while an overlay is expected or scheduled: overlays draw on content frames, so a stitch re-encodes its content.
    package var drawsOnContent: Bool { state.withLock { $0.expected || !$0.overlays.isEmpty } }

    private func showing(_ frame: SurfaceFrameInfo) -> [ScheduledOverlay] {
        guard !frame.isAd, let t = frame.sourceTime else { return [] }
        return scheduled.filter { t >= $0.contentStart && t < $0.contentEnd }
    }

    /// The overlay drawn at output pixel (x, y) on the last frame (nil when none was drawn
    /// there, or the last frame had none: an ad frame, or content outside every overlay's window).
    package func overlay(atX x: Int, y: Int) -> ScheduledOverlay? {
        state.withLock { s in s.hits.last { $0.rect.contains(x: x, y: y) }?.overlay }
    }

    /// Whether an overlay is shown on this content frame (never on ad frames).
    package func isVisible(_ frame: SurfaceFrameInfo) -> Bool {
        let visible = !showing(frame).isEmpty
        if !visible { state.withLock { $0.hits = [] } }
        return visible
    }

    /// Draws each overlay shown at the frame's content time, centred at the bottom.
    package func draw(on canvas: Canvas, _ frame: SurfaceFrameInfo) throws {
        let w = canvas.frame.width, h = canvas.frame.height
        let placed = showing(frame).map { ($0, $0.rect(frameWidth: w, frameHeight: h)) }
        _ = try drawing.draw(placed.map { .image($0.0.image, $0.1) }, on: canvas)
        state.withLock { s in s.hits = placed.map { (overlay: $0.0, rect: $0.1) } }
    }
}
