import Timing

/// An ad's position in its pod, as IMA's `IMAAdPodInfo`.
public struct AdPodInfo: Sendable, Equatable {
    /// 1-based position in the pod.
    public var adPosition: Int
    /// Ads in the pod.
    public var totalAds: Int
    /// Pre-roll 0, mid-rolls 1…N, post-roll -1.
    public var podIndex: Int
    /// The break's content time in seconds: 0 pre-roll, -1 post-roll.
    public var timeOffset: Double
    /// Most seconds the pod may last; -1 unknown.
    public var maxDuration: Double
    /// Whether the ad is a bumper.
    public var isBumper: Bool
}

/// A Universal Ad ID (registry and value).
public struct UniversalAdID: Sendable, Equatable {
    /// The value.
    public var adIDValue: String
    /// The registry, e.g. `ad-id.org`.
    public var adIDRegistry: String
}

/// An ad, as IMA's `IMAAd`: read-only facts from the VAST response and the chosen media.
public struct Ad: Sendable, Equatable {
    /// VAST `<Ad id>`.
    public var adId: String
    /// `<AdTitle>`.
    public var adTitle: String
    /// `<Description>`.
    public var adDescription: String
    /// `<AdSystem>`.
    public var adSystem: String
    /// Duration in seconds: the measured media duration once it is known, else the declared one; -1 unknown.
    public var duration: Double
    /// Seconds before the ad can be skipped; -1 when not skippable.
    public var skipTimeOffset: Double
    /// Whether it can be skipped.
    public var isSkippable: Bool { skipTimeOffset >= 0 }
    /// True when `disableUi` was asked for and the ad allows it.
    public var isUiDisabled: Bool
    /// Whether it is a linear ad.
    public var isLinear: Bool
    /// Its position in the pod.
    public var adPodInfo: AdPodInfo
    /// The creative's id.
    public var creativeID: String
    /// The creative's AdID.
    public var creativeAdID: String
    /// Universal Ad IDs.
    public var universalAdIDs: [UniversalAdID]
    /// Wrapper ad ids, innermost first.
    public var wrapperAdIDs: [String]
    /// Wrapper ad systems, innermost first.
    public var wrapperSystems: [String]
    /// Wrapper creative ids, innermost first.
    public var wrapperCreativeIDs: [String]
    /// The chosen media file's width, height and bitrate as VAST declares them.
    public var vastMediaWidth: Int
    /// Height.
    public var vastMediaHeight: Int
    /// Bitrate in kbit/s.
    public var vastMediaBitrate: Int
    /// MIME type of the chosen media; "" when none.
    public var contentType: String
    /// `<AdParameters>` text.
    public var traffickingParameters: String
    /// The advertiser's name.
    public var advertiserName: String
    /// The chosen media file's URL, when one was chosen.
    public var mediaURL: String?
}
