// A loaded custom native ad: assets by the publisher's names, impressions and clicks counted as GMA counts them.
import Ads
import Foundation
import Media
import Threads

/// Called with the asset key of a click instead of opening anything (GMA's
/// `GADNativeAdCustomClickHandler`).
public typealias NativeAdCustomClickHandler = (_ assetID: String) -> Void

/// A custom native ad (GMA's `GADCustomNativeAd`): the app reads its assets by the names its
/// format gives them, renders them as it likes, records the impression itself and reports clicks.
///
/// Counting follows the SDK: `recordImpression()` fires the impression pixels once per ad
/// (later calls are ignored); every `performClickOnAsset(withKey:)` fires the click trackers,
/// then resolves the click: the `customClickHandler` when set (nothing else happens), else the
/// first deep link an app can open, else the click-through URL. A click on the AdChoices key opens
/// the privacy page and counts no click. Thread use: any thread (state guarded by a lock).
public final class CustomNativeAd: Sendable {
    /// How a click was resolved.
    public enum ClickResolution: Sendable, Equatable {
        /// The custom click handler took it.
        case customHandler
        /// A deep link was opened.
        case deepLink(URL)
        /// The click-through URL was opened.
        case clickThrough(URL)
        /// The AdChoices page was opened (no click counted).
        case adChoices(URL)
        /// Nothing could be opened (no usable URL, or no such asset); trackers may still have fired.
        case none(String)
    }

    /// The format the ad was loaded as.
    public let formatID: String
    /// The format definition.
    public let format: NativeFormatDefinition
    /// The parsed response.
    package let response: NativeResponse
    /// Video, if any.
    public let mediaContent: MediaContent
    /// The video controller (`mediaContent.videoController`).
    public var videoController: VideoController { mediaContent.videoController }
    /// Where the response came from (nil when given in memory).
    public let responseURL: URL?

    private let strings: [String: String]
    private let images: [String: NativeAdImage]
    private let beacons: BeaconSender
    /// What changes as the app uses the ad.
    private struct State {
        var handler: NativeAdCustomClickHandler?
        var urlOpener: NativeURLOpener
        var impressionRecorded = false
        var live = true
        var clickCount = 0
        var fired: [(event: String, url: String)] = []
    }
    private let state: Locked<State>

    init(format: NativeFormatDefinition, response: NativeResponse, strings: [String: String], images: [String: NativeAdImage],
         mediaContent: MediaContent, responseURL: URL?, beacons: BeaconSender, opener: NativeURLOpener) {
        self.formatID = format.formatID
        self.format = format
        self.response = response
        self.strings = strings
        self.images = images
        self.mediaContent = mediaContent
        self.responseURL = responseURL
        self.beacons = beacons
        state = Locked(State(urlOpener: opener))
    }

    /// The keys of the assets this ad has: the format's names that the response filled, plus the
    /// AdChoices key when the response names a privacy page.
    public var availableAssetKeys: [String] {
        var keys = format.assets.map(\.name).filter { strings[$0] != nil || images[$0] != nil || (videoAssetName == $0 && mediaContent.hasVideoContent) }
        if images[NativeAssetIdentifier.adChoicesViewAsset.rawValue] != nil { keys.append(NativeAssetIdentifier.adChoicesViewAsset.rawValue) }
        return keys
    }

    private var videoAssetName: String? { format.assets.first { $0.type == .video }?.name }

    /// The text asset named `key` (title or data), or nil.
    public func string(forKey key: String) -> String? { strings[key] }

    /// The image asset named `key` (or the AdChoices icon for its key), or nil.
    public func image(forKey key: String) -> NativeAdImage? { images[key] }

    /// Takes the click instead of deep links and the click-through URL (nil: the SDK opens them).
    public var customClickHandler: NativeAdCustomClickHandler? {
        get { state.withLock { $0.handler } }
        set { state.withLock { $0.handler = newValue } }
    }

    /// Opens deep links and pages for clicks (the app's; a recording opener by default).
    public var opener: NativeURLOpener {
        get { state.withLock { $0.urlOpener } }
        set { state.withLock { $0.urlOpener = newValue } }
    }

    /// Records the impression: fires every impression pixel (`imptrackers`, event-tracker image
    /// pixels) the first time; later calls do nothing. Returns whether this call recorded it.
    @discardableResult public func recordImpression() -> Bool {
        let first = state.withLock { s in
            if s.impressionRecorded { return false }
            s.impressionRecorded = true
            return true
        }
        guard first else { return false }
        for url in response.impressionPixels { fire("impression", url) }
        return true
    }

    /// Whether the impression has been recorded.
    public var isImpressionRecorded: Bool { state.withLock { $0.impressionRecorded } }

    /// Clicks counted so far (AdChoices clicks are not clicks).
    public var clicks: Int { state.withLock { $0.clickCount } }

    /// Whether trackers are sent over HTTP when due (true, as the SDK does), or only recorded in
    /// `firedTrackers` (a stitch renders what a viewer would see; nobody has seen it yet, so it
    /// records its beacons for the report as the VAST beacons of a stitch are, and sends none).
    package var firesTrackersLive: Bool {
        get { state.withLock { $0.live } }
        set { state.withLock { $0.live = newValue } }
    }

    /// Trackers due so far (`impression` or `click`, and the URL), in order: sent, unless
    /// `firesTrackersLive` is false.
    package var firedTrackers: [(event: String, url: String)] { state.withLock { $0.fired } }

    /// The beacons' outcomes (HTTP status of each fired tracker, once answered).
    package var trackerOutcomes: [BeaconSender.Outcome] { beacons.outcomes }

    /// Reports a click on the asset named `key`: see the type's summary for the order.
    @discardableResult public func performClickOnAsset(withKey key: String) -> ClickResolution {
        if key == NativeAssetIdentifier.adChoicesViewAsset.rawValue {
            guard let privacy = response.privacy, let url = webURL(privacy) else { return .none("no AdChoices page in the response") }
            opener.open(url)
            return .adChoices(url)
        }
        guard let asset = format.asset(named: key), response.asset(id: asset.id) != nil else {
            return .none("no asset '\(key)' in this ad")
        }
        let own = response.asset(id: asset.id)?.link
        let link = own ?? response.link
        state.withLock { $0.clickCount += 1 }
        var trackers = response.link?.clickTrackers ?? []
        for t in own?.clickTrackers ?? [] where !trackers.contains(t) { trackers.append(t) }
        for url in trackers { fire("click", url) }
        if let h = customClickHandler {
            h(key)
            return .customHandler
        }
        guard link != nil else { return .none("the response has no link") }
        let currentOpener = opener
        // Deep links: a link url that is not a web page, tried in order (the asset's, then the ad's).
        for candidate in [own?.url, response.link?.url].compactMap({ $0 }) {
            guard let u = URL(string: candidate), let s = u.scheme?.lowercased(), s != "http", s != "https", s != "file" else { continue }
            if currentOpener.canOpen(u) { currentOpener.open(u); return .deepLink(u) }
        }
        // The click-through: the asset's link (its url, then the fallback of a deep link), then the ad's.
        for candidate in [own?.url, own?.fallback, response.link?.url, response.link?.fallback].compactMap({ $0 }) {
            if let u = webURL(candidate) { currentOpener.open(u); return .clickThrough(u) }
        }
        return .none("no deep link could be opened and no http(s) click-through URL")
    }

    private func webURL(_ s: String) -> URL? {
        guard let u = URL(string: s), let scheme = u.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
        return u
    }

    private func fire(_ event: String, _ url: String) {
        let send = state.withLock { s in
            s.fired.append((event, url))
            return s.live
        }
        guard send else { return }
        beacons.fire(TrackedBeacon(event: event, streamTime: .zero, contentTime: .zero, url: url, adId: formatID, breakId: nil))
    }
}
