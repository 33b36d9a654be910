// The typed VAST document: root, ads, InLine and Wrapper.
import Timing

/// A parsed `<VAST>` document (2.0–4.3): its ads and its root-level Error URLs.
public struct VASTDocument: Sendable, Hashable {
    /// `VAST@version` as written (trimmed); "" when missing.
    public var version: String
    /// Ads in document order.
    public var ads: [VASTAd]
    /// Root-level `<Error>` URLs (the no-ad case).
    public var errorURLs: [URLTemplate]
    /// Tolerated problems found while parsing.
    public var warnings: [AdIssue]

    /// Makes a document.
    public init(version: String, ads: [VASTAd], errorURLs: [URLTemplate], warnings: [AdIssue] = []) {
        self.version = version
        self.ads = ads
        self.errorURLs = errorURLs
        self.warnings = warnings
    }

    /// The major version number (2, 3, 4), nil when unreadable.
    public var majorVersion: Int? { Int(version.split(separator: ".").first ?? "") }

    /// Ads with a positive `sequence`: the pod, sorted by sequence (stable).
    public var podAds: [VASTAd] {
        ads.enumerated().filter { ($0.element.sequence ?? 0) > 0 }
            .sorted { ($0.element.sequence!, $0.offset) < ($1.element.sequence!, $1.offset) }.map(\.element)
    }

    /// Ads without a positive `sequence`: the buffet, in document order.
    public var standaloneAds: [VASTAd] { ads.filter { ($0.sequence ?? 0) <= 0 } }
}

/// One `<Ad>`: an InLine or a Wrapper, with its pod sequence.
public struct VASTAd: Sendable, Hashable {
    /// InLine or Wrapper content.
    public enum Content: Sendable, Hashable {
        /// A complete ad.
        case inline(VASTInline)
        /// A redirect to another VAST document.
        case wrapper(VASTWrapper)
    }

    /// `Ad@id`.
    public var id: String?
    /// `Ad@sequence`, nil when absent or not a number (stand-alone).
    public var sequence: Int?
    /// `Ad@adType` (`video`, `audio`, `hybrid`), nil when absent.
    public var adType: String?
    /// `Ad@conditionalAd`.
    public var conditionalAd: Bool?
    /// InLine or Wrapper.
    public var content: Content

    /// Makes an ad.
    public init(id: String?, sequence: Int?, adType: String? = nil, conditionalAd: Bool? = nil, content: Content) {
        self.id = id
        self.sequence = sequence
        self.adType = adType
        self.conditionalAd = conditionalAd
        self.content = content
    }

    /// The InLine, when this is one.
    public var inline: VASTInline? { if case .inline(let i) = content { return i } else { return nil } }
    /// The Wrapper, when this is one.
    public var wrapper: VASTWrapper? { if case .wrapper(let w) = content { return w } else { return nil } }
}

/// `<AdSystem version>`: the ad server that served the ad.
public struct AdSystem: Sendable, Hashable {
    /// Name, e.g. `GDFP`.
    public var name: String
    /// `@version`.
    public var version: String?
}

/// An `<Impression id>` URL.
public struct Impression: Sendable, Hashable {
    /// `@id`.
    public var id: String?
    /// The URL template.
    public var url: URLTemplate
}

/// `<Pricing model currency>`.
public struct Pricing: Sendable, Hashable {
    /// `CPM`, `CPC`, `CPE`, `CPV` (as written).
    public var model: String?
    /// ISO 4217 code.
    public var currency: String?
    /// The price text, trimmed.
    public var value: String
}

/// `<Category authority>code</Category>`.
public struct AdCategory: Sendable, Hashable {
    /// `@authority`.
    public var authority: String?
    /// The category code.
    public var code: String
}

/// `<BlockedAdCategories authority>` in a Wrapper: comma-separated codes.
public struct BlockedAdCategories: Sendable, Hashable {
    /// `@authority`.
    public var authority: String?
    /// The blocked codes.
    public var codes: [String]
}

/// `<ViewableImpression>`: publisher-measured viewability URLs.
public struct ViewableImpression: Sendable, Hashable {
    /// `@id`.
    public var id: String?
    /// `<Viewable>` URLs.
    public var viewable: [URLTemplate]
    /// `<NotViewable>` URLs.
    public var notViewable: [URLTemplate]
    /// `<ViewUndetermined>` URLs.
    public var viewUndetermined: [URLTemplate]
}

/// One `<Verification vendor>` of `<AdVerifications>` (in the InLine, Wrapper or pre-4.1 Extensions).
public struct Verification: Sendable, Hashable {
    /// A script resource.
    public struct Resource: Sendable, Hashable {
        /// `@apiFramework` (e.g. `omid`).
        public var apiFramework: String?
        /// `@type` (ExecutableResource) or nil.
        public var type: String?
        /// `@browserOptional`.
        public var browserOptional: Bool?
        /// The script URL.
        public var url: URLTemplate
    }
    /// `@vendor`.
    public var vendor: String?
    /// `<JavaScriptResource>` elements.
    public var javaScriptResources: [Resource]
    /// `<ExecutableResource>` elements.
    public var executableResources: [Resource]
    /// `<TrackingEvents>`, e.g. `verificationNotExecuted`.
    public var trackingEvents: [TrackingEvent]
    /// `<VerificationParameters>`, verbatim.
    public var parameters: String?
}

/// An `<Extension>` (or `<CreativeExtension>`): its type and raw XML, never interpreted beyond that.
public struct VASTExtension: Sendable, Hashable {
    /// `@type`.
    public var type: String?
    /// All attributes, by local name.
    public var attributes: [String: String]
    /// The element's XML, start tag to end tag, as written.
    public var rawXML: String
    /// The element's content XML, as written.
    public var innerXML: String
    /// The parsed element, for typed readers such as `uiHideable`.
    public var element: XMLElementNode

    /// For a Google `uiSettings` extension, `<UiHideable>`: whether the ad lets the player hide its UI.
    public var uiHideable: Bool? {
        guard type?.lowercased() == "uisettings" else { return nil }
        if let v = element.child("UiHideable")?.trimmedText { return VASTParser.bool(v) }
        if element.child("UiHidden") != nil { return true }
        return nil
    }
}

/// `<VAST><Ad><InLine>`: a complete ad.
public struct VASTInline: Sendable, Hashable {
    /// `<AdSystem>`.
    public var adSystem: AdSystem?
    /// `<AdTitle>`.
    public var adTitle: String?
    /// `<Description>`.
    public var description: String?
    /// `<Advertiser>`.
    public var advertiser: String?
    /// `<AdServingId>` (4.1+).
    public var adServingId: String?
    /// `<Impression>` URLs (empty and `about:blank` dropped).
    public var impressions: [Impression]
    /// `<Error>` URLs.
    public var errorURLs: [URLTemplate]
    /// `<Category>` values.
    public var categories: [AdCategory]
    /// `<Pricing>`.
    public var pricing: Pricing?
    /// `<Survey>` URLs.
    public var surveys: [URLTemplate]
    /// `<Expires>` seconds.
    public var expires: Int?
    /// `<ViewableImpression>`.
    public var viewableImpression: ViewableImpression?
    /// `<AdVerifications>` plus those found in `Extension[@type=AdVerifications]`.
    public var verifications: [Verification]
    /// `<Extensions>`.
    public var extensions: [VASTExtension]
    /// `<Creatives>`.
    public var creatives: [VASTCreative]
}

/// `<VAST><Ad><Wrapper>`: a redirect plus tracking to merge into the ad it leads to.
public struct VASTWrapper: Sendable, Hashable {
    /// `<AdSystem>`.
    public var adSystem: AdSystem?
    /// `<VASTAdTagURI>` (or legacy `<VASTAdTagURL><URL>`).
    public var vastAdTagURI: URLTemplate?
    /// `@followAdditionalWrappers` (default true).
    public var followAdditionalWrappers: Bool
    /// `@allowMultipleAds` as written; nil when absent.
    public var allowMultipleAds: Bool?
    /// `@fallbackOnNoAd` as written; nil when absent.
    public var fallbackOnNoAd: Bool?
    /// `<Impression>` URLs.
    public var impressions: [Impression]
    /// `<Error>` URLs.
    public var errorURLs: [URLTemplate]
    /// `<Pricing>`.
    public var pricing: Pricing?
    /// `<ViewableImpression>`.
    public var viewableImpression: ViewableImpression?
    /// `<AdVerifications>`.
    public var verifications: [Verification]
    /// `<BlockedAdCategories>`.
    public var blockedAdCategories: [BlockedAdCategories]
    /// `<Extensions>`.
    public var extensions: [VASTExtension]
    /// Tracking-only `<Creatives>`.
    public var creatives: [VASTCreative]
}
