// The IAB OpenRTB Native 1.2 response, as far as a player renders and counts it.

/// A native ad response (OpenRTB Native 1.2, the `native` object): assets by id, the ad's link,
/// impression and event trackers and the privacy (AdChoices) URL. Every string is as the server
/// sent it; nothing here has been fetched or trusted.
public struct NativeResponse: Sendable, Hashable {
    /// `ver`, when given.
    public var version: String?
    /// The assets, in document order (ids are unique: a repeated id is refused by the parser).
    public var assets: [NativeAsset]
    /// The default link of the ad (assets without their own link use it).
    public var link: NativeLink?
    /// `imptrackers`: image pixels fired when the impression is recorded.
    public var impressionTrackers: [String]
    /// `eventtrackers`.
    public var eventTrackers: [NativeEventTracker]
    /// `privacy`: the AdChoices / "about this ad" page.
    public var privacy: String?
    /// Things the parser ignored (unknown asset kinds, JavaScript trackers), one line each.
    public var warnings: [String]

    /// A response.
    public init(version: String? = nil, assets: [NativeAsset], link: NativeLink?, impressionTrackers: [String] = [],
                eventTrackers: [NativeEventTracker] = [], privacy: String? = nil, warnings: [String] = []) {
        self.version = version; self.assets = assets; self.link = link
        self.impressionTrackers = impressionTrackers; self.eventTrackers = eventTrackers
        self.privacy = privacy; self.warnings = warnings
    }

    /// The asset with `id`, if any.
    public func asset(id: Int) -> NativeAsset? { assets.first { $0.id == id } }

    /// Every impression pixel: `imptrackers` then image-pixel event trackers for the impression
    /// (event 1, method 1), without duplicates, in order.
    public var impressionPixels: [String] {
        var seen = Set<String>(), out: [String] = []
        let all = impressionTrackers + eventTrackers.filter { $0.event == NativeEventTracker.impressionEvent && $0.method == NativeEventTracker.imageMethod }.compactMap(\.url)
        for u in all where seen.insert(u).inserted { out.append(u) }
        return out
    }
}

/// One asset of a native response: its id (what a format definition maps a name to) and content.
public struct NativeAsset: Sendable, Hashable {
    /// What the asset holds.
    public enum Content: Sendable, Hashable {
        /// A title (text).
        case title(String)
        /// An image by URL, with the size the server declares (not trusted).
        case image(url: String, width: Int?, height: Int?)
        /// A video as a VAST document (`vasttag`).
        case video(vastTag: String)
        /// A data asset (caption, sponsor, rating, …) with its OpenRTB data type.
        case data(String, type: Int?)
    }
    /// `id`.
    public var id: Int
    /// `required` (1).
    public var required: Bool
    /// The content.
    public var content: Content
    /// The asset's own link, if any (else the ad's link applies).
    public var link: NativeLink?

    /// An asset.
    public init(id: Int, required: Bool = false, content: Content, link: NativeLink? = nil) {
        self.id = id; self.required = required; self.content = content; self.link = link
    }

    /// The text of a title or data asset.
    public var text: String? {
        switch content {
        case .title(let s), .data(let s, _): return s
        default: return nil
        }
    }

    /// `title`, `img`, `video` or `data`.
    public var kind: String {
        switch content {
        case .title: return "title"
        case .image: return "img"
        case .video: return "video"
        case .data: return "data"
        }
    }
}

/// A link object: where a click goes and who is told.
public struct NativeLink: Sendable, Hashable {
    /// `url`: the landing page, or a deep link into an app.
    public var url: String
    /// `clicktrackers`: fired on each click.
    public var clickTrackers: [String]
    /// `fallback`: where to go when `url` is a deep link no app can open.
    public var fallback: String?

    /// A link.
    public init(url: String, clickTrackers: [String] = [], fallback: String? = nil) {
        self.url = url; self.clickTrackers = clickTrackers; self.fallback = fallback
    }
}

/// An `eventtrackers` entry.
public struct NativeEventTracker: Sendable, Hashable {
    /// OpenRTB event type 1: impression.
    public static let impressionEvent = 1
    /// OpenRTB method 1: image pixel.
    public static let imageMethod = 1
    /// `event`.
    public var event: Int
    /// `method` (1 image pixel, 2 JavaScript).
    public var method: Int
    /// `url`.
    public var url: String?

    /// A tracker.
    public init(event: Int, method: Int, url: String?) { self.event = event; self.method = method; self.url = url }
}
