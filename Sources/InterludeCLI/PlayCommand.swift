// `interlude play`: ffplay for ad-supported video. Parses options, builds the outputs, runs a
// PlaySession (the library's app on Player/AdsLoader/AdsManager) and prints a summary.
import Foundation
import Interlude
import Window

let playHelp = """
    usage: interlude play CONTENT [--ads TAG] [--session SCRIPT.json] [--events FILE|-]
                          [-o OUT [--format mp4|nut|y4m] [-y]] [--null] [--realtime|--fast] [options]

    Plays CONTENT through the player with the ads of TAG, as an IMA app would: the ad manager
    watches the playhead, pauses content at each cue, plays the ads through the same surface,
    and fires beacons over HTTP as they happen (in real time; as fast as possible they are only
    listed). A VMAP double-box break (docs/PIP.md, "Double-box breaks") does
    not pause content: its ads play full size while content goes on in a window.
    What the viewer sees goes to every output chosen:
      --window         a live window with sound (SDL2; the default when no other output is given)
      -o OUT           a stitched MP4 (default) or a frame stream (--format nut|y4m; OUT may be - )
      --null           count frames only (for tests and measuring)
    In the window: space pause/resume, s skip, c = clicked ("learn more"); a click on the ad UI's
    skip or Learn more button does that, elsewhere on an ad it is a click (or resumes a paused ad),
    on a VAST overlay its click-through; p picture-in-picture on/off, left/right seek 10 s,
    f fullscreen, q quit.

      --ads TAG            VAST/VMAP tag: http(s) URL, file:// URL or path; a tag with no
                           ad to play (no fill, a failing wrapper) plays the content alone
      --vast-timeout MS    timeout of each VAST request in milliseconds (default: 8000 for
                           the first, 4000 for each wrapper)
      --native-break TIME=RESPONSE[@lbar], --native-format FILE   custom native ads on the
                           surface, as for stitch: a full-frame break at TIME (content pauses),
                           or an L-bar around the content (no post-roll: TIME is a time)
      --ad-ui none|default|FILE.json   the ad UI drawn on ads (default: default, IMA's
                           UI); FILE.json: disableUi and the app's UI from a layout, whose
                           skip/learnMore buttons take clicks in the window (see stitch)
      --session FILE       viewer script (JSON): pause/resume/skip/click/seek/quit, pip on/off,
                           background on/off at a content or stream time or on an ad event
                           (see docs/PLAY.md and docs/PIP.md);
                           each timed action fires once; with --fast and no window a pause or
                           background with no "for" ends the session there (nothing could
                           resume it)
      --events FILE|-      write every event as a JSON line as it happens (- : standard output)
      --background-playback  IMA's enableBackgroundPlayback: a scripted "background on" lets
                           content and ads go on (default: they pause until "background off")
      --realtime           pace to the clock (default)
      --fast               every frame as fast as possible, deterministic
      --size WxH, --fps RATE, --threads N, --preset P, --crf N   as for stitch
      -y                   overwrite OUT
      -q                   no summary
      -v                   show FFmpeg's own warnings

    Each option once (--native-break, --native-format repeat); -- ends the options; -o and
    --events may not be an input (content, --ads, --session, --ad-ui, native files), -y or not.
    exit status: 0 played to the end (or quit by the script); 1 failed; 2 bad usage (an output
    that is an input included).
    """

/// Runs `interlude play`; returns the exit status.
@MainActor func runPlay(_ args: [String]) async -> Int32 {
    var scanner = ArgumentScanner(args, repeatable: ["--native-break", "--native-format"], aliases: commonAliases)
    var content: String?
    var tag: String?
    var sessionPath: String?
    var adUI: AdUIOption?
    var adUIPath: String?
    var eventsPath: String?
    var output: String?
    var format = OutputContainer.mp4
    var overwrite = false, null = false, quiet = false, verbose = false, window = false
    var clock = PlaybackClock.realTime
    var size: (width: Int, height: Int)?
    var fps: Rational?
    var threads = 0
    var encoder = EncoderSettings()
    var backgroundPlayback = false
    var native = NativePlayOptions()
    var vastTimeout: Double?
    do {
        while let arg = scanner.next() {
            let name = try scanner.name(of: arg)
            switch name {
            case "-h", "--help": print(playHelp); return 0
            case "--ads": tag = try scanner.value(for: name, in: arg)
            case "--vast-timeout":
                let v = try scanner.value(for: name, in: arg)
                guard let ms = Double(v), (1...120_000).contains(ms) else { throw UsageError("--vast-timeout must be milliseconds from 1 to 120000, not '\(v)'") }
                vastTimeout = ms
            case "--native-format", "--native-break": try native.take(name, try scanner.value(for: name, in: arg))
            case "--ad-ui":
                let v = try scanner.value(for: name, in: arg)
                adUI = try AdUIOption.parse(v)
                if case .layout = adUI { adUIPath = v }
            case "--session": sessionPath = try scanner.value(for: name, in: arg)
            case "--events": eventsPath = try scanner.value(for: name, in: arg)
            case "-o", "--output": output = try scanner.value(for: name, in: arg)
            case "--format":
                let v = try scanner.value(for: name, in: arg)
                guard let f = OutputContainer(rawValue: v) else { throw UsageError("--format must be mp4, y4m or nut, not '\(v)'") }
                format = f
            case "--null": null = true
            case "--background-playback": backgroundPlayback = true
            case "--window": window = true
            case "--realtime": clock = .realTime
            case "--fast": clock = .asFastAsPossible
            case "-y": overwrite = true
            case "-q", "--quiet": quiet = true
            case "-v", "--verbose": verbose = true
            case "--preset": encoder.preset = try OptionValue.preset(try scanner.value(for: name, in: arg))
            case "--crf": encoder.crf = try OptionValue.crf(try scanner.value(for: name, in: arg))
            case "--size": size = try OptionValue.size(try scanner.value(for: name, in: arg))
            case "--fps": fps = try OptionValue.frameRate(try scanner.value(for: name, in: arg))
            case "--threads": threads = try OptionValue.threads(try scanner.value(for: name, in: arg))
            default:
                if !name.isEmpty { throw UsageError("unknown option '\(arg)' (see --help)") }
                guard content == nil else { throw UsageError("unexpected argument '\(arg)'") }
                content = arg
            }
        }
        guard let content else { throw UsageError("missing CONTENT (see --help)") }
        try native.validate()
        setMediaLogging(verbose: verbose)
        OutputTarget.installSignalCleanup()
        if output == nil && !null { window = true }
        if output == "-" && format == .mp4 { throw UsageError("MP4 cannot be written to standard output; use --format nut or y4m") }
        if output == "-" && eventsPath == "-" { throw UsageError("--events - and -o - would both write to standard output") }
        // every input and output in one place: an output that is an input is refused (2) before anything is opened
        var files = CommandFiles()
        files.input("content", content)
        files.input("--ads", tag)
        files.input("--session", sessionPath)
        files.input("--ad-ui", adUIPath)
        for path in native.formats { files.input("--native-format", path) }
        for b in native.breaks { files.input("--native-break", b.response) }
        files.output("-o", output)
        files.output("--events", eventsPath)
        if let conflict = files.conflict() { throw UsageError(conflict) }
        if let problem = files.unreadableInput() { printError("interlude play: \(problem)"); return 1 }
        if let output, output != "-" {
            do { try OutputTarget.validate(output, overwrite: overwrite, role: "output") } catch {
                printError("interlude play: \(error)")
                return 1
            }
        }
        if let events = eventsPath, events != "-" {
            do { try OutputTarget.validate(events, overwrite: overwrite, role: "events file") } catch {
                printError("interlude play: \(error)")
                return 1
            }
        }
        var script = SessionScript(actions: [])
        if let sessionPath {
            do { script = try SessionScript.parse(try LocalFile.read(sessionPath, maxBytes: 1 << 20, what: "session script")) } catch let e as LocalFile.Failure {
                printError("interlude play: \(e)")
                return 1
            } catch {
                printError("interlude play: \(sessionPath): \(error)")
                return 1
            }
        }
        let url = URL(string: content).flatMap { $0.scheme == nil ? nil : $0 } ?? URL(fileURLWithPath: content)
        let player: Player
        do {
            player = try Player.open(url: url, clock: clock, size: size, frameRate: fps, threads: threads)
        } catch {
            printError("interlude play: cannot play \(content): \(error)")
            return 1
        }
        var fileOutput: (temporary: String, final: String)?
        if let output {
            do {
                let target = output == "-" ? "pipe:1" : try OutputTarget.createTemporary(for: output)
                if output != "-" { fileOutput = (target, output) }
                player.surface.attach(try EncodedOutput(url: target, container: format, format: player.surface.format, settings: encoder))
            } catch {
                if let f = fileOutput { OutputTarget.discard(f.temporary) }
                printError("interlude play: cannot write \(output): \(error)")
                return 1
            }
        }
        let counter = NullOutput()
        if null { player.surface.attach(counter) }
        var handle: FileHandle?
        if let eventsPath {
            if eventsPath == "-" { handle = FileHandle.standardOutput } else {
                // written live, so it is opened in place (never through a symlink), not staged
                let fd = open(eventsPath, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o644)
                guard fd >= 0 else {
                    printError("interlude play: cannot write \(eventsPath): \(String(cString: strerror(errno)))")
                    if let f = fileOutput { OutputTarget.discard(f.temporary) }
                    return 1
                }
                handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
            }
        }
        var view: WindowOutput?
        if window {
            do {
                let w = try WindowOutput(format: player.surface.format, title: "interlude — \((content as NSString).lastPathComponent)")
                player.surface.attach(w)
                player.masterClock = w
                view = w
            } catch {
                printError("interlude play: \(error)")
                return 1
            }
        }
        let natives: NativePlayerBreaks?
        do { natives = try await native.attach(to: player) } catch {
            if let f = fileOutput { OutputTarget.discard(f.temporary) }
            printError("interlude play: \(error)")
            return 1
        }
        defer { natives?.detach() }
        let log = SessionEventLog(handle: handle, wallTime: clock == .realTime)
        let settings = Settings()
        settings.enableBackgroundPlayback = backgroundPlayback
        let session = PlaySession(player: player, adTag: tag, script: script, log: log, settings: settings)
        session.vastLoadTimeout = vastTimeout
        // as fast as possible without a window no viewer can resume a held pause: it ends the session
        session.endsHeldPlaybackAtScriptEnd = clock == .asFastAsPossible && !window
                if let adUI {
            session.drawsDefaultAdUI = adUI.drawsDefault
            session.customAdUI = adUI.custom
            if adUI.disablesUi { session.renderingSettings.disableUi = true }
        }
        view?.onInput = { input in
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    switch input {
                    case .key(" "): session.togglePause()
                    case .key("s"): session.perform(.skip)
                    case .key("c"): session.perform(.click)
                    case .click(let x, let y): session.click(atX: x, y: y)
                    case .key("p"): session.togglePictureInPicture()
                    case .left: session.seek(by: -10)
                    case .right: session.seek(by: 10)
                    case .key("q"), .quit: session.perform(.quit)
                    default: break
                    }
                }
            }
        }
        do {
            try await session.run()
        } catch {
            if let f = fileOutput { OutputTarget.discard(f.temporary) }
            printError("interlude play: \(error)")
            return 1
        }
        if let f = fileOutput {
            do { try OutputTarget.commit([(f.temporary, f.final)], overwrite: overwrite) } catch {
                printError("interlude play: \(error)")
                return 1
            }
        }
        if !quiet {
            let frames = player.surface.presentedFrames
            let ads = session.adsManager?.playedBreaks.flatMap(\.ads).count ?? 0
            let fired = session.adsManager?.beaconSender.outcomes.count ?? 0
            let listed = session.adsManager?.beacons.count ?? 0
            printError("played \(frames) frames (\(player.streamTime.clockString)), \(ads) ad(s), "
                       + (clock == .realTime ? "\(fired) beacon(s) fired, \(player.droppedFrames) frame(s) dropped from live views"
                                             : "\(listed) beacon(s) listed (none fired as fast as possible)"))
            for line in native.summary(natives) { printError(line) }
        }
        return 0
    } catch let e as UsageError {
        printError("interlude play: \(e)")
        return 2
    } catch {
        printError("interlude play: \(error)")
        return 1
    }
}
