import Draw
import Foundation
import Media
import Threads
import Timing

/// What a layer is told about the frame it may draw on.
public struct SurfaceFrameInfo {
    /// Output frame number.
    public var index: Int64
    /// Stream time of the frame (its start).
    public var streamTime: MediaTime
    /// Whether the frame is an ad frame (else content).
    public var isAd: Bool
    /// The source frame's own time: content time on content frames, time from the ad's start on
    /// ad frames.
    public var sourceTime: MediaTime?
    /// The video frame as played, before any layer drew on it (for layers that redraw the whole
    /// picture, e.g. a picture-in-picture window, so that what layers below drew is not scaled in).
    public var original: Frame
}

/// A layer drawn over (or around) the video: ad UI, an overlay, a picture-in-picture window, a
/// native layout, and optionally audio mixed into the program (a double-box ad's sound).
///
/// The same layers work on every output path: the player's `RenderSurface` (window, `play -o`)
/// and a stitching player's (`Player(stitching:layers:)`). Layers are asked per frame but should change their
/// drawing only a few times a second (prepare `Sprite`s when it changes, blend them per frame).
/// They are called on the frame-loop thread, in the order they were added.
public protocol SurfaceLayer: AnyObject {
    /// Whether the layer draws anything on this frame.
    func isVisible(_ frame: SurfaceFrameInfo) -> Bool
    /// Draws on `canvas` (a writable yuv420p copy of the frame at the output size).
    func draw(on canvas: Canvas, _ frame: SurfaceFrameInfo) throws
    /// Mixes into the program audio `count` samples per channel (planar float at the output rate)
    /// starting at stream sample `firstSample`. Default: nothing.
    func mixAudio(_ channels: inout [[Float]], count: Int, firstSample: Int64) throws
    /// Whether the layer may draw on content frames (an overlay, PiP): a stitch then re-encodes
    /// the content instead of copying its packets. Default: false (ad frames only).
    var drawsOnContent: Bool { get }
    /// Whether `mixAudio` may change the program's sound: a smart-rendered stitch then encodes
    /// the content's audio instead of copying its AAC packets. Default: false (no sound).
    var mixesAudio: Bool { get }
    /// Whether the layer stays above layers added after it (a picture-in-picture window, which
    /// nothing may draw over). Default: false.
    var staysOnTop: Bool { get }
}

extension SurfaceLayer {
    /// Mixes nothing: the layer has no sound.
    public func mixAudio(_ channels: inout [[Float]], count: Int, firstSample: Int64) throws {}
    /// False: the layer draws on ad frames only.
    public var drawsOnContent: Bool { false }
    /// False: the layer mixes nothing into the sound.
    public var mixesAudio: Bool { false }
    /// False: layers added later may draw over it.
    public var staysOnTop: Bool { false }
}

/// A layer with state that only the frame loop drawing it may touch (its sprites, scalers,
/// decoders, the ad it shows): that state is a `LoopBound` of `loopOwner`, which follows the
/// owner of the loop whose surface the layer is put on (`LayerStack.add`), so a debug build stops
/// at the first touch from another thread.
package protocol LoopOwnedLayer: SurfaceLayer {
    /// The owner of the layer's drawing state; follows the frame loop it is drawn by.
    var loopOwner: ThreadOwner { get }
}

/// The layers of one output path, applied to each frame and each audio chunk. Thread use: `add`
/// from any thread; `compose`/`mix` from the frame loop.
package final class LayerStack: Sendable {
    private let layers = Locked<[SurfaceLayer]>([])
    /// The frame loop that composes the stack (nil: whoever calls `compose`, as in a test).
    package let owner: ThreadOwner?

    /// An empty stack composed by the loop `owner` owns.
    package init(owner: ThreadOwner? = nil) { self.owner = owner }

    /// Adds a layer over those already there, but under any that stay on top. A layer with loop
    /// state (`LoopOwnedLayer`) follows the stack's loop from now on.
    package func add(_ layer: SurfaceLayer) {
        if let owner, let owned = layer as? LoopOwnedLayer { owned.loopOwner.follow(owner) }
        layers.withLock { layers in
            if layer.staysOnTop { layers.append(layer); return }
            let index = layers.firstIndex { $0.staysOnTop } ?? layers.endIndex
            layers.insert(layer, at: index)
        }
    }

    /// Removes a layer.
    package func remove(_ layer: SurfaceLayer) { layers.withLock { layers in layers.removeAll { $0 === layer } } }

    /// The layers, bottom first.
    package var all: [SurfaceLayer] { layers.withLock { $0 } }

    /// Whether any layer may draw on content frames.
    package var drawsOnContent: Bool { all.contains { $0.drawsOnContent } }

    /// Whether any layer may mix into the sound.
    package var mixesAudio: Bool { all.contains { $0.mixesAudio } }

    /// `frame` with every visible layer drawn on a writable copy; `frame` itself when none is visible.
    package func compose(_ frame: Frame, index: Int64, streamTime: MediaTime, isAd: Bool, sourceTime: MediaTime?) throws -> Frame {
        let current = all
        guard !current.isEmpty else { return frame }
        let info = SurfaceFrameInfo(index: index, streamTime: streamTime, isAd: isAd, sourceTime: sourceTime, original: frame)
        let visible = current.filter { $0.isVisible(info) }
        guard !visible.isEmpty else { return frame }
        let shown = try frame.writableCopy()
        let canvas = try Canvas(frame: shown)
        for l in visible { try l.draw(on: canvas, info) }
        return shown
    }

    /// Lets every layer mix into the audio chunk.
    package func mix(_ channels: inout [[Float]], count: Int, firstSample: Int64) throws {
        for l in all { try l.mixAudio(&channels, count: count, firstSample: firstSample) }
    }
}
