import Foundation
import Playback

/// IMA's picture-in-picture and background rules on the manager: `start()` is refused while PiP
/// is active (ads can only be started in normal mode; breaks that come up play in the window), and
/// without `Settings.enableBackgroundPlayback` the background pauses the ad playing (its picture
/// held, so its quartile and progress beacons wait too) until the app returns.
extension AdsManager {
    /// The IMA error code of a `start()` refused in picture-in-picture (IMA's API_ERROR, 1102:
    /// the API used in a state that does not allow it).
    package static let startRefusedInPictureInPictureCode = 1102

    /// Whether picture-in-picture is active, as the request's `PictureInPictureProxy` says.
    public var isPictureInPictureActive: Bool { perform { pictureInPictureActive } }
    var pictureInPictureActive: Bool {
        phase.pictureInPicture == .on || request.pictureInPictureProxy?.isPictureInPictureActive == true
    }

    /// Whether the app is in the background, as told by `appDidEnterBackground()`.
    public var isInBackground: Bool { perform { phase.app != .foreground } }

    /// How an ad starting now is presented.
    var currentPresentation: AdPresentation {
        if let box = doubleBox { return box.style.adInWindow ? .doubleBoxReverse : .doubleBox }
        return pictureInPictureActive ? .pictureInPicture : .normal
    }

    /// The proxy forwarded a PiP start or stop.
    func pictureInPictureDidChange(active: Bool) {
        perform { phase.pictureInPicture = active ? .on : .off }
    }

    /// `start()` during picture-in-picture: an error event (IMA's 1102), nothing starts; `start()`
    /// may be called again once PiP has stopped.
    func refuseStartInPictureInPicture() {
        let e = AdError(type: .adPlayingFailed, code: Self.startRefusedInPictureInPictureCode,
                        message: "ads cannot be started while picture-in-picture is active; call start() in normal mode")
        record.errors.append(e)
        reportFatal(e)
    }

    /// The app entered the background. Without `Settings.enableBackgroundPlayback` the ad playing
    /// pauses (PAUSE and its `pause` beacon; no frame, quartile or progress beacon until the app
    /// returns); with it, nothing changes.
    public func appDidEnterBackground() {
        perform {
            guard phase.enteringBackground() else { return }
            guard !settings.enableBackgroundPlayback, let p = playing, p.hold == .playing else { return }
            phase.app = .backgroundPausedAd
            pauseAd()
        }
    }

    /// The app returned to the foreground: an ad the background paused resumes (RESUME and its beacon).
    public func appWillEnterForeground() {
        perform {
            guard let resumes = phase.enteringForeground() else { return }
            if resumes { resumeAd() }
        }
    }
}
