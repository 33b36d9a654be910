// `interlude play`: ffplay for ad-supported video. Parses options into a PlayJob (the library's
// run of a PlaySession on Player/AdsLoader/AdsManager), adds the window, prints the summary.
import Files
import Foundation
import Interlude
import Window
import Playback

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
      --size WxH, --fps RATE, --threads N, --encoder-threads N, --preset P, --crf N
                           as for stitch
      -y                   overwrite OUT
      -q                   no summary
      -v                   show FFmpeg's own warnings

    Each option once (--native-break, --native-format repeat); -- ends the options; -o and
    --events may not be an input (content, --ads, --session, --ad-ui, native files), -y or not.
    exit status: 0 played to the end (or quit by the script); 1 failed; 2 bad usage (an output
    that is an input included).
    """

/// Runs `interlude play`: parses into a `PlayJob`, attaches the window (keys and clicks routed
/// to the session), runs it and prints the summary; returns the exit status.
@MainActor func runPlay(_ args: [String]) async -> Int32 {
    var scanner = ArgumentScanner(args, repeatable: ["--native-break", "--native-format"], aliases: commonAliases)
    var content: String?
    var job = PlayJob(content: "")
    var null = false, quiet = false, verbose = false, window = false
    do {
        while let arg = scanner.next() {
            let name = try scanner.name(of: arg)
            switch name {
            case "-h", "--help": print(playHelp); return 0
            case "--ads": job.adTag = try scanner.value(for: name, in: arg)
            case "--vast-timeout":
                let v = try scanner.value(for: name, in: arg)
                guard let ms = Double(v), (1...120_000).contains(ms) else { throw UsageError("--vast-timeout must be milliseconds from 1 to 120000, not '\(v)'") }
                job.vastTimeout = ms
            case "--native-format": job.nativeFormats.append(try scanner.value(for: name, in: arg))
            case "--native-break": job.nativeBreaks.append(try StitchOptions.parseNativeBreak(try scanner.value(for: name, in: arg)))
            case "--ad-ui":
                let v = try scanner.value(for: name, in: arg)
                job.adUI = try AdUIChoice.parse(v)
                if case .layout = job.adUI { job.adUIPath = v }
            case "--session": job.sessionPath = try scanner.value(for: name, in: arg)
            case "--events": job.eventsPath = try scanner.value(for: name, in: arg)
            case "-o", "--output": job.output = try scanner.value(for: name, in: arg)
            case "--format":
                let v = try scanner.value(for: name, in: arg)
                guard let f = OutputContainer(rawValue: v) else { throw UsageError("--format must be mp4, y4m or nut, not '\(v)'") }
                job.format = f
            case "--null": null = true
            case "--background-playback": job.backgroundPlayback = true
            case "--window": window = true
            case "--realtime": job.clock = .realTime
            case "--fast": job.clock = .asFastAsPossible
            case "-y": job.overwrite = true
            case "-q", "--quiet": quiet = true
            case "-v", "--verbose": verbose = true
            case "--preset": job.encoder.preset = try OptionValue.preset(try scanner.value(for: name, in: arg))
            case "--crf": job.encoder.crf = try OptionValue.crf(try scanner.value(for: name, in: arg))
            case "--size": job.size = try OptionValue.size(try scanner.value(for: name, in: arg))
            case "--fps": job.frameRate = try OptionValue.frameRate(try scanner.value(for: name, in: arg))
            case "--threads": job.threads = try OptionValue.threads(try scanner.value(for: name, in: arg))
            case "--encoder-threads":
                job.encoder.threads = try OptionValue.threads(try scanner.value(for: name, in: arg), option: name)
            default:
                if !name.isEmpty { throw UsageError("unknown option '\(arg)' (see --help)") }
                guard content == nil else { throw UsageError("unexpected argument '\(arg)'") }
                content = arg
            }
        }
        guard let content else { throw UsageError("missing CONTENT (see --help)") }
        job.content = content
    } catch {
        printError("interlude play: \(error)")
        return 2
    }
    setMediaLogging(verbose: verbose)
    TemporaryFiles.installSignalCleanup()
    job.countsFrames = null
    job.viewerAttached = window || (job.output == nil && !null)   // the window is the default output
    if job.viewerAttached {
        let window = WindowHolder(), title = "interlude — \((job.content as NSString).lastPathComponent)"
        job.attachViews = { player in
            let w = try WindowOutput(format: player.surface.format, title: title)
            player.surface.attach(w)
            player.masterClock = w
            window.view = w
        }
        job.willRun = { session in window.view?.onInput = { input in route(input, to: session) } }
    }
    do {
        let outcome = try await job.run()
        if !quiet { for line in outcome.summary { printError(line) } }
        return 0
    } catch {
        printError("interlude play: \(error)")
        return error.exitStatus
    }
}

/// The window `PlayJob.attachViews` opened, for `willRun` to route its input.
@MainActor private final class WindowHolder {
    var view: WindowOutput?
}

/// A key or click in the window, as the viewer's action on the session (on the main actor).
private func route(_ input: WindowInput, to session: PlaySession) {
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
