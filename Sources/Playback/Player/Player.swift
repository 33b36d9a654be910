import Foundation
import Media
import Timing

/// An FFmpeg-backed content player shaped like AVFoundation's `AVPlayer`: `play()`, `pause()`,
/// `rate`, `currentTime()`, frame-exact `seek(to:)`, `currentItem` with its did-play-to-end
/// notification, and periodic and boundary time observers.
///
/// The playhead is a fact: `currentTime()` is the presentation time of the last content frame
/// presented on the `surface`. The frame loop runs on the player's own thread, never on the main
/// actor; observer blocks run on the queue they were registered with (main by default), and the
/// loop waits for a boundary block before it presents the frame at that boundary, so a block that
/// pauses the player stops content exactly there (how ad cues stay frame-exact).
///
/// Two clocks (`PlaybackClock`): real time, paced like ffplay; or as fast as possible, where the
/// loop also waits for every observer block, so the same actions give the same frames every run.
/// Ads play through the same player and surface (`playAd`), used by the IMA layer's
/// `PlayerVideoDisplay`. Players share nothing: a process may run many at once.
public final class Player: Sendable {
    /// What the viewer sees: attach outputs and layers here.
    public let surface: RenderSurface
    /// The clock this player runs on.
    public let clock: PlaybackClock
    /// The content item; nil when the content could not be opened (see `error`).
    public let currentItem: PlayerItem?
    /// Why the content could not be opened, when it could not.
    public let error: Error?
    let engine: PlayerEngine?

    /// Whether the player can play.
    public enum Status: Sendable {
        /// The content opened: the player can play.
        case readyToPlay
        /// The content could not be opened.
        case failed
    }
    /// `.failed` when the content could not be opened.
    public var status: Status { engine == nil ? .failed : .readyToPlay }

    /// A real-time player of `url` (a file URL or a URL FFmpeg can read), as `AVPlayer(url:)`.
    /// A content that cannot be opened gives a player whose `status` is `.failed`.
    public convenience init(url: URL) {
        self.init(url: url, clock: .realTime)
    }

    /// A player of `url` on `clock`, at the content's display size and frame rate unless `size`
    /// or `frameRate` say otherwise. `threads` is for the decoders (0: FFmpeg chooses).
    public convenience init(url: URL, clock: PlaybackClock, size: (width: Int, height: Int)? = nil,
                            frameRate: Rational? = nil, threads: Int = 0) {
        let path = url.isFileURL ? url.path : url.absoluteString
        do {
            let e = try PlayerEngine(path: path, clock: clock, size: size, frameRate: frameRate, threads: threads)
            self.init(engine: e, url: url, clock: clock)
        } catch {
            self.init(failure: error, clock: clock)
        }
    }

    /// A player that writes a stitch: the same player, on the fast clock, with the stitch file
    /// (`StitchFile`) as its surface's output: it plays `request.content` as fast as possible into
    /// `request.output` (MP4, HLS, NUT or y4m, copying content packets with smart rendering). Its
    /// controls, time observers and ads behave as on any player, so the app that plays ads on a
    /// player (`PlayerVideoDisplay`, `PlayerContentPlayhead`, or its own boundary observers)
    /// makes the stitch: `interlude stitch` is such an app (`Stitcher`, `TagStitcher`).
    ///
    /// Differences, all of a one-pass file output: content plays in runs from one boundary
    /// observer's time to the next (so that packets can be copied between cues), and `pause()`
    /// takes effect at the next boundary (a boundary block that pauses stops content exactly
    /// there); `seek(to:)` is refused; `rate` is 0 or 1; any failure fails the stitch. The
    /// surface's layers (`layers`, and any added before the first frame) are drawn on the output;
    /// other outputs attached to the surface get the frames it composes (not the packets it
    /// copies). `close()` finishes the file and moves it into place; a player released without
    /// `close()` leaves nothing at the output path. Throws `StitchFailure` when the content or the
    /// output cannot be opened.
    public convenience init(stitching request: StitchRequest, layers: [SurfaceLayer] = []) throws {
        let engine = try PlayerEngine(stitching: request, layers: layers)
        self.init(engine: engine, url: URL(fileURLWithPath: request.content), clock: .asFastAsPossible)
    }

    private init(engine: PlayerEngine, url: URL, clock: PlaybackClock) {
        self.clock = clock
        self.engine = engine
        surface = engine.surface
        currentItem = PlayerItem(url: url, duration: engine.contentDuration)
        error = nil
        engine.item = currentItem
        engine.start()
        surface.setOwner(self)
    }

    /// A player whose content could not be opened: `status` is `.failed`.
    private init(failure: Error, clock: PlaybackClock) {
        self.clock = clock
        engine = nil
        surface = RenderSurface(format: OutputFormat(width: 16, height: 16, frameRate: Rational(30, 1), sampleRate: 48000, channels: 2))
        currentItem = nil
        error = failure
    }

    /// A stitching player's file (nil for a player presenting frames): the output's facts
    /// (format, frames, timeline, smart rendering, warnings, timings). Read it after `close()`.
    package var stitchFile: StitchFile? { engine?.file }

    /// A stitching player: called on its thread for each event of the stitch (progress, ads,
    /// breaks). Set it before `play()`.
    package var spliceEvents: (@Sendable (SpliceEvent) -> Void)? {
        get { engine?.file == nil ? nil : engine?.eventHandler }
        set { if engine?.file != nil { engine?.eventHandler = newValue } }
    }

    /// A stitching player: seconds it may wait for the app with no frame to write (content
    /// paused and no ad playing, or an ad paused) before the stitch fails with
    /// `StitchFailure.stalled` and `PlayerItem.failedToPlayToEndTimeNotification` is posted. The
    /// clock starts when it is set and again each time the loop runs out of work, so set it once
    /// the app is ready to play (a stitcher sets it after preloading ad media). nil (the default):
    /// no limit. A presenting player has none (a viewer may pause as long as they like): it stays nil there.
    public var stallTimeout: Double? {
        get { engine?.stallTimeout }
        set { engine?.stallTimeout = newValue }
    }

    /// Opens `url` or throws the reason it cannot be played (the throwing form of `init(url:clock:)`).
    public static func open(url: URL, clock: PlaybackClock, size: (width: Int, height: Int)? = nil,
                            frameRate: Rational? = nil, threads: Int = 0) throws -> Player {
        let p = Player(url: url, clock: clock, size: size, frameRate: frameRate, threads: threads)
        if let e = p.error { throw e }
        return p
    }

    deinit { engine?.shutdown() }

    /// Plays content (rate 1).
    public func play() { engine?.setPlaying(true) }
    /// Pauses content: no further content frame is presented until `play()`.
    public func pause() { engine?.setPlaying(false) }

    /// 0 when paused, else the playback speed (real time only; as fast as possible ignores it).
    /// Setting 0 pauses, any other value plays at that speed.
    public var rate: Float {
        get { engine?.rate ?? 0 }
        set { engine?.setRate(newValue) }
    }

    /// The content time of the last content frame presented (zero before the first; the
    /// target after a seek until the first frame there is shown).
    public func currentTime() -> MediaTime { engine?.playhead ?? .zero }

    /// Moves content to `time`: the first frame presented afterwards is the first with pts ≥ `time`.
    /// `completionHandler(true)` runs on `queue` when done; `false` when refused (an ad is playing)
    /// or the content failed. Posts `PlayerItem.timeJumpedNotification` before completing.
    public func seek(to time: MediaTime, queue: DispatchQueue = .main,
                     completionHandler: (@Sendable (Bool) -> Void)? = nil) {
        guard let engine else { queue.async { completionHandler?(false) }; return }
        engine.requestSeek(to: time, queue: queue, completion: completionHandler)
    }

    /// Calls `block` with the current time every `interval` of content time while content plays
    /// (and at its first frame), on `queue` (main when nil).
    @discardableResult
    public func addPeriodicTimeObserver(forInterval interval: MediaTime, queue: DispatchQueue?,
                                        using block: @escaping @Sendable (MediaTime) -> Void) -> Any {
        engine?.addObserver(.periodic(interval: interval, block: block), queue: queue ?? .main) ?? TimeObserverToken(id: -1)
    }

    /// Calls `block` on `queue` (main when nil) when content reaches each of `times`: just before
    /// the first frame with pts ≥ the time is presented; the frame loop waits for the block.
    @discardableResult
    public func addBoundaryTimeObserver(forTimes times: [MediaTime], queue: DispatchQueue?,
                                        using block: @escaping @Sendable () -> Void) -> Any {
        engine?.addObserver(.boundary(times: times.sorted(), block: block), queue: queue ?? .main) ?? TimeObserverToken(id: -1)
    }

    /// Calls `block(time)` on `queue` (main when nil) when the stream — content or ad — reaches each
    /// of `times`: right after the frame that reaches it is presented; the frame loop waits for it.
    /// (What a viewer script keys "at stream time T" on.)
    @discardableResult
    public func addStreamTimeObserver(forTimes times: [MediaTime], queue: DispatchQueue?,
                                      using block: @escaping @Sendable (MediaTime) -> Void) -> Any {
        engine?.addObserver(.stream(times: times.sorted(), block: block), queue: queue ?? .main) ?? TimeObserverToken(id: -1)
    }

    /// Removes an observer added by `addPeriodicTimeObserver` or `addBoundaryTimeObserver`.
    public func removeTimeObserver(_ observer: Any) {
        guard let t = observer as? TimeObserverToken else { return }
        engine?.removeObserver(t.id)
    }

    /// Where content and ads have been placed on the stream so far.
    package var timeline: TimelineMap { engine?.timelineSnapshot ?? TimelineMap() }
    /// Stream time reached (the end of the last frame presented).
    public var streamTime: MediaTime { surface.streamTime }
    /// Whether the last content frame has been presented.
    public var contentEnded: Bool { engine?.contentEndedFlag ?? true }
    /// Frames left out of live views because they were late (real time only).
    public var droppedFrames: Int64 { surface.droppedLiveFrames }
    /// The wall-clock (`monotonicSeconds()`) time at which stream time `t` was due, in real time.
    public func wallTime(forStreamTime t: MediaTime) -> Double? { engine?.wallTime(of: t) }
    /// The master clock for real-time pacing (an output that plays audio); nil: the system clock.
    package var masterClock: AudioMasterClock? {
        get { engine?.masterClock }
        set { engine?.masterClock = newValue }
    }

    /// Waits (blocking the caller, never call it on the queue observers use) until the frame loop
    /// is idle: nothing to present until something changes. For tests and command-line tools.
    public func waitUntilIdle(timeout: Double = 600) -> Bool { engine?.waitUntilIdle(timeout: timeout) ?? true }

    /// Stops the frame loop without finishing the outputs, and waits for it (a stitching player
    /// removes its temporary output: nothing appears at the output path).
    package func abandon() { engine?.abandon() }

    /// Stops the frame loop and finishes every output on the surface. Throws the first error an
    /// output raised while frames were presented, else the first raised while finishing.
    /// Idempotent.
    public func close() throws {
        guard let engine else { return try surface.finish() }
        try engine.close()
    }
}
