// `interlude play` as a library call: the files checked, the player opened with its outputs, the
// viewer script and native ads, the PlaySession run, the stitched file committed, the summary.
import Files
import Foundation
import Playback
import Timing

/// One playback as the `play` command runs it, callable without a process: content played
/// through ``Player`` with the ads of a tag, as an IMA app would (``AdsLoader``, ``AdsManager``), to the
/// outputs asked for (a stitched file or frame stream, a frame counter, and whatever views the
/// caller attaches in `attachViews`, such as a window). Every output must differ from every
/// input; the file output is written to a temporary beside its target and renamed into place
/// when playback ends (`overwrite` governs it); the events file is written live.
public struct PlayJob {
    /// The content: a path or a URL.
    public var content: String
    /// A VAST or VMAP ad tag: URL, `file://` URL or path.
    public var adTag: String?
    /// Timeout of each VAST request, in milliseconds.
    package var vastTimeout: Double?
    /// A viewer script (JSON file, `SessionScript`).
    package var sessionPath: String?
    /// The ad UI drawn on ads.
    public var adUI: AdUIChoice?
    /// The layout file of `adUI`, when one was named (an input: never written).
    package var adUIPath: String?
    /// Where each event goes as a JSON line as it happens; `-` is standard output.
    package var eventsPath: String?
    /// The stitched file or frame stream; `-` is standard output (nut or y4m).
    public var output: String?
    /// The container of `output`.
    public var format = OutputContainer.mp4
    /// Encoder settings of `output`.
    package var encoder = EncoderSettings()
    /// Whether `output` (and the events file) may replace a file.
    package var overwrite = false
    /// Whether a frame counter is attached (`--null`).
    package var countsFrames = false
    /// Whether a viewer can act on the playback (a window is attached): without one, as fast as
    /// possible, a pause the script holds ends the session.
    package var viewerAttached = false
    /// Real time or as fast as possible.
    public var clock = PlaybackClock.realTime
    /// The surface's size (default: the content's display size).
    package var size: (width: Int, height: Int)?
    /// The surface's frame rate (default: the content's).
    package var frameRate: Rational?
    /// Decoder threads (0: FFmpeg decides).
    package var threads = 0
    /// IMA's `enableBackgroundPlayback`.
    package var backgroundPlayback = false
    /// Native format files.
    package var nativeFormats: [String] = []
    /// Native breaks: where, the response (file or URL), full frame or L-bar.
    package var nativeBreaks: [(position: BreakCue, response: String, layout: NativeBreak.Layout)] = []
    /// Attaches the caller's own outputs to the player (a window), after the file outputs; a
    /// throw fails the job with its message.
    package var attachViews: (@MainActor (Player) throws -> Void)?
    /// Called with the session once it is configured, before it runs (to route a window's input to it).
    package var willRun: (@MainActor (PlaySession) -> Void)?

    /// A job playing `content`, with nothing else set.
    public init(content: String) { self.content = content }

    /// What a finished playback did.
    public struct Outcome {
        /// Frames presented by the surface.
        package var frames: Int64
        /// The stream time reached.
        package var streamTime: MediaTime
        /// Ads played.
        package var ads: Int
        /// Beacons sent (real time).
        package var beaconsFired: Int
        /// Beacons listed (as fast as possible none is sent).
        package var beaconsListed: Int
        /// Frames dropped from live views.
        package var droppedFrames: Int64
        /// The human summary, one line each.
        package var summary: [String]
    }

    /// Every file the playback reads and writes.
    var files: JobFiles {
        var files = JobFiles()
        files.input("content", content)
        files.input("--ads", adTag)
        files.input("--session", sessionPath)
        files.input("--ad-ui", adUIPath)
        for path in nativeFormats { files.input("--native-format", path) }
        for b in nativeBreaks { files.input("--native-break", b.response) }
        files.output("-o", output)
        files.output("--events", eventsPath)
        return files
    }

    /// Why the playback cannot start, before any work: options that cannot work together or an
    /// output that is an input (usage); an input that is a FIFO, device or folder, or an output
    /// that cannot be written (failed).
    package func check() throws(JobFailure) {
        if !nativeBreaks.isEmpty && nativeFormats.isEmpty { throw .usage("--native-break needs --native-format FILE") }
        if nativeBreaks.isEmpty && !nativeFormats.isEmpty { throw .usage("--native-format given but no --native-break") }
        if nativeBreaks.contains(where: { $0.position == .end }) { throw .usage("--native-break end: a player plays no native post-roll (use a time)") }
        if output == "-" && format == .mp4 { throw .usage("MP4 cannot be written to standard output; use --format nut or y4m") }
        if output == "-" && eventsPath == "-" { throw .usage("--events - and -o - would both write to standard output") }
        let files = self.files
        if let conflict = files.conflict() { throw .usage(conflict) }
        if let problem = files.unreadableInput() { throw .failed(problem) }
        do {
            if let output, output != "-" { try OutputTarget.validate(output, overwrite: overwrite, role: "output") }
            if let events = eventsPath, events != "-" { try OutputTarget.validate(events, overwrite: overwrite, role: "events file") }
        } catch {
            throw .failed("\(error)")
        }
    }

    /// Checks, plays to the end (or until the script quits) and commits the file output.
    /// Throws one line; the file output is then not written.
    @MainActor public func run() async throws(JobFailure) -> Outcome {
        try check()
        var script = SessionScript(actions: [])
        if let sessionPath {
            do { script = try SessionScript.parse(try LocalFile.read(sessionPath, maxBytes: 1 << 20, what: "session script")) } catch let e as LocalFile.Failure {
                throw .failed("\(e)")
            } catch {
                throw .failed("\(sessionPath): \(error)")
            }
        }
        let url = URL(string: content).flatMap { $0.scheme == nil ? nil : $0 } ?? URL(fileURLWithPath: content)
        let player: Player
        do {
            player = try Player.open(url: url, clock: clock, size: size, frameRate: frameRate, threads: threads)
        } catch {
            throw .failed("cannot play \(content): \(error)")
        }
        var fileOutput: (temporary: String, final: String)?
        func fail(_ message: String) -> JobFailure {
            if let f = fileOutput { TemporaryFiles.discard(f.temporary) }
            return .failed(message)
        }
        if let output {
            do {
                let target = output == "-" ? "pipe:1" : try OutputTarget.createTemporary(for: output)
                if output != "-" { fileOutput = (target, output) }
                player.surface.attach(try EncodedOutput(url: target, container: format, format: player.surface.format, settings: encoder))
            } catch {
                throw fail("cannot write \(output): \(error)")
            }
        }
        if countsFrames { player.surface.attach(NullOutput()) }
        var handle: FileHandle?
        if let eventsPath {
            if eventsPath == "-" { handle = FileHandle.standardOutput } else {
                // written live, so it is opened in place (never through a symlink), not staged
                let fd = open(eventsPath, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o644)
                guard fd >= 0 else { throw fail("cannot write \(eventsPath): \(String(cString: strerror(errno)))") }
                handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
            }
        }
        if let attachViews {
            do { try attachViews(player) } catch { throw fail("\(error)") }
        }
        let attached: NativePlayerBreaks?
        var nativeIssues: [StitchIssue] = []
        do {
            (attached, nativeIssues) = try await attachNatives(to: player)
        } catch {
            throw fail("\(error)")
        }
        defer { attached?.detach() }
        let log = SessionEventLog(handle: handle, wallTime: clock == .realTime)
        let settings = Settings()
        settings.enableBackgroundPlayback = backgroundPlayback
        let session = PlaySession(player: player, adTag: adTag, script: script, log: log, settings: settings)
        session.vastLoadTimeout = vastTimeout
        // as fast as possible with no viewer, no one can resume a held pause: it ends the session
        session.endsHeldPlaybackAtScriptEnd = clock == .asFastAsPossible && !viewerAttached
        if let adUI {
            session.drawsDefaultAdUI = adUI.drawsDefault
            session.customAdUI = adUI.custom
            if adUI.disablesUi { session.renderingSettings.disableUi = true }
        }
        willRun?(session)
        do { try await session.run() } catch { throw fail("\(error)") }
        if let f = fileOutput {
            do { try OutputTarget.commit([(f.temporary, f.final)], overwrite: overwrite) } catch { throw .failed("\(error)") }
        }
        var outcome = Outcome(frames: player.surface.presentedFrames, streamTime: player.streamTime,
                              ads: session.adsManager?.playedBreaks.flatMap(\.ads).count ?? 0,
                              beaconsFired: session.adsManager?.beaconSender.outcomes.count ?? 0,
                              beaconsListed: session.adsManager?.beacons.count ?? 0,
                              droppedFrames: player.droppedFrames, summary: [])
        outcome.summary = ["played \(outcome.frames) frames (\(outcome.streamTime.clockString)), \(outcome.ads) ad(s), "
                           + (clock == .realTime ? "\(outcome.beaconsFired) beacon(s) fired, \(outcome.droppedFrames) frame(s) dropped from live views"
                                                 : "\(outcome.beaconsListed) beacon(s) listed (none fired as fast as possible)")]
        if let attached {
            outcome.summary += nativeSummaryLines(attached.placements) + nativeIssues.map { "  error \($0.code): \($0.message)" }
                + attached.warnings.map { "  warning: \($0)" }
        }
        return outcome
    }

    /// Loads the native formats and responses and attaches the ads to `player`; nil when none
    /// were asked for. A response that cannot be used is left out (returned as an issue); an
    /// unreadable format file throws.
    @MainActor private func attachNatives(to player: Player) async throws -> (NativePlayerBreaks?, [StitchIssue]) {
        guard !nativeBreaks.isEmpty else { return (nil, []) }
        var files: [NativeFormatFile] = []
        for path in nativeFormats { files.append(try NativeFormatFile.load(path: path)) }
        let (natives, failed) = await loadNativeResponses(nativeBreaks, formats: files, settings: NativeLoadSettings())
        // as for VAST beacons: sent as they happen in real time, only listed as fast as possible
        for n in natives { n.ad.firesTrackersLive = player.clock == .realTime }
        let attached = NativePlayerBreaks(player: player, natives: natives)
        try await attached.attach()
        return (attached, failed)
    }
}
