import Foundation
import Media
import Threads
import Timing

/// The player's state and its frame loop: the one loop behind every `Player`. One thread (`run`)
/// owns the decoders, the feeds and the outputs; every other thread only sets requests in
/// `shared`, under its lock, and signals.
///
/// Content reaches the loop through its `Feed`: frames decoded (`DecodedFeed`), or packets copied
/// (`SmartContent`) when a stitch's file takes them; every ad goes through one ad path (`playAd`)
/// from either kind of feed. Both present into the surface, the one place frames are composed and
/// audio is pumped. A stitch (`init(stitching:)`) is this loop on the fast clock with a
/// `StitchFile` behind the surface. What a one-pass file changes is said where it does: content
/// plays in runs from cue to cue, each a segment of its own (a keyframe and a chapter at each cue,
/// packets copied between cues), so a pause takes effect at the next cue; seeks are refused; a
/// failure fails the stitch (a player keeps an output's error and goes on); the app's calls that
/// mark the file are applied by the loop before its next frame; `close()` waits for the loop to
/// finish the file.
final class PlayerEngine: @unchecked Sendable {
    // @unchecked Sendable: the loop's state is a `LoopBound` of `loopThread` (asserted on every
    // access in debug builds); every other mutable field is in `shared`, under its lock. `file`
    // is driven by the loop thread only, and read by the app once the loop has ended.
    let surface: RenderSurface
    let clock: PlaybackClock
    let contentDuration: MediaTime
    weak var item: PlayerItem?
    let format: OutputFormat
    let threads: Int
    /// What the app's threads and the loop share, under one lock the loop also waits on.
    let shared: LockedCondition<Shared>
    /// The stitch file behind the surface (a stitching player); nil for a player.
    let file: StitchFile?
    /// A player's pass presents content; a stitch's writes it once into `file`.
    let pass: LoopPass
    /// How content opens again for a seek (a player); nil for a stitch, one pass over its content.
    let seeking: Seeking?

    struct Seeking {
        let path: String
        let timeline: ContentTimeline
        let origin: MediaTime
        /// Content time of the content's first video frame (after 0 with a leading empty edit).
        let firstFrameTime: MediaTime
    }

    /// A seek asked for: where to, and the completion with the queue it runs on.
    typealias SeekRequest = (target: MediaTime, queue: DispatchQueue, completion: (@Sendable (Bool) -> Void)?)

    /// What the app's threads ask of the loop and read from it (`shared`).
    struct Shared {
        var speed: Float = 1
        var seekRequest: SeekRequest?
        var adRequest: AdPlayRequest?
        var control = LoopControl()   // a frozen double box holds content too
        var head: MediaTime?
        var observers = TimeObserverList()
        var timeline = TimelineMap()
        var master: AudioMasterClock?
        var pacerWall: [(stream: MediaTime, wall: Double)] = []
        /// The app's calls that mark a stitch's file or reach its event handler, applied by the
        /// loop before its next frame (a player has neither).
        var commands: [() -> Void] = []
        /// The failure that ended a stitch (its file is then removed).
        var failure: Error?
        /// The first error an output raised while a player presented (the loop goes on;
        /// `Player.close()` throws it).
        var firstOutputError: Error?
        /// The content time of the frame held at a cue.
        var held: MediaTime?
        /// Whether a stitch's file copies content packets (or will, with the layers there now).
        var copying = false
        var handler: (@Sendable (SpliceEvent) -> Void)?
        var stallLimit: Double?
        var stallArmedAt = 0.0
        /// The break begun and not ended yet; breaks ended so far (the next break's index).
        var openBreak: (id: String, start: MediaTime, index: Int)?
        var breaksEnded = 0
    }

    // the loop's own: bound to its thread from its first step to its end (`run`)
    /// The frame loop's thread, once it runs.
    let loopThread: ThreadOwner
    /// What only the loop touches: set by init, then the loop's thread's alone.
    struct LoopState {
        var pacer = RealTimePacer()
        var notice = EndNotice.none
        var content: any Feed
        /// Whether the next content frame goes on the timeline's last segment or starts one
        /// (after an ad, a seek, or at each run of a stitch).
        var segment = Segment.closed
    }
    let loop: LoopBound<LoopState>
    enum Segment { case closed, open }
    var pacer: RealTimePacer { get { loop.value.pacer } _modify { yield &loop.value.pacer } }
    var notice: EndNotice { get { loop.value.notice } _modify { yield &loop.value.notice } }
    var content: any Feed { get { loop.value.content } _modify { yield &loop.value.content } }
    var segment: Segment { get { loop.value.segment } _modify { yield &loop.value.segment } }

    /// A player of the content at `path`.
    init(path: String, clock: PlaybackClock, size: (width: Int, height: Int)?, frameRate: Rational?, threads: Int) throws {
        let probe = try Demuxer(url: path)
        guard let v = probe.bestStream(.video) else { throw MediaError.missingStream("\(path) has no video stream") }
        let video = probe.streams[v]
        let audio = probe.bestStream(.audio).map { probe.streams[$0] }
        let timeline = ContentTimeline(probe)
        guard let duration = timeline.end(of: video) ?? probe.duration, duration > .zero else {
            throw MediaError.unsupported("\(path) has no duration")
        }
        format = try OutputFormat.forContent(video: video, audio: audio, size: size, frameRate: frameRate)
        let source = try MediaSource(url: path, output: format, threads: threads, timeline: timeline)
        guard let first = try source.nextFrame() else { throw MediaError.missingStream("\(path) has no video frames") }
        source.pending = first
        seeking = Seeking(path: path, timeline: timeline, origin: source.video.origin ?? .zero, firstFrameTime: first.pts)
        loopThread = ThreadOwner(name: "the frame loop")
        loop = LoopBound(LoopState(content: DecodedFeed(source: source, output: format)), owner: loopThread, name: "the loop's state")
        contentDuration = duration
        self.clock = clock
        self.threads = threads
        surface = RenderSurface(format: format, layers: LayerStack(owner: loopThread))
        shared = LockedCondition(Shared())
        file = nil
        pass = .presenting
    }

    /// A stitching player: opens the content and reserves the output (a temporary file until
    /// `close()`); throws `StitchFailure`.
    init(stitching request: StitchRequest, layers: [SurfaceLayer]) throws {
        let owner = ThreadOwner(name: "the stitch's frame loop")
        let stack = LayerStack(owner: owner)
        layers.forEach(stack.add)
        let file = try StitchFile(request: request, layerStack: stack, owner: owner)
        loopThread = owner
        surface = file.surface
        format = file.format
        contentDuration = file.contentDuration
        clock = .asFastAsPossible
        threads = request.threads
        loop = LoopBound(LoopState(content: DecodedFeed(source: file.contentSource, output: format)), owner: loopThread,
                         name: "the loop's state")
        seeking = nil
        var shared = Shared()
        shared.copying = file.copiesContent
        self.shared = LockedCondition(shared)
        self.file = file
        pass = .stitching
    }

    func start() {
        if clock == .realTime { surface.pace = { [unowned self] in pace(until: $0) } }
        let t = Thread { [self] in run() }
        t.name = pass == .presenting ? "interlude-player" : "interlude-stitch"
        t.start()
    }

    /// Stops the loop without finishing (a stitch's temporary output is removed); does not wait.
    func shutdown() {
        signalling { $0.control.stop(finish: false) }
    }

    /// A player: stops the loop and finishes the surface's outputs at once. A stitch: the loop
    /// applies what the app asked last and finishes its file (flushes, moves it into place), and
    /// this waits for it. Throws the first failure.
    func close() throws {
        if pass == .stitching {
            if let error = stop(finishing: true) { throw error }
            return
        }
        shutdown()
        let finishing = Result { try surface.finish() }
        if let e = outputError { throw e }
        try finishing.get()
    }

    /// Stops the loop without finishing the output and waits for it.
    func abandon() {
        if pass == .stitching { _ = stop(finishing: false); return }
        shutdown()
        _ = waitUntilIdle(timeout: 10)
    }

    /// Asks the loop to end (finishing the output, or removing it) and waits for it; the failure
    /// met, if any. Once the loop has ended, later calls change nothing.
    func stop(finishing finish: Bool) -> Error? {
        shared.holding { h in
            h.value.control.stop(finish: finish)
            h.broadcast()
            h.wait { $0.control.run == .exited }
            return h.value.failure
        }
    }
}
