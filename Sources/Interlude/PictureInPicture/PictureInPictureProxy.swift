import Foundation
import Threads

/// IMA's `IMAPictureInPictureProxy`: set it as the `PictureInPictureController`'s delegate; it
/// forwards every delegate message to the app's own delegate and to the `AdsManager`s of requests
/// made with it (`AdsRequest(adTagUrl:adDisplayContainer:avPlayerVideoDisplay:pictureInPictureProxy:userContext:)`),
/// so that the app keeps its delegate and the ads know when picture-in-picture is active: a
/// manager then refuses `start()` (IMA: ads cannot be started in PiP) while breaks that come up
/// play in the PiP window.
@MainActor public final class PictureInPictureProxy: PictureInPictureControllerDelegate {
    /// The app's delegate, which hears every message first.
    public private(set) weak var appDelegate: PictureInPictureControllerDelegate?
    /// Whether picture-in-picture is active, as the messages forwarded say (any thread may ask:
    /// the managers read it from their queues).
    public nonisolated var isPictureInPictureActive: Bool { active.withLock { $0 } }
    private let active = Locked(false)
    private let managers = Locked<[WeakManager]>([])

    private struct WeakManager { weak var manager: AdsManager? }

    /// A proxy forwarding to `avPictureInPictureControllerDelegate` (the app's delegate; may be nil).
    public init(avPictureInPictureControllerDelegate: PictureInPictureControllerDelegate?) {
        appDelegate = avPictureInPictureControllerDelegate
    }

    /// Makes `manager` hear the messages too (done by the manager of a request made with this
    /// proxy, from any thread).
    nonisolated func add(_ manager: AdsManager) {
        managers.withLock {
            $0.removeAll { $0.manager == nil || $0.manager === manager }
            $0.append(WeakManager(manager: manager))
        }
    }

    private var liveManagers: [AdsManager] { managers.withLock { $0.compactMap(\.manager) } }

    /// Forwards to the app's delegate.
    public func pictureInPictureControllerWillStartPictureInPicture(_ controller: PictureInPictureController) {
        appDelegate?.pictureInPictureControllerWillStartPictureInPicture(controller)
    }

    /// Marks picture-in-picture active, then forwards to the app's delegate and to every ads manager.
    public func pictureInPictureControllerDidStartPictureInPicture(_ controller: PictureInPictureController) {
        active.withLock { $0 = true }
        appDelegate?.pictureInPictureControllerDidStartPictureInPicture(controller)
        for m in liveManagers { m.pictureInPictureDidChange(active: true) }
    }

    /// Forwards to the app's delegate (picture-in-picture stays inactive).
    public func pictureInPictureController(_ controller: PictureInPictureController, failedToStartPictureInPictureWithError error: Error) {
        appDelegate?.pictureInPictureController(controller, failedToStartPictureInPictureWithError: error)
    }

    /// Forwards to the app's delegate.
    public func pictureInPictureControllerWillStopPictureInPicture(_ controller: PictureInPictureController) {
        appDelegate?.pictureInPictureControllerWillStopPictureInPicture(controller)
    }

    /// Marks picture-in-picture inactive, then forwards to the app's delegate and to every ads manager.
    public func pictureInPictureControllerDidStopPictureInPicture(_ controller: PictureInPictureController) {
        active.withLock { $0 = false }
        appDelegate?.pictureInPictureControllerDidStopPictureInPicture(controller)
        for m in liveManagers { m.pictureInPictureDidChange(active: false) }
    }
}
