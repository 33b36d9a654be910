import Foundation
import Timing

/// The linear ad on screen, as the ad UI sees it: set by the `AdsManager` just before the ad's
/// first frame is played and cleared when the ad ends.
package struct ShownAd: Sendable, Equatable {
    /// The ad (its pod position, `isUiDisabled`, `skipTimeOffset`, …).
    package var ad: Ad
    /// The ad media's measured duration: what the countdown counts down from.
    package var duration: MediaTime
    /// Exact skip offset (VAST `skipoffset`); nil when the ad is not skippable.
    package var skipOffset: MediaTime?
    /// The click-through URL, when the ad has one ("Learn more" is shown only then).
    package var clickThrough: String?
    /// Measured duration of the whole pod.
    package var podDuration: MediaTime

    /// A shown ad.
    package init(ad: Ad, duration: MediaTime, skipOffset: MediaTime?, clickThrough: String?, podDuration: MediaTime) {
        self.ad = ad; self.duration = duration; self.skipOffset = skipOffset
        self.clickThrough = clickThrough; self.podDuration = podDuration
    }
}
