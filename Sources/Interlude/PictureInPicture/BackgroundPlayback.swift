import Foundation
import Playback

/// The background rules for an app on a `Player`, as an iOS app lives them: entering the
/// background without `Settings.enableBackgroundPlayback` pauses the content and the ad playing
/// (and so their beacons) until the app returns, where both go on as they were; with it, playback
/// goes on in the background (audio, AirPlay, a picture-in-picture window).
///
/// `enterBackground()` and `enterForeground()` are what a `UIApplication` lifecycle notification
/// would call; `PlaySession` calls them for the scripted `background on/off`.
@MainActor public final class BackgroundPlayback {
    /// The content player.
    package let player: Player
    /// The manager of the ads playing, if any (it pauses its ad itself).
    public weak var adsManager: AdsManager?
    /// Whether playback goes on in the background (`Settings.enableBackgroundPlayback`).
    package let enabled: Bool
    /// Whether the app is in the background.
    public var isInBackground: Bool { app != .foreground }
    /// Where the app is, and whether entering the background paused the content.
    private var app = App.foreground
    private enum App { case foreground, background, backgroundPausedContent }

    /// The rules for `player` under `settings` (nil: defaults, background playback off).
    public init(player: Player, settings: Settings?, adsManager: AdsManager? = nil) {
        self.player = player
        enabled = settings?.enableBackgroundPlayback ?? false
        self.adsManager = adsManager
    }

    /// What entering the background does to playback.
    public enum Effect: String, Sendable, Equatable {
        /// Playback goes on.
        case continues
        /// Content and ads pause until the app returns.
        case pauses
    }

    /// What entering the background does with `enableBackgroundPlayback` set so.
    package static func effect(enableBackgroundPlayback: Bool) -> Effect { enableBackgroundPlayback ? .continues : .pauses }

    /// The app enters the background; returns what it did.
    @discardableResult
    public func enterBackground() -> Effect {
        let effect = Self.effect(enableBackgroundPlayback: enabled)
        guard app == .foreground else { return effect }
        app = .background
        adsManager?.appDidEnterBackground()
        if effect == .pauses, !(adsManager?.isPlayingAd ?? false), player.rate != 0 {
            app = .backgroundPausedContent
            player.pause()
        }
        return effect
    }

    /// The app returns to the foreground: what the background paused goes on.
    public func enterForeground() {
        let pausedContent = app == .backgroundPausedContent
        guard app != .foreground else { return }
        app = .foreground
        adsManager?.appWillEnterForeground()
        if pausedContent {
            player.play()
        }
    }
}
