import Foundation
import Timing

/// Where an ad's skip button stands on one frame.
public enum AdSkipState: Sendable, Equatable, Hashable {
    /// The ad cannot be skipped (no VAST `skipoffset`).
    case notSkippable
    /// Skippable after `seconds` more whole seconds (rounded up): "Skip in 5".
    case waiting(seconds: Int)
    /// The skip offset is reached: "Skip ad".
    case available
}

/// What an ad UI renderer is told for one ad frame: the ad, its progress as IMA's
/// `AdProgressData`, the skip state and the picture's size. Computed from the frame's own time
/// into the ad (`SurfaceFrameInfo.sourceTime`), so it is exact to the frame, not to the 200 ms
/// progress callbacks.
public struct AdUIContext: Sendable, Equatable {
    /// The ad showing.
    public var ad: Ad
    /// Its progress at this frame.
    public var progress: AdProgressData
    /// Exact time of this frame from the ad's first frame.
    public var adTime: MediaTime
    /// Whole seconds left in the ad, rounded up (what a countdown shows).
    public var remainingSeconds: Int
    /// The skip button's state.
    public var skip: AdSkipState
    /// Whether the ad has a click-through ("Learn more").
    public var hasClickThrough: Bool
    /// Output picture width in pixels.
    public var width: Int
    /// Output picture height in pixels.
    public var height: Int

    /// The context of the frame `adTime` into `shown` on a `width`×`height` picture.
    package init(shown: ShownAd, adTime: MediaTime, width: Int, height: Int) {
        ad = shown.ad
        self.adTime = adTime
        self.width = width
        self.height = height
        let left = shown.duration - adTime
        remainingSeconds = max(0, AdUIContext.ceilSeconds(left))
        if let offset = shown.skipOffset {
            skip = adTime >= offset ? .available : .waiting(seconds: max(1, AdUIContext.ceilSeconds(offset - adTime)))
        } else {
            skip = .notSkippable
        }
        hasClickThrough = !(shown.clickThrough ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        progress = AdProgressData(currentTime: adTime.seconds, duration: shown.duration.seconds,
                                  adPosition: shown.ad.adPodInfo.adPosition, totalAds: shown.ad.adPodInfo.totalAds,
                                  adBreakDuration: shown.podDuration.seconds, adPeriodDuration: shown.podDuration.seconds)
    }

    /// `t` in whole seconds rounded up (exact on the rational value).
    static func ceilSeconds(_ t: MediaTime) -> Int {
        guard t.timescale > 0 else { return 0 }
        let q = t.value / t.timescale, r = t.value % t.timescale
        return Int(r > 0 ? q + 1 : q)
    }

    /// `seconds` as the countdown shows it: `m:ss`.
    package static func clock(_ seconds: Int) -> String {
        String(format: "%d:%02d", seconds / 60, seconds % 60)
    }
}
