import Foundation
@_spi(Engine) import Playback
import Timing

/// What plays ad media into the output on the manager's behalf (IMA's custom video display):
/// the `AdsManager` asks it to prepare, start and play each ad, and learns the ad's progress
/// frame by frame. `SessionVideoDisplay` implements it over the engine.
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

/// `AdVideoDisplay` over the engine's `SpliceSession`.
@_spi(Engine) @MainActor public final class SessionVideoDisplay: AdVideoDisplay {
    /// The session ads are spliced into.
    public let session: SpliceSession
    private let threads: Int

    /// Wraps a session; `threads` for ad decoders. Ads are spliced on the caller's thread (the
    /// main actor): the completion runs before `playAd` returns.
    public init(session: SpliceSession, threads: Int = 0) {
        self.session = session
        self.threads = threads
    }

    /// The session's stream time: the end of the last frame written.
    public var streamTime: MediaTime { session.streamTime }
    /// The content time of the last content frame written (zero before the first).
    public var contentTime: MediaTime { session.contentTime ?? .zero }
    /// The session's content ↔ stream mapping so far.
    public var timeline: TimelineMap { session.timelineMap }

    /// The media at `mediaPath`, opened and measured the first time it is asked for, or its VAST error.
    public func prepareAd(mediaPath: String) throws(AdError) -> AdMedia { try measurements.measure(mediaPath) }

    // Each media file is opened and measured once per stitch, however often it plays.
    private lazy var measurements = AdMeasurements(threads: threads)

    /// The session marks the start of the break at its current stream time, content paused at `contentTime`.
    public func beginBreak(id: String, contentTime: MediaTime) { session.beginBreak(id: id, contentTime: contentTime) }

    /// Splices `media` into the output on the caller's thread, calling `onFrame` for each ad frame; `completion` runs
    /// before this returns.
    public func playAd(_ media: AdMedia, position: Int, totalAds: Int,
                       onFrame: @escaping @MainActor (MediaTime, MediaTime) -> Bool,
                       completion: @escaping @MainActor (Result<PlacedAd, Error>) -> Void) {
        completion(Result { try session.playAd(media, position: position, totalAds: totalAds, onFrame: onFrame) })
    }

    /// The session marks the end of the current break.
    public func endBreak() { session.endBreak() }
}
