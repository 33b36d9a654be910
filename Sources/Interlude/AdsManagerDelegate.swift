import Foundation

/// Receives an `AdsManager`'s events and requests, as IMA's `IMAAdsManagerDelegate`. Every call
/// comes on the manager's `delegateQueue` (the loader's: main by default, as in IMA), in order,
/// after the manager has decided what it tells: the frame loop never waits for these calls. A
/// main-actor class conforms with `@preconcurrency` (as a Swift 6 app conforms to IMA's own
/// Objective-C delegates), which checks that the calls do arrive on the main actor.
public protocol AdsManagerDelegate: AnyObject, Sendable {
    /// An ad event.
    func adsManager(_ adsManager: AdsManager, didReceive event: AdEvent)
    /// An ad error: log it; the manager goes on with the next ad, or resumes content.
    func adsManager(_ adsManager: AdsManager, didReceive error: AdError)
    /// An ad is ready: the content must pause (the manager has held a player it watches on the
    /// cue frame already; the engine switches to ad frames).
    func adsManagerDidRequestContentPause(_ adsManager: AdsManager)
    /// The break ended or failed: the content must resume.
    func adsManagerDidRequestContentResume(_ adsManager: AdsManager)
    /// The ad's media time, about every 100 ms of ad time and on the frame the ad becomes
    /// skippable (for a countdown or skip button).
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
