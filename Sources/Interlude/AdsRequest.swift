import Foundation
import Playback
import Timing

/// A request for ads, as IMA's `IMAAdsRequest`: an ad tag URL or a canned response. Any thread
/// may make and set it; the loader and the manager read it afterwards.
public final class AdsRequest: Sendable {
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
    public var vastLoadTimeout: Double? { get { _vastLoadTimeout.value } set { _vastLoadTimeout.value = newValue } }
    private let _vastLoadTimeout = Guarded<Double?>(nil)
    /// Content length in seconds (places `n%` breaks).
    public var contentDuration: Double? { get { _contentDuration.value } set { _contentDuration.value = newValue } }
    private let _contentDuration = Guarded<Double?>(nil)
    /// The proxy of the app's picture-in-picture controller (requests made for PiP): the manager
    /// hears through it when PiP is active.
    public let pictureInPictureProxy: PictureInPictureProxy?

    /// A request for an ad tag.
    public init(adTagUrl: String, adDisplayContainer: AdDisplayContainer, contentPlayhead: ContentPlayhead?,
                userContext: (any Sendable)? = nil) {
        self.adTagUrl = adTagUrl; self.adsResponse = nil
        self.adDisplayContainer = adDisplayContainer; self.contentPlayhead = contentPlayhead; self.userContext = userContext
        pictureInPictureProxy = nil
    }

    /// A request for a response already in hand.
    public init(adsResponse: String, adDisplayContainer: AdDisplayContainer, contentPlayhead: ContentPlayhead?,
                userContext: (any Sendable)? = nil) {
        self.adTagUrl = nil; self.adsResponse = adsResponse
        self.adDisplayContainer = adDisplayContainer; self.contentPlayhead = contentPlayhead; self.userContext = userContext
        pictureInPictureProxy = nil
    }

    /// A request whose ads play through the content's own player (`avPlayerVideoDisplay`, which
    /// also gives the content playhead) so that they can show in the picture-in-picture window,
    /// with the proxy installed as the PiP controller's delegate (IMA's PiP initializer).
    public init(adTagUrl: String, adDisplayContainer: AdDisplayContainer, avPlayerVideoDisplay: PlayerVideoDisplay,
                pictureInPictureProxy: PictureInPictureProxy, userContext: (any Sendable)? = nil) {
        self.adTagUrl = adTagUrl; self.adsResponse = nil
        adDisplayContainer.videoDisplay = avPlayerVideoDisplay
        self.adDisplayContainer = adDisplayContainer
        contentPlayhead = PlayerContentPlayhead(player: avPlayerVideoDisplay.player)
        self.pictureInPictureProxy = pictureInPictureProxy; self.userContext = userContext
    }

    /// The PiP initializer for a response already in hand.
    public init(adsResponse: String, adDisplayContainer: AdDisplayContainer, avPlayerVideoDisplay: PlayerVideoDisplay,
                pictureInPictureProxy: PictureInPictureProxy, userContext: (any Sendable)? = nil) {
        self.adTagUrl = nil; self.adsResponse = adsResponse
        adDisplayContainer.videoDisplay = avPlayerVideoDisplay
        self.adDisplayContainer = adDisplayContainer
        contentPlayhead = PlayerContentPlayhead(player: avPlayerVideoDisplay.player)
        self.pictureInPictureProxy = pictureInPictureProxy; self.userContext = userContext
    }
}

