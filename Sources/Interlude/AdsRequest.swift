import Foundation
import Playback
import Timing

/// The content player's playhead, as IMA's `IMAContentPlayhead`: the content time now showing.
@MainActor public protocol ContentPlayhead: AnyObject {
    /// Content time of the last content frame delivered (seconds for IMA parity: `currentTime`).
    var currentTime: Double { get }
}

/// The engine's playhead: content time is the presentation time of the last content frame written
/// to the output. It conforms to `ContentPlayhead`; the stitcher keeps it up to date.
@MainActor public final class EnginePlayhead: ContentPlayhead {
    /// Exact content time of the last content frame out; nil before the first.
    public internal(set) var contentTime: MediaTime?
    /// Stream time of that frame.
    public internal(set) var streamTime: MediaTime = .zero
    /// Makes a playhead at the start.
    public init() {}
    /// Seconds, for IMA parity.
    public var currentTime: Double { contentTime?.seconds ?? 0 }
}

/// Where ad frames go, as IMA's `IMAAdDisplayContainer`: here, the output stream that a
/// `AdVideoDisplay` (normally the stitch's `SpliceSession`) writes into.
@MainActor public final class AdDisplayContainer {
    /// What plays ad media into the output; set by the player before ads play.
    public var videoDisplay: AdVideoDisplay?
    /// Makes a container, optionally with its display.
    public init(videoDisplay: AdVideoDisplay? = nil) { self.videoDisplay = videoDisplay }
}

/// A request for ads, as IMA's `IMAAdsRequest`: an ad tag URL or a canned response.
@MainActor public final class AdsRequest {
    /// The ad tag: an http(s) URL, a `file://` URL or a local path.
    public let adTagUrl: String?
    /// A VAST or VMAP document in hand (IMA's `adsResponse`).
    public let adsResponse: String?
    /// Where ads will show.
    public let adDisplayContainer: AdDisplayContainer
    /// The content playhead.
    public let contentPlayhead: ContentPlayhead?
    /// Anything the app wants back in the loaded/error callbacks.
    public let userContext: (any Sendable)?
    /// Milliseconds allowed for the first request and each wrapper (IMA's `vastLoadTimeout`); nil: 8 s / 4 s.
    public var vastLoadTimeout: Double?
    /// Content length in seconds (places `n%` breaks).
    public var contentDuration: Double?

    /// A request for an ad tag.
    public init(adTagUrl: String, adDisplayContainer: AdDisplayContainer, contentPlayhead: ContentPlayhead?,
                userContext: (any Sendable)? = nil) {
        self.adTagUrl = adTagUrl; self.adsResponse = nil
        self.adDisplayContainer = adDisplayContainer; self.contentPlayhead = contentPlayhead; self.userContext = userContext
    }

    /// A request for a response already in hand.
    public init(adsResponse: String, adDisplayContainer: AdDisplayContainer, contentPlayhead: ContentPlayhead?,
                userContext: (any Sendable)? = nil) {
        self.adTagUrl = nil; self.adsResponse = adsResponse
        self.adDisplayContainer = adDisplayContainer; self.contentPlayhead = contentPlayhead; self.userContext = userContext
    }
}

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
    /// Plays prepared media to its end; `onFrame(adTime, streamTime)` returning false stops it.
    func playAd(_ media: AdMedia, position: Int, totalAds: Int,
                onFrame: (MediaTime, MediaTime) -> Bool) throws -> PlacedAd
    /// The ad break ends.
    func endBreak()
}

/// `AdVideoDisplay` over the engine's `SpliceSession`.
@MainActor public final class SessionVideoDisplay: AdVideoDisplay {
    /// The session ads are spliced into.
    public let session: SpliceSession
    private let threads: Int

    /// Wraps a session; `threads` for ad decoders.
    public init(session: SpliceSession, threads: Int = 0) {
        self.session = session
        self.threads = threads
    }

    public var streamTime: MediaTime { session.streamTime }
    public var contentTime: MediaTime { session.contentTime ?? .zero }
    public var timeline: TimelineMap { session.timelineMap }

    public func prepareAd(mediaPath: String) throws(AdError) -> AdMedia {
        if let known = measured[mediaPath] { return try known.get() }
        let result: Result<AdMedia, AdError>
        do {
            result = .success(try AdMediaProbe.measure(mediaPath, threads: threads))
        } catch let r as AdMediaProbe.Rejection {
            result = .failure(AdError(type: .adPlayingFailed, code: r.code, message: r.message))
        } catch {
            result = .failure(AdError(type: .adPlayingFailed, code: 405, message: "ad media \(mediaPath): \(error)"))
        }
        measured[mediaPath] = result
        return try result.get()
    }

    // Each media file is opened and measured once per stitch, however often it plays.
    private var measured: [String: Result<AdMedia, AdError>] = [:]

    public func beginBreak(id: String, contentTime: MediaTime) { session.beginBreak(id: id, contentTime: contentTime) }

    public func playAd(_ media: AdMedia, position: Int, totalAds: Int,
                       onFrame: (MediaTime, MediaTime) -> Bool) throws -> PlacedAd {
        try session.playAd(media, position: position, totalAds: totalAds, onFrame: onFrame)
    }

    public func endBreak() { session.endBreak() }
}
