import Foundation
import Playback
import Timing

/// What plays ad media into the output on the manager's behalf (IMA's custom video display):
/// the `AdsManager` asks it, from the manager's own queue, to prepare, start and play each ad,
/// and learns the ad's progress on the frames it marks. `PlayerVideoDisplay` implements it over
/// a `Player` (presenting, or writing a stitch).
package protocol AdVideoDisplay: AnyObject, Sendable {
    /// Output stream time reached.
    var streamTime: MediaTime { get }
    /// Content time of the last content frame out.
    var contentTime: MediaTime { get }
    /// The content ↔ stream mapping so far.
    var timeline: TimelineMap { get }
    /// Opens and measures ad media at a local path, or fails with its VAST code.
    func prepareAd(mediaPath: String) throws(AdError) -> AdMedia
    /// Content pauses: an ad break begins.
    func beginBreak(id: String, contentTime: MediaTime)
    /// Plays prepared media to its end. `onFrame(adTime, streamTime)` runs on `queue` for each
    /// ad frame that `marks` marks (every frame when nil): the first, the quartiles, the offsets,
    /// one per period, computed from each frame's exact ad time. The display does not wait for
    /// it unless the marks ask for `waits`; a false answer ends the ad (after that frame when
    /// waited for, else at its next frame after the answer). `completion` runs once on `queue`
    /// when the ad has ended, after every `onFrame` of the ad.
    func playAd(_ media: AdMedia, position: Int, totalAds: Int, marks: AdFrameMarks?, queue: DispatchQueue,
                onFrame: @escaping @Sendable (MediaTime, MediaTime) -> Bool,
                completion: @escaping @Sendable (Result<PlacedAd, Error>) -> Void)
    /// Ends the ad playing once its next frame is shown, as `onFrame` answering false there
    /// would (a discarded break): for a display that does not wait for the answers.
    func endAdAfterNextFrame()
    /// The ad break ends.
    func endBreak()
    /// Freezes the ad playing (its picture held, its audio silent) until `resumeAd()`.
    func pauseAd()
    /// Resumes the frozen ad.
    func resumeAd()
    /// Ends the ad playing before its next frame (a skip).
    func stopAd()
    /// Whether beacons are fired over HTTP as they happen (a player in real time) rather than
    /// only listed (a stitch made as fast as possible).
    var firesBeaconsLive: Bool { get }
}

extension AdVideoDisplay {
    /// A display that cannot freeze: the manager records the pause.
    package func pauseAd() {}
    /// A display that cannot freeze: the manager records the resume.
    package func resumeAd() {}
    /// A display that stops through `onFrame`'s answer.
    package func stopAd() {}
    /// Nothing is fired.
    package var firesBeaconsLive: Bool { false }
    /// `onFrame`'s answer on the next frame ends the ad: nothing to add.
    package func endAdAfterNextFrame() {}
}
