import Foundation
@_spi(Engine) import Playback
import Timing

/// What plays ad media into the output on the manager's behalf (IMA's custom video display):
/// the `AdsManager` asks it to prepare, start and play each ad, and learns the ad's progress
/// frame by frame. `PlayerVideoDisplay` implements it over a player (a stitching one for a stitch).
@MainActor public protocol AdVideoDisplay: AnyObject {
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
    /// Plays prepared media to its end. `onFrame(adTime, streamTime)` is called for each ad frame
    /// shown, and returning false ends the ad: after that frame for a display that waits for the
    /// answer (a stitch's), at its next frame after the answer for one that does not (a player's). `completion` is called once when the ad
    /// ended: at once for a display that plays synchronously (a stitch), later for a player.
    func playAd(_ media: AdMedia, position: Int, totalAds: Int,
                onFrame: @escaping @MainActor (MediaTime, MediaTime) -> Bool,
                completion: @escaping @MainActor (Result<PlacedAd, Error>) -> Void)
    /// `playAd`, telling the display on which frames `onFrame` decides something (`AdFrameMarks`):
    /// a display whose frame loop runs on a thread of its own hands the main actor those only,
    /// without waiting for them (a false answer stops the ad at its next frame). The default
    /// ignores the marks.
    func playAd(_ media: AdMedia, position: Int, totalAds: Int, marks: AdFrameMarks,
                onFrame: @escaping @MainActor (MediaTime, MediaTime) -> Bool,
                completion: @escaping @MainActor (Result<PlacedAd, Error>) -> Void)
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
    /// A stitch cannot freeze: the manager records the pause.
    public func pauseAd() {}
    /// A stitch cannot freeze: the manager records the resume.
    public func resumeAd() {}
    /// A stitch stops through `onFrame`.
    public func stopAd() {}
    /// A stitch fires nothing.
    public var firesBeaconsLive: Bool { false }
    /// Every frame is seen: the marks change nothing.
    public func playAd(_ media: AdMedia, position: Int, totalAds: Int, marks: AdFrameMarks,
                       onFrame: @escaping @MainActor (MediaTime, MediaTime) -> Bool,
                       completion: @escaping @MainActor (Result<PlacedAd, Error>) -> Void) {
        playAd(media, position: position, totalAds: totalAds, onFrame: onFrame, completion: completion)
    }
    /// `onFrame`'s answer on the next frame ends the ad: nothing to add.
    public func endAdAfterNextFrame() {}
}
