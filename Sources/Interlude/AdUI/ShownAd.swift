import Foundation
import Timing

/// The linear ad on screen, as the ad UI sees it: set by the `AdsManager` just before the ad's
/// first frame is played and cleared when the ad ends.
public struct ShownAd: Sendable, Equatable {
    /// The ad (its pod position, `isUiDisabled`, `skipTimeOffset`, …).
    public var ad: Ad
    /// The ad media's measured duration: what the countdown counts down from.
    public var duration: MediaTime
    /// Exact skip offset (VAST `skipoffset`); nil when the ad is not skippable.
    public var skipOffset: MediaTime?
    /// The click-through URL, when the ad has one ("Learn more" is shown only then).
    public var clickThrough: String?
    /// Measured duration of the whole pod.
    public var podDuration: MediaTime

    /// A shown ad.
    public init(ad: Ad, duration: MediaTime, skipOffset: MediaTime?, clickThrough: String?, podDuration: MediaTime) {
        self.ad = ad; self.duration = duration; self.skipOffset = skipOffset
        self.clickThrough = clickThrough; self.podDuration = podDuration
    }
}
