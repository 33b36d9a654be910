/// An ad's progress, as IMA's `AdProgressData`: delivered every 200 ms of ad time through
/// `AdsManagerDelegate.adsManager(_:adDidProgress:)`. Times in seconds.
public struct AdProgressData: Sendable, Equatable {
    /// Ad time of the frame showing.
    public var currentTime: Double
    /// The ad's measured duration.
    public var duration: Double
    /// 1-based position of the ad in its pod.
    public var adPosition: Int
    /// Ads in the pod.
    public var totalAds: Int
    /// Measured duration of the whole break (every ad of the pod).
    public var adBreakDuration: Double
    /// Duration of the ad period: here the break's, as there is no separate slate.
    public var adPeriodDuration: Double
}
