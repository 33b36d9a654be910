// One ad after wrapper resolution: InLine data with every wrapper's tracking merged in.
import Timing

/// A wrapper followed on the way to an ad, outermost first in `ResolvedAd.wrappers`.
public struct WrapperHop: Sendable, Hashable {
    /// The wrapper's `VASTAdTagURI`, resolved to an absolute URL: the tag that was followed.
    public var tagURL: String
    /// `Ad@id` of the wrapper ad ("" when missing, as IMA reports).
    public var adId: String
    /// The wrapper's `<AdSystem>`.
    public var adSystem: String
    /// The ids of the wrapper's creatives ("" when missing).
    public var creativeIds: [String]
    /// The URL of the document holding the wrapper (nil for an inline response).
    public var documentURL: String?
}

/// A playable (or not, see `mediaFile`) ad: the InLine plus everything merged down its wrapper chain.
///
/// This is what an IMA-shaped `Ad` is built from: ids, title, system, duration, skip offset,
/// chosen media file, merged beacons and the wrapper chain.
public struct ResolvedAd: Sendable, Hashable {
    /// `Ad@id` of the InLine.
    public var id: String?
    /// Pod sequence: the InLine's `Ad@sequence`, else the wrapper's that led to it; nil when stand-alone.
    public var sequence: Int?
    /// 1-based position in the break's pod (IMA's `adPosition`).
    public var adPosition: Int
    /// `Ad@adType` (`video` when absent).
    public var adType: String
    /// `<AdTitle>`.
    public var title: String?
    /// `<Description>`.
    public var adDescription: String?
    /// `<Advertiser>`.
    public var advertiser: String?
    /// `<AdSystem>` of the InLine.
    public var adSystem: AdSystem?
    /// `<AdServingId>`.
    public var adServingId: String?
    /// The Linear's Duration; nil when missing or junk (the media's measured duration decides).
    public var duration: MediaTime?
    /// The skip offset as a time; nil when not skippable (or a percentage of an unknown duration).
    public var skipOffset: MediaTime?
    /// `Creative@id` of the chosen creative.
    public var creativeId: String?
    /// `Creative@adId` of the chosen creative.
    public var creativeAdId: String?
    /// `<UniversalAdId>`s of the chosen creative.
    public var universalAdIds: [UniversalAdId]
    /// `<Category>` values.
    public var categories: [AdCategory]
    /// Pricing: the outermost wrapper's, else the InLine's.
    public var pricing: Pricing?
    /// True when the ad has a Linear creative.
    public var isLinear: Bool
    /// The media file chosen for splicing; nil when none fits (see `mediaSelection`).
    public var mediaFile: MediaFile?
    /// The selection decision and its reason.
    public var mediaSelection: MediaSelection
    /// Impression URLs: every wrapper's (outermost first), then the InLine's.
    public var impressions: [URLTemplate]
    /// Error URLs: every wrapper's (outermost first), then the InLine's.
    public var errorURLs: [URLTemplate]
    /// Linear tracking events: the wrappers' Linear tracking, then the InLine's; progress offsets kept.
    public var trackingEvents: [TrackingEvent]
    /// ClickThrough: the InLine's, else the nearest wrapper's.
    public var clickThrough: URLTemplate?
    /// ClickTracking: wrappers' then the InLine's.
    public var clickTracking: [URLTemplate]
    /// CustomClick: wrappers' then the InLine's.
    public var customClicks: [URLTemplate]
    /// Icons: the InLine's, then the wrappers'.
    public var icons: [Icon]
    /// Companions: the InLine's, then the wrappers'.
    public var companions: [Companion]
    /// NonLinear overlays of the InLine.
    public var nonLinears: [NonLinear]
    /// NonLinearAds tracking events: every wrapper's (outermost first), then the InLine's — VAST
    /// has a wrapper's tracking apply to the creative it leads to, as for Linear tracking.
    public var nonLinearTrackingEvents: [TrackingEvent] = []
    /// NonLinearClickTracking of the wrappers' NonLinear elements (outermost first); fired with
    /// the InLine NonLinear's own `clickTracking` when an overlay is clicked.
    public var wrapperNonLinearClickTracking: [URLTemplate] = []
    /// Viewable-impression URL sets of every level.
    public var viewableImpressions: [ViewableImpression]
    /// AdVerifications of every level.
    public var verifications: [Verification]
    /// Extensions of every level (wrappers first, then the InLine's).
    public var extensions: [VASTExtension]
    /// `<AdParameters>` of the chosen Linear: IMA's `traffickingParameters`.
    public var adParameters: String?
    /// Google `uiSettings/UiHideable`, when any level says so.
    public var uiHideable: Bool?
    /// Wrappers followed to reach the ad, outermost first.
    public var wrappers: [WrapperHop]
    /// The InLine as parsed, for anything not lifted above.
    public var inline: VASTInline

    /// Wrapper ad ids, innermost first (IMA's `wrapperAdIDs`).
    public var wrapperAdIds: [String] { wrappers.reversed().map(\.adId) }
    /// Wrapper ad systems, innermost first (IMA's `wrapperSystems`).
    public var wrapperSystems: [String] { wrappers.reversed().map(\.adSystem) }
    /// Wrapper creative ids, innermost first (IMA's `wrapperCreativeIDs`).
    public var wrapperCreativeIds: [String] { wrappers.reversed().map { $0.creativeIds.first ?? "" } }
    /// True when the ad can be skipped.
    public var isSkippable: Bool { skipOffset != nil }

    /// The NonLinearAds tracking URLs of one event (wrappers' then the InLine's).
    public func nonLinearTrackingURLs(for event: String) -> [URLTemplate] {
        nonLinearTrackingEvents.filter { $0.event == event }.map(\.url)
    }

    /// The URLs of one tracking event, in merge order.
    public func trackingURLs(for event: String) -> [URLTemplate] {
        trackingEvents.filter { $0.event == event }.map(\.url)
    }

    /// Tracking URLs grouped by event name, names in first-seen order.
    public var trackingByEvent: [(event: String, urls: [URLTemplate])] {
        var order: [String] = []
        var map: [String: [URLTemplate]] = [:]
        for t in trackingEvents {
            if map[t.event] == nil { order.append(t.event) }
            map[t.event, default: []].append(t.url)
        }
        return order.map { ($0, map[$0]!) }
    }
}
