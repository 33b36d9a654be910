import Foundation
import Media
import Timing

/// What one ad played through the player put on the stream.
package struct AdPlayback: Sendable {
    /// Stream time of its first frame.
    package var streamStart: MediaTime
    /// Output frames presented.
    package var frames: Int64
    /// Stream time it occupied.
    package var duration: MediaTime
    /// Whether it was stopped before its end (skipped or discarded).
    package var stoppedEarly: Bool
    /// A decode error that ended it after some frames had been shown.
    package var error: Error?
    /// A stitch's full account of the ad (its loudness, transcode cache use, conform time); nil
    /// on a player presenting frames.
    package var placement: PlacedAd? = nil
}

extension Player {
    /// Plays ad media at `url` through this player and its surface, as soon as possible (content
    /// should be paused: the ad takes the surface while it plays). `onFrame(adTime, streamTime)` is
    /// queued on `queue` (a serial queue) for each ad frame presented; the loop never waits for it:
    /// returning false stops the ad before the loop's next frame after the answer, as `stopAd`.
    /// `completion` runs once on `queue` at the end, after every `onFrame` of the ad, and the loop
    /// waits for it (the app decides there what follows the ad).
    package func playAd(url: String, queue: DispatchQueue = .main,
                       onFrame: @escaping @Sendable (MediaTime, MediaTime) -> Bool,
                       completion: @escaping @Sendable (Result<AdPlayback, Error>) -> Void) {
        enqueueAd(AdPlayRequest(url: url, queue: queue, onFrame: onFrame, completion: completion))
    }

    /// Plays measured ad media (`AdMediaProbe.measure`) as ad `position` of `totalAds` in the
    /// current break, as `playAd(url:…)` does. A stitching player uses the measurement (its
    /// duration places the ad exactly) and reports the ad's full placement in the completion.
    /// With `marks`, `onFrame` is called on the marked frames only (the first, quartiles, offsets,
    /// one per period), computed by the loop from the frames' exact ad times.
    package func playAd(_ media: AdMedia, position: Int, totalAds: Int, queue: DispatchQueue = .main,
                       marks: AdFrameMarks? = nil,
                       onFrame: @escaping @Sendable (MediaTime, MediaTime) -> Bool,
                       completion: @escaping @Sendable (Result<AdPlayback, Error>) -> Void) {
        enqueueAd(AdPlayRequest(url: media.url, media: media, position: position, totalAds: totalAds,
                                queue: queue, marks: marks, onFrame: onFrame, completion: completion))
    }

    /// Ends the ad playing once its next frame is presented (or written), as an `onFrame`
    /// answering false there would (a discarded break).
    package func endAdAfterNextFrame() { engine?.endAdAfterNextFrame() }

    private func enqueueAd(_ request: AdPlayRequest) {
        guard let engine else {
            request.queue.async { request.completion(.failure(MediaError.unsupported("the player has no content"))) }
            return
        }
        engine.enqueueAd(request)
    }

    /// Ends the ad playing before its next frame is presented (a skip).
    package func stopAd() { engine?.stopAd() }
    /// Freezes (true) or resumes (false) the ad playing: no ad frame is presented while frozen.
    package func setAdPaused(_ paused: Bool) { engine?.setAdPaused(paused) }
    /// Whether an ad is playing or about to.
    public var isPlayingAd: Bool { engine?.isAdActive ?? false }
    /// Records the start of an ad break at the current stream time (content paused at `contentTime`).
    package func beginBreak(id: String, contentTime: MediaTime) { engine?.beginBreak(id: id, contentTime: contentTime) }
    /// Records the end of the current ad break.
    package func endBreak() { engine?.endBreak() }
    /// Marks a double box as playing over content (true) or over (false). While it plays, the ad
    /// is drawn on content frames, so `setAdPaused(true)` holds the content (and the ad with it);
    /// its end clears the pause.
    package func setDoubleBoxActive(_ active: Bool) { engine?.setDoubleBoxActive(active) }
    /// Records a break that played beside content without pausing it (a double box): it goes on
    /// the timeline with `overlapsContent` true.
    /// `packaged` (a stitch): the break's ads as HLS date ranges and MP4 chapters.
    package func recordOverlappingBreak(_ b: TimelineMap.Break, packaged: PackagedBreak? = nil) {
        engine?.recordOverlappingBreak(b, packaged: packaged)
    }
    /// A stitching player: runs `body` on its frame loop (before the next frame) and returns what
    /// it returned, for setup of state the loop owns once it runs (a double box's ads); elsewhere
    /// it runs here.
    package func onLoop<T>(_ body: @escaping () throws -> T) throws -> T {
        guard let engine else { return try body() }
        return try engine.onLoop(body)
    }
    /// A stitching player: marks a double box's ads in the output (HLS date ranges, MP4 chapters)
    /// without putting the break on the timeline (`recordOverlappingBreak` does both).
    package func markOverlappingBreak(_ b: PackagedBreak) { engine?.markOverlappingBreak(b) }
    /// The content time of the frame held at a cue (the next content frame to present or write);
    /// nil when none is held.
    package var nextContentTime: MediaTime? { engine?.nextContentTime }
    /// Whether content packets are copied (a smart-rendered stitch): layers that draw on content
    /// frames cannot be added.
    package var copiesContent: Bool { engine?.copiesContent ?? false }
}
