/// Receives an `AdsManager`'s events and requests, as IMA's `IMAAdsManagerDelegate`.
@MainActor public protocol AdsManagerDelegate: AnyObject {
    /// An ad event.
    func adsManager(_ adsManager: AdsManager, didReceive event: AdEvent)
    /// An ad error: log it; the manager goes on with the next ad, or resumes content.
    func adsManager(_ adsManager: AdsManager, didReceive error: AdError)
    /// An ad is ready: the content must pause (the engine switches to ad frames).
    func adsManagerDidRequestContentPause(_ adsManager: AdsManager)
    /// The break ended or failed: the content must resume.
    func adsManagerDidRequestContentResume(_ adsManager: AdsManager)
    /// The ad's media time, every 200 ms of ad time (for a countdown or skip button).
    func adsManager(_ adsManager: AdsManager, adDidProgressToTime mediaTime: Double, totalTime: Double)
    /// The ad's progress with its pod and break (IMA's `AdProgressData`), at the same moments.
    func adsManager(_ adsManager: AdsManager, adDidProgress progress: AdProgressData)
}

extension AdsManagerDelegate {
    /// Optional, as in IMA.
    public func adsManager(_ adsManager: AdsManager, adDidProgressToTime mediaTime: Double, totalTime: Double) {}
    /// Optional.
    public func adsManager(_ adsManager: AdsManager, adDidProgress progress: AdProgressData) {}
}
