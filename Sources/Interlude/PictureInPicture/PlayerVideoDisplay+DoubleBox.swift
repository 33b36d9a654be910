import Foundation
import Playback
import Timing

/// Double boxes on the live player: the break's `DoubleBoxLayer` goes on the player's surface and
/// content plays on under it (the manager paused the player at the cue; it resumes once the first
/// ad is queued). The layer hands its frame and end callbacks to `RenderSurface.afterPresenting`,
/// so they run on the player's thread after each frame is out, outside the surface's lock, and
/// reach the manager's queue from there as the player's own ad frames do. Pausing the ad (the viewer's
/// pause, the background) holds the content, and the ad drawn on it, until it resumes.
extension PlayerVideoDisplay: DoubleBoxCapableDisplay {
    /// Puts the break's `DoubleBoxLayer` on the player's surface before the first ad; throws (code 1201) when content
    /// packets are copied or the content ends before the pod would.
    func beginDoubleBox(id: String, contentTime: MediaTime, style: DoubleBoxStyle, podDuration: MediaTime) throws(AdError) -> DoubleBoxRun {
        let duration = player.currentItem?.duration ?? .zero
        guard !player.copiesContent else {
            throw AdError(type: .adPlayingFailed, code: 1201,
                          message: "double-box break \(id) needs the content re-encoded, but its packets are copied (--smart on; use --smart auto or off)")
        }
        guard !player.contentEnded, contentTime + podDuration <= duration else {
            throw AdError(type: .adPlayingFailed, code: 1201,
                          message: "double-box break \(id) lasts \(podDuration.seconds) s but the content ends at \(duration.seconds) s")
        }
        let player = self.player
        let surface = player.surface
        let layer = DoubleBoxLayer(breakId: id, cue: contentTime, style: style)
        layer.beginStreaming(format: surface.format)
        layer.deferCall = { [weak surface] body in surface?.afterPresenting(body) }
        // the content ending under the break (a pod a frame longer than the content) ends it, so
        // the manager is not left waiting for frames that never come; run by the player's thread
        // as it posts the end
        let held = WeakLayer(layer)
        let ended = NotificationCenter.default.addObserver(forName: PlayerItem.didPlayToEndTimeNotification, object: player.currentItem,
                                                           queue: nil) { [weak surface] _ in
            guard let layer = held.layer, let surface else { return }
            layer.endNow(frameIndex: surface.presentedFrames, streamTime: surface.streamTime)
        }
        let token = ObserverToken(ended)
        return DoubleBoxRun(layer: layer, period: surface.format.frameDuration, beforeFirstAd: {
            surface.addLayer(layer)
            player.setDoubleBoxActive(true)   // pausing the ad now holds the content it is drawn over
            player.play()
        }, finish: { layer in
            NotificationCenter.default.removeObserver(token.observer)
            surface.layers.remove(layer)
            player.setDoubleBoxActive(false)
            guard let p = layer.placement else { return }
            player.recordOverlappingBreak(.init(id: layer.breakId, contentTime: p.contentTime, streamStart: p.streamTime,
                                                streamEnd: surface.streamTime, overlapsContent: true),
                                          packaged: layer.packagedBreak)   // a stitch: HLS date ranges, MP4 chapters
        })
    }
}

/// A notification observer handed between closures.
private final class ObserverToken: @unchecked Sendable {
    // @unchecked Sendable: immutable; only passed to NotificationCenter.removeObserver.
    let observer: NSObjectProtocol
    init(_ observer: NSObjectProtocol) { self.observer = observer }
}

/// The layer, for the end-of-content observer (run while the frame loop waits for it).
private final class WeakLayer: @unchecked Sendable {
    // @unchecked Sendable: touched only by the frame loop or while it waits (the end post).
    weak var layer: DoubleBoxLayer?
    init(_ layer: DoubleBoxLayer) { self.layer = layer }
}
