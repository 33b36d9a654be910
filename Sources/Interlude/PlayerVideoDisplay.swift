import Foundation
import Playback
import Timing

/// Ads played through the content's own `Player` and drawn on its surface, as IMA's
/// `IMAAVPlayerVideoDisplay`: the ad takes the surface while content is paused, frame by frame on
/// the player's thread; the manager hears the ad frames it marks (`AdFrameMarks`) on the main
/// queue, and the player's thread never waits for it on a frame.
@MainActor public final class PlayerVideoDisplay: AdVideoDisplay {
    /// The player ads play through.
    public let player: Player
    private var measurements: AdMeasurements

    /// A display over `player`; `threads` for measuring ad media.
    public init(player: Player, threads: Int = 0) {
        self.player = player
        measurements = AdMeasurements(threads: threads)
    }

    /// The player's stream time: the end of the last frame presented.
    public var streamTime: MediaTime { player.streamTime }
    /// The content time of the last content frame the player presented (zero before the first).
    public var contentTime: MediaTime { player.currentTime() }
    /// Where the player has placed content and ads on the stream so far.
    public var timeline: TimelineMap { player.timeline }
    /// True when the player runs on the real-time clock: beacons are fired as they fall due.
    public var firesBeaconsLive: Bool { player.clock == .realTime }

    /// The media at `mediaPath`, opened and measured the first time it is asked for, or its VAST error.
    public func prepareAd(mediaPath: String) throws(AdError) -> AdMedia { try measurements.measure(mediaPath) }

    /// The player records the start of the break at its current stream time, content paused at `contentTime`.
    public func beginBreak(id: String, contentTime: MediaTime) { player.beginBreak(id: id, contentTime: contentTime) }
    /// The player records the end of the current break.
    public func endBreak() { player.endBreak() }
    /// Freezes the ad playing: the player presents no ad frame until `resumeAd()`.
    public func pauseAd() { player.setAdPaused(true) }
    /// Resumes the frozen ad.
    public func resumeAd() { player.setAdPaused(false) }
    /// Ends the ad playing before the player presents its next frame (a skip).
    public func stopAd() { player.stopAd() }

    /// Plays `media` on the player's thread, every frame queued for `onFrame` on the main queue
    /// (a false answer stops the ad at the player's next frame); `completion` runs there once
    /// the ad has ended.
    public func playAd(_ media: AdMedia, position: Int, totalAds: Int,
                       onFrame: @escaping @MainActor (MediaTime, MediaTime) -> Bool,
                       completion: @escaping @MainActor (Result<PlacedAd, Error>) -> Void) {
        play(media, position: position, totalAds: totalAds, marks: nil, onFrame: onFrame, completion: completion)
    }

    /// Only the marked frames are queued for `onFrame` on the main queue.
    public func playAd(_ media: AdMedia, position: Int, totalAds: Int, marks: AdFrameMarks,
                       onFrame: @escaping @MainActor (MediaTime, MediaTime) -> Bool,
                       completion: @escaping @MainActor (Result<PlacedAd, Error>) -> Void) {
        play(media, position: position, totalAds: totalAds, marks: marks, onFrame: onFrame, completion: completion)
    }

    /// The player ends the ad once its next frame is out.
    public func endAdAfterNextFrame() { player.endAdAfterNextFrame() }

    private func play(_ media: AdMedia, position: Int, totalAds: Int, marks: AdFrameMarks?,
                      onFrame: @escaping @MainActor (MediaTime, MediaTime) -> Bool,
                      completion: @escaping @MainActor (Result<PlacedAd, Error>) -> Void) {
        player.playAd(media, position: position, totalAds: totalAds, queue: .main, marks: marks, onFrame: { adTime, streamTime in
            MainActor.assumeIsolated { onFrame(adTime, streamTime) }
        }, completion: { result in
            MainActor.assumeIsolated {
                completion(result.map {
                    $0.placement ?? PlacedAd(mediaFile: media.url, streamTime: $0.streamStart, duration: $0.duration,
                                             mediaDuration: media.duration, podPosition: position, totalAds: totalAds, frames: $0.frames)
                })
            }
        })
    }
}
