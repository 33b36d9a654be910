// Draws a native layout on the surface: full frame over a native break's frames, or as an L-bar around the content.
import Draw
import Foundation
import Media
import Playback
import Threads
import Timing

/// A `SurfaceLayer` drawing a populated native layout (`NativeLayoutSnapshot`), either over the
/// frames of a native ad break (full frame: background, assets, the ad's video in its media
/// window) or, for a range of content time, as an L-bar: the layout around the content, which
/// keeps playing scaled into the layout's content window.
///
/// An L-bar may carry the ad's video (`videoPath`): its media window then shows the video,
/// decoded and conformed like ad media (`ConformedVideo`), frame by frame from the L-bar's first
/// frame, muted (GMA starts native video muted) while the content keeps its sound.
///
/// The first frame it draws records the ad's impression (`CustomNativeAd.recordImpression()`),
/// at that frame's stream time. Sprites (text, scaled images) are prepared once per output size;
/// per frame the layer only blends them. Runs on the frame-loop thread (asserted: `LoopOwnedLayer`).
public final class NativeLayoutLayer: LoopOwnedLayer, Sendable {
    // Sendable as checked: mutable state is in `state`, under its lock (flags, times), or in
    // `drawing`, a `LoopBound` of the frame loop that draws the layer (sprites, scalers, video).
    /// Where the layout shows.
    public enum Placement: Sendable, Equatable {
        /// Over ad frames while activated (`activate()` … `deactivate()`): a full-frame native break.
        case adFrames
        /// Over content frames whose content time lies in the range: an L-bar.
        case content(from: MediaTime, to: MediaTime)
    }

    /// What is drawn.
    package let snapshot: NativeLayoutSnapshot
    /// Where.
    package let placement: Placement
    /// The ad whose impression the first drawn frame records.
    package let ad: CustomNativeAd?
    /// An L-bar's video (a local path or vetted URL) shown in its media window; nil for none.
    package let videoPath: String?

    /// What the app reads and sets while the frame loop draws.
    private struct State {
        var active = false
        var firstShown: MediaTime?
        var lastShown: MediaTime?
        var shownFrames = 0
        var videoFailure: String?
    }
    private let state = Locked(State())
    /// What the drawing loop keeps from frame to frame.
    private struct Drawing {
        var prepared: (width: Int, height: Int, steps: [Step])?
        var scalers: [Int: FrameScaler] = [:]
        var videos: [Int: ConformedVideo] = [:]
        var videoFailed = false
    }
    /// The frame loop that draws the layer (`LoopOwnedLayer`).
    package let loopOwner: ThreadOwner
    private let drawing: LoopBound<Drawing>
    /// Why the L-bar's video stopped showing (it could not be decoded), if it did.
    package var videoFailure: String? { state.withLock { $0.videoFailure } }

    private enum Step {
        case fill(Draw.PixelRect, DrawColor)
        case sprite(Sprite, x: Int, y: Int)
        case frame(Draw.PixelRect, slot: Int)
        case video(Draw.PixelRect, slot: Int)
    }

    /// A layer drawing `snapshot` at `placement`; `ad`'s impression is recorded on the first frame drawn.
    public init(snapshot: NativeLayoutSnapshot, placement: Placement, ad: CustomNativeAd?, videoPath: String? = nil) {
        self.snapshot = snapshot
        self.placement = placement
        self.ad = ad
        self.videoPath = videoPath
        let owner = ThreadOwner(name: "the frame loop drawing a native layout")
        loopOwner = owner
        drawing = LoopBound(Drawing(), owner: owner, name: "its sprites, scalers and video")
    }

    /// Starts drawing over ad frames (placement `.adFrames`).
    public func activate() { state.withLock { $0.active = true } }
    /// Stops drawing over ad frames.
    public func deactivate() { state.withLock { $0.active = false } }

    /// Stream time of the first frame drawn (when the impression was recorded), if any.
    package var impressionStreamTime: MediaTime? { state.withLock { $0.firstShown } }
    /// Stream times of the first and last frames drawn, if any.
    package var shownRange: (first: MediaTime, last: MediaTime)? {
        state.withLock { s in
            guard let f = s.firstShown, let l = s.lastShown else { return nil }
            return (f, l)
        }
    }
    /// Frames drawn.
    package var framesDrawn: Int { state.withLock { $0.shownFrames } }

    /// True for an L-bar (`.content` placement), whose layout is drawn on content frames.
    public var drawsOnContent: Bool { if case .content = placement { return true } else { return false } }

    /// Full frame: an ad frame while activated. L-bar: a content frame whose content time lies in the placement's range.
    public func isVisible(_ frame: SurfaceFrameInfo) -> Bool {
        switch placement {
        case .adFrames:
            return state.withLock { frame.isAd && $0.active }
        case .content(let from, let to):
            guard !frame.isAd, let t = frame.sourceTime else { return false }
            return t >= from && t < to
        }
    }

    /// Draws the layout scaled to the frame (prepared once per output size); the first frame drawn records the ad's impression.
    public func draw(on canvas: Canvas, _ frame: SurfaceFrameInfo) throws {
        let w = canvas.frame.width, h = canvas.frame.height
        if drawing.value.prepared == nil || drawing.value.prepared?.width != w || drawing.value.prepared?.height != h {
            drawing.value.prepared = (w, h, try prepare(width: w, height: h))
        }
        for step in drawing.value.prepared?.steps ?? [] {
            switch step {
            case .fill(let r, let c): canvas.fill(r, color: c)
            case .sprite(let s, let x, let y): canvas.draw(s, x: x, y: y)
            case .frame(let r, let slot):
                let scaler = self.scaler(slot)
                try canvas.draw(frame: frame.original, in: r, scaler: scaler)
            case .video(let r, let slot):
                try drawVideo(slot: slot, in: r, on: canvas, elapsed: frame.streamTime - (impressionStreamTime ?? frame.streamTime))
            }
        }
        let first = state.withLock { s in
            let first = s.firstShown == nil
            if first { s.firstShown = frame.streamTime }
            s.lastShown = frame.streamTime
            s.shownFrames += 1
            return first
        }
        if first { ad?.recordImpression() }
    }

    private func prepare(width w: Int, height h: Int) throws -> [Step] {
        var steps: [Step] = []
        var fonts: [Bool: Font] = [:]
        func font(_ bold: Bool) throws -> Font {
            if let f = fonts[bold] { return f }
            let f = try Font.dejaVuSans(bold: bold)
            fonts[bold] = f
            return f
        }
        for (i, op) in snapshot.ops.enumerated() {
            switch op {
            case .fill(let r, let c): steps.append(.fill(snapshot.scale(r, toWidth: w, height: h), c))
            case .image(let image, let r):
                let target = snapshot.scale(r, toWidth: w, height: h)
                let scaled = (image.width == target.width && image.height == target.height) ? image : try image.scaled(width: target.width, height: target.height)
                steps.append(.sprite(Sprite(image: scaled), x: target.x, y: target.y))
            case .text(let text, let r, let size, let color, let bold):
                let target = snapshot.scale(r, toWidth: w, height: h)
                var px = max(6, size * h / max(1, snapshot.height))
                let f = try font(bold)
                var mask = try f.render(text, pixelHeight: px)
                // Shrink to fit the width (UILabel's adjustsFontSizeToFitWidth), then cut with an ellipsis.
                while mask.width > target.width && px > 8 { px -= 1; mask = try f.render(text, pixelHeight: px) }
                var shown = text
                while mask.width > target.width && shown.count > 1 {
                    shown.removeLast(shown.hasSuffix("…") ? 2 : 1)
                    shown += "…"
                    mask = try f.render(shown, pixelHeight: px)
                }
                let y = target.y + max(0, (target.height - mask.height) / 2)
                steps.append(.sprite(Sprite(mask: mask, color: color), x: target.x, y: y))
            case .media(let r) where videoPath != nil && drawsOnContent:
                steps.append(.video(snapshot.scale(r, toWidth: w, height: h), slot: i))
            case .media(let r), .content(let r):
                steps.append(.frame(snapshot.scale(r, toWidth: w, height: h), slot: i))
            }
        }
        return steps
    }

    /// Draws the L-bar's video frame `elapsed` after its first frame, conformed to the window's
    /// size; a video that cannot be decoded stops showing (the layout's background stays).
    private func drawVideo(slot: Int, in r: Draw.PixelRect, on canvas: Canvas, elapsed: MediaTime) throws {
        guard let path = videoPath, !drawing.value.videoFailed, r.width >= 2, r.height >= 2 else { return }
        do {
            let video: ConformedVideo
            if let v = drawing.value.videos[slot] { video = v } else {
                let format = OutputFormat(width: r.width & ~1, height: r.height & ~1, frameRate: Rational(25, 1), sampleRate: 48_000, channels: 2)
                video = try ConformedVideo(url: path, format: format, owner: loopOwner)
                drawing.value.videos[slot] = video
            }
            guard let picture = try video.frame(at: elapsed) else { return }
            try canvas.draw(frame: picture, in: r, scaler: scaler(slot))
        } catch {
            drawing.value.videoFailed = true
            drawing.value.videos[slot] = nil
            state.withLock { $0.videoFailure = "\(error)" }
        }
    }

    /// The scaler of window `slot` (made on first use).
    private func scaler(_ slot: Int) -> FrameScaler {
        drawing.withValue { d in
            if let s = d.scalers[slot] { return s }
            let s = FrameScaler()
            d.scalers[slot] = s
            return s
        }
    }
}
