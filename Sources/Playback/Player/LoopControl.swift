import Timing

/// The control state of the frame loop (`PlayerEngine`, presenting or stitching): what the app has asked
/// and where the loop stands, as enums instead of Bool flags, with the pure decision of what the
/// loop does next (`nextWork`) and the pure transitions the app's requests make. The loop keeps
/// one value under its lock; `LoopControlTests` checks the table without decoding video.
struct LoopControl: Equatable {
    /// Whether content is asked to play (`Player.play()` / `pause()`).
    enum Intent: Equatable { case paused, playing }
    /// How the loop is asked to end.
    enum Run: Equatable {
        case running
        /// Asked to stop: finish the output (true) or remove it (false). The first request wins.
        case quitting(finish: Bool)
        /// The loop has ended; nothing changes any more.
        case exited
    }
    /// The ad played through the loop (one handed over and not started yet is the loop's
    /// pending request, beside this: the app may queue the next ad while one plays).
    enum Ad: Equatable {
        case none
        /// Its frames go out.
        case playing
        /// Asked to end before its next frame (a skip).
        case stopping
        /// Asked to end after its next frame (a discard: as an observer answering false there).
        case ending
    }
    /// Whether the app holds the ad picture (`setAdPaused`); over a double box it holds content too.
    enum Freeze: Equatable { case none, frozen }
    /// Whether a double box is drawn over content (`setDoubleBoxActive`).
    enum Box: Equatable { case off, on }
    /// Whether the content has run out.
    enum Content: Equatable { case ahead, ended }
    /// Whether the loop is waiting for the app (nothing to do) or working.
    enum Activity: Equatable { case working, waiting }

    var intent = Intent.paused
    var run = Run.running
    var ad = Ad.none
    var freeze = Freeze.none
    var box = Box.off
    var content = Content.ahead
    var activity = Activity.working

    /// What the loop does next.
    enum Work: Equatable {
        /// Apply the app's queued output commands (a stitch: break starts and ends).
        case commands
        /// End: finish the output or remove it.
        case quit(finish: Bool)
        /// Perform the seek asked (a player).
        case seek
        /// Start the queued ad.
        case ad
        /// Present or write content up to the next cue.
        case content
        /// Nothing to do: wait for the app.
        case wait
    }

    /// The loop's next work, given what is pending beside the control: output commands (a
    /// stitch), a seek (a player), an ad handed over. Commands first, then the end, a seek, the
    /// ad, content while it plays (a frozen double box holds it), else a wait.
    func nextWork(commandsPending: Bool = false, seekPending: Bool = false, adQueued: Bool = false) -> Work {
        if commandsPending { return .commands }
        if case .quitting(let finish) = run { return .quit(finish: finish) }
        if seekPending { return .seek }
        if adQueued { return .ad }
        if intent == .playing && content == .ahead && !(box == .on && freeze == .frozen) { return .content }
        return .wait
    }

    /// Whether the loop is idle as `waitUntilIdle` means it: waiting for the app, or ended.
    var isIdle: Bool { activity == .waiting || run == .exited }

    // MARK: the app's requests

    /// `setPlaying`: playing wakes a loop whose content is not over.
    mutating func setPlaying(_ on: Bool) {
        intent = on ? .playing : .paused
        if on && content == .ahead { activity = .working }
    }

    /// A stop request; the first one decides whether the output is finished.
    mutating func stop(finish: Bool) {
        if run == .running { run = .quitting(finish: finish) }
    }

    /// `stopAd`: only an ad that plays can be stopped (before its next frame).
    mutating func stopAd() {
        if ad == .playing || ad == .ending { ad = .stopping }
    }

    /// `endAdAfterNextFrame`: a playing ad ends once its next frame is out.
    mutating func endAdAfterNextFrame() {
        if ad == .playing { ad = .ending }
    }

    /// After an ad frame is out: whether the ad ends there (`endAdAfterNextFrame`).
    var adEndsHere: Bool { ad == .ending }

    /// `setDoubleBoxActive`: a double box's end also lifts the freeze.
    mutating func setBox(_ on: Bool) {
        box = on ? .on : .off
        if !on { freeze = .none }
    }

    // MARK: the loop's own moves

    /// The queued ad starts.
    mutating func startAd() {
        ad = .playing
        activity = .working
    }

    /// Before each ad frame: whether the ad is to end now (stopped, or the loop quits); a stop
    /// is consumed (the ad goes on playing as far as the control knows until `endAd`).
    mutating func takeAdStop() -> Bool {
        let stop = ad == .stopping
        if stop { ad = .playing }
        if case .quitting = run { return true }
        return stop
    }

    /// The ad is over: no ad, no freeze.
    mutating func endAd() {
        ad = .none
        freeze = .none
    }
}

/// What a loop has told the app about the end of its content: the did-play-to-end notification
/// is posted once, the failure notification once, and never an end after a failure.
enum EndNotice: Equatable {
    case none, ended, failed

    /// Posting the end: whether it is due now, and the notice after it.
    func postingEnd() -> (due: Bool, next: EndNotice) { self == .none ? (true, .ended) : (false, self) }

    /// Posting a failure: whether it is due now, and the notice after it.
    func postingFailure() -> (due: Bool, next: EndNotice) { self != .failed ? (true, .failed) : (false, self) }
}

/// The pass the loop makes over its content, and what that decides (pure; the loop switches on
/// the answers): a player presents it (real time or as fast as possible, seekable); a stitch
/// writes it once into its file, as fast as possible.
enum LoopPass: Equatable {
    case presenting, stitching

    /// Whether a content run goes on to the next cue after a frame (a stitch: packets are copied
    /// between cues, and a pause takes effect at the cue) rather than stopping after each frame
    /// so that the app's requests take effect at the next one (a player).
    var runsToCue: Bool { self == .stitching }

    /// Whether content held at a cue starts a new segment when it resumes, even with no ad in
    /// between: a stitch's runs are segments of their own (a keyframe and a chapter at each cue);
    /// a player's segment goes on.
    var cueEndsSegment: Bool { self == .stitching }

    /// What an error met while playing content does.
    enum ContentError {
        /// An output (or a layer, or the audio) failed to present a frame: kept for `close()`,
        /// and content goes on.
        case keep(Error)
        /// The content failed to decode: it ends there.
        case endContent
        /// The pass fails (its output is removed).
        case fail(Error)
    }

    /// What `error`, met while playing content, does: a stitch fails on any; a player keeps a
    /// presenting failure and ends its content where it fails to decode.
    func onContentError(_ error: Error) -> ContentError {
        switch (self, error) {
        case (.stitching, let e as PresentFailure): return .fail(e.error)
        case (.stitching, _): return .fail(error)
        case (.presenting, let e as PresentFailure): return .keep(e.error)
        case (.presenting, _): return .endContent
        }
    }

    /// Whether an ad that failed after `frames` frames is reported as played with the error (a
    /// player: its frames were seen) or as failed (a stitch: it is not placed; its frames stay).
    func reportsFailedAd(afterFrames frames: Int64) -> Bool { self == .presenting && frames > 0 }
}
