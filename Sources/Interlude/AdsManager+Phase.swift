import Foundation

/// The `AdsManager`'s own state as enums, with the pure transitions its API makes (issue 19,
/// item 2): what were eleven Bool flags (initialized, started, destroyed, contentCompleted,
/// allAdsCompletedFired, startDuringReady, breakPlaying, discardRequested, inPictureInPicture,
/// inBackground, pausedForBackground). `AdsManagerPhaseTests` checks them without playing video.
struct AdsManagerPhase: Equatable {
    /// loaded → initialized (`initialize`, once); destroyed from either (`destroy`).
    enum Life: Equatable { case loaded, initialized, destroyed }
    /// A plain VAST response plays once `start()` is called.
    enum Start: Equatable { case waiting, started }
    /// AD_BREAK_READY (`autoPlayAdBreaks` off): being delivered for a break, and whether the app
    /// called `start()` during it (the break then plays).
    enum Ready: Equatable { case none, delivering(Int), startAsked(Int) }
    /// The break playing, and whether its end was asked (`discardAdBreak`, `destroy`).
    enum Break: Equatable { case none, playing, discarding }
    /// Whether `contentComplete()` was called.
    enum Content: Equatable { case ahead, completed }
    /// Whether ALL_ADS_COMPLETED was delivered.
    enum AllAds: Equatable { case pending, completed }
    /// Picture-in-picture as the proxy told it.
    enum PictureInPicture: Equatable { case off, on }
    /// The app's state, and whether entering the background paused the ad playing.
    enum App: Equatable { case foreground, background, backgroundPausedAd }

    var life = Life.loaded
    var start = Start.waiting
    var ready = Ready.none
    var breakRun = Break.none
    var content = Content.ahead
    var allAds = AllAds.pending
    var pictureInPicture = PictureInPicture.off
    var app = App.foreground

    /// `initialize(with:)`: whether it runs (once, never after `destroy()`).
    mutating func initializing() -> Bool {
        guard life == .loaded else { return false }
        life = .initialized
        return true
    }

    /// `destroy()`: a break playing is asked to end.
    mutating func destroying() {
        life = .destroyed
        if breakRun == .playing { breakRun = .discarding }
    }

    /// What `start()` does.
    enum StartDecision: Equatable {
        /// Nothing (destroyed, ad rules, already started, or asked again during AD_BREAK_READY).
        case ignore
        /// Refused while picture-in-picture is active (IMA's 1102).
        case refuseInPictureInPicture
        /// The break whose AD_BREAK_READY is being delivered will play.
        case playReadyBreak
        /// A plain VAST response starts: its pod plays as a pre-roll.
        case startResponse
    }

    /// `start()`, with ad rules or not and picture-in-picture active or not.
    mutating func starting(isAdRules: Bool, pictureInPictureActive: Bool) -> StartDecision {
        guard life != .destroyed else { return .ignore }
        if pictureInPictureActive, ready != .none || (!isAdRules && start == .waiting) { return .refuseInPictureInPicture }
        switch ready {
        case .delivering(let i): ready = .startAsked(i); return .playReadyBreak
        case .startAsked: return .ignore
        case .none: break
        }
        guard !isAdRules, start == .waiting else { return .ignore }
        start = .started
        return .startResponse
    }

    /// A break begins (content pauses, or a double box starts).
    mutating func beginBreak() {
        if breakRun == .none { breakRun = .playing }
    }

    /// The break is over (or could not start): whether its end had been asked (it was discarded).
    mutating func endBreak() -> Bool {
        let discarded = breakRun == .discarding
        breakRun = .none
        return discarded
    }

    /// `discardAdBreak()`: whether a break is playing (its end is now asked); otherwise the app
    /// means the next scheduled break.
    mutating func discarding() -> Bool {
        guard breakRun != .none else { return false }
        breakRun = .discarding
        return true
    }

    /// `contentComplete()`: whether it runs (once, never after `destroy()`).
    mutating func completingContent() -> Bool {
        guard content == .ahead, life != .destroyed else { return false }
        content = .completed
        return true
    }

    /// Whether ALL_ADS_COMPLETED is due now (once).
    mutating func completingAllAds() -> Bool {
        guard allAds == .pending else { return false }
        allAds = .completed
        return true
    }

    /// `appDidEnterBackground()`: whether the app was in the foreground (and the manager alive).
    mutating func enteringBackground() -> Bool {
        guard app == .foreground, life != .destroyed else { return false }
        app = .background
        return true
    }

    /// `appWillEnterForeground()`: nil when the app was not in the background (or the manager is
    /// destroyed), else whether the ad the background paused resumes.
    mutating func enteringForeground() -> Bool? {
        guard app != .foreground, life != .destroyed else { return nil }
        let resumes = app == .backgroundPausedAd
        app = .foreground
        return resumes
    }
}
