import Foundation
import Playback
import Threads
import Timing

/// Ads played through the content's own `Player` and drawn on its surface, as IMA's
/// `IMAAVPlayerVideoDisplay`: the ad takes the surface while content is paused, frame by frame on
/// the player's thread; the manager hears the ad frames it marks (`AdFrameMarks`) on its own
/// queue, and the player's thread never waits for it on a frame (unless the marks say so).
public final class PlayerVideoDisplay: AdVideoDisplay {
    /// The player ads play through.
    public let player: Player
    private let measurements: Locked<AdMeasurements>

    /// A display over `player`; `threads` for measuring ad media.
    public init(player: Player, threads: Int = 0) {
        self.player = player
        measurements = Locked(AdMeasurements(threads: threads))
    }

    /// The player's stream time: the end of the last frame presented.
    package var streamTime: MediaTime { player.streamTime }
    /// The content time of the last content frame the player presented (zero before the first).
    package var contentTime: MediaTime { player.currentTime() }
    /// Where the player has placed content and ads on the stream so far.
    package var timeline: TimelineMap { player.timeline }
    /// True when the player runs on the real-time clock: beacons are fired as they fall due.
    package var firesBeaconsLive: Bool { player.clock == .realTime }

    /// The media at `mediaPath`, opened and measured the first time it is asked for, or its VAST error.
    package func prepareAd(mediaPath: String) throws(AdError) -> AdMedia {
        try measurements.withLock { (m: inout AdMeasurements) throws(AdError) -> AdMedia in try m.measure(mediaPath) }
    }

    /// The player records the start of the break at its current stream time, content paused at `contentTime`.
    package func beginBreak(id: String, contentTime: MediaTime) { player.beginBreak(id: id, contentTime: contentTime) }
    /// The player records the end of the current break.
    package func endBreak() { player.endBreak() }
    /// Freezes the ad playing: the player presents no ad frame until `resumeAd()`.
    package func pauseAd() { player.setAdPaused(true) }
    /// Resumes the frozen ad.
    package func resumeAd() { player.setAdPaused(false) }
    /// Ends the ad playing before the player presents its next frame (a skip).
    package func stopAd() { player.stopAd() }
    /// The player ends the ad once its next frame is out.
    package func endAdAfterNextFrame() { player.endAdAfterNextFrame() }

    /// Plays `media` on the player's thread, the marked frames queued for `onFrame` on `queue`
    /// (a false answer stops the ad at the player's next frame); `completion` runs there once the
    /// ad has ended.
    package func playAd(_ media: AdMedia, position: Int, totalAds: Int, marks: AdFrameMarks?, queue: DispatchQueue,
                       onFrame: @escaping @Sendable (MediaTime, MediaTime) -> Bool,
                       completion: @escaping @Sendable (Result<PlacedAd, Error>) -> Void) {
        player.playAd(media, position: position, totalAds: totalAds, queue: queue, marks: marks, onFrame: onFrame) { result in
            completion(result.map {
                $0.placement ?? PlacedAd(mediaFile: media.url, streamTime: $0.streamStart, duration: $0.duration,
                                         mediaDuration: media.duration, podPosition: position, totalAds: totalAds, frames: $0.frames)
            })
        }
    }
}
