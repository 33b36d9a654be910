// `interlude stitch`: parses options into a StitchJob, runs it with a progress line, prints its summary.
import Files
import Foundation
import Interlude
import Jobs
import Playback
import Timing

let stitchHelp = """
    usage: interlude stitch CONTENT -o OUT [--ads TAG | --ad-break TIME=AD[,AD…]…] [options]

    Splices ads into CONTENT at exact cue times and writes a stitched MP4, an HLS package or a
    frame stream.

    options:
      -o, --output OUT          output file, or - for standard output (y4m and nut only)
      --ads TAG                 a VAST or VMAP ad tag (http(s) URL, file:// URL or path),
                                played through AdsLoader/AdsManager as a player app would:
                                VMAP breaks where it puts them, a VAST ad or pod as a pre-roll;
                                a VMAP break with the interlude:doublebox extension plays as a
                                double box (see docs/PIP.md; needs --smart off for MP4/HLS)
      --ad-break TIME=AD[,AD…]  an ad break the app schedules; each AD is a media file or a
                                VAST tag, played in order as a pod. TIME: seconds (20.5),
                                HH:MM:SS.mmm, start or end. Repeatable. A suffix
                                @doublebox[:LEVEL] makes a double-box break (media files
                                only): content goes on in a window while the ad plays full
                                size, its sound at LEVEL (-12dB by default, -60dB..0dB or
                                mute); @doublebox-reverse[:LEVEL] puts the ad in the window
                                over the full-size content
      --ad-ui none|default|FILE.json
                                the ad UI drawn on ad frames of VAST ads (default: default,
                                IMA's UI: "Ad 1 of 2 · 0:12", skip button, Learn more).
                                FILE.json: disableUi and the app's own UI from a layout (see
                                docs/AD-UI.md); ads whose VAST
                                forbids hiding (UiHideable 0) keep the default UI. Plain
                                media breaks get no UI
      --native-break TIME=RESPONSE[@lbar]
                                a custom native ad (OpenRTB Native 1.2 response: file or
                                http(s) URL) drawn by its format's template: a full-frame
                                break at TIME, or with @lbar an L-bar around the content from
                                TIME for the template's duration. Repeatable. Needs
                                --native-format. With --ads, a VMAP's <vmap:CustomAdData
                                templateType="openrtb-native"> breaks are native breaks
                                (beside its VAST breaks; --ad-break tags mix the same way)
      --native-format FILE      a native format: formatID, asset names mapped to ids, and its
                                template / lbar layouts (JSON). Repeatable
      --companions DIR|lbar     DIR: write the companion shown beside the player for each ad,
                                one image per slot (companion-WxH-N-AD.png …), listed with
                                their stream times in the report. lbar: show ads with
                                companions in an L-shaped layout instead (the ad shrunk to the
                                top left, a tall companion on the right, a wide one below)
      --companion-sizes WxH[,WxH…]
                                the companion slots (default: 300x250,728x90)
      --report FILE             write a JSON report (breaks, ads, stream times, errors; with
                                tags also events, beacons and cue points)
      --format mp4|hls|dash|y4m|nut
                                output container (default: mp4; from OUT's extension when it is
                                .y4m or .nut). hls: OUT is a folder that gets MPEG-TS
                                segments and index.m3u8 with ad markers (a content of several
                                languages: a packed-audio rendition each and master.m3u8 over
                                them; every output keeps every audio track). dash: OUT is a folder
                                that gets CMAF tracks, index.mpd and index.m3u8 (= --format hls
                                --hls-segments cmaf)
      --hls-time SECONDS        HLS target segment duration (default: 6)
      --hls-segments ts|cmaf    HLS media segments: MPEG-TS (default) or CMAF tracks (video and
                                audio fMP4, EXT-X-MAP), also addressed by a DASH index.mpd
                                (--segments is the same option)
      --smart auto|on|off       copy the content's packets instead of re-encoding them (MP4,
                                HLS; H.264 or HEVC content at its own size and rate): only the GOPs a
                                cue splits and the ads are encoded, to the content's profile.
                                auto (default) falls back to a full re-encode and says why
                                in the report; on fails instead
      --transcode-cache DIR|off where smart rendering keeps ads encoded to the output's profile,
                                and the AAC audio of content and ads, so the next stitch with
                                the same ad copies it and encodes audio only around joins
                                where it places the same audio in the same phase (default:
                                ~/.cache/interlude/transcoded, or transcoded/ in --cache-dir;
                                at most 2 GB, least recently used first out)
      --loudness MODE           ad loudness: off (default), auto (each ad gained to the
                                content's EBU R128 integrated loudness), or a level in LUFS
                                such as -23 (EBU R128) or -24 (ATSC A/85); true peak limited
                                to -1 dBTP
      --preset PRESET           libx264 preset (default: veryfast)
      --crf N                   libx264 constant rate factor, 0-51 (default: 23)
      --audio-bitrate BPS       AAC bit rate in bits/s (default: 128000)
      --size WxH                output size, even numbers (default: the content's display size);
                                pictures are scaled to fit with black bars, never stretched
      --fps RATE                output frame rate, e.g. 25 or 30000/1001 (default: the content's)
      --threads N               decoder threads (default: 0, FFmpeg decides)
      --encoder-threads N       threads of each encoder, 0-64 (default: 0, one per CPU it
                                may use); libx264's output depends on its thread count, so a
                                fixed N gives the same bytes on any machine, and 1 suits many
                                stitches at once
      --max-redirects N         most wrapper redirects per chain (default: 4)
      --vast-timeout MS         timeout of each VAST request in milliseconds (default: 8000
                                for the first, 4000 for each wrapper)
      --load-video-timeout S    seconds to fetch one ad media file (default: 8)
      --play-ads-after S        with ad rules, play only breaks after this content time
      --preload-timeout S       seconds to fetch all ad media together (default: 30)
      --cache-dir DIR           where fetched ad media is cached (default: ~/.cache/interlude;
                                created private; a folder others may write is refused; each
                                entry is checked against the size and SHA-256 it was saved with)
      --stall-timeout S|off     once ad media is ready, fail the stitch when no frame is
                                written for S seconds because content is paused and no ad
                                plays (a hang turned into an error; default: \(Int(StitchRequest.defaultStallTimeout)))
      --allow-truncated         stitch content that decodes more than 1 s short of its
                                declared duration (an error otherwise); the report says so
      -y                        overwrite OUT and the report if they exist (never a directory,
                                device, FIFO or symlink); with --format hls, replace a previous
                                package (a folder of playlists and segments only)
      -q, --quiet               no progress line
      -v, --verbose             show FFmpeg's own warnings
      -h, --help                this help

    An ad that cannot be opened or decoded is left out of its pod and reported; the stitch
    goes on. Each option is given once (--ad-break, --native-break and --native-format repeat);
    -- ends the options. No output (-o, --report, --companions) may be an input, -y or not.
    Inputs are regular files or URLs (a FIFO or device is refused); http(s) content is read
    with an 8 s deadline per read. Exit status: 0 done, 1 failed (no output written), 2 bad
    arguments (an output that is an input included).
    """

/// Runs `interlude stitch ARGS`: parses, runs the `StitchJob` with a progress line on a
/// terminal, prints the summary (to stderr when stdout carries the stream); the exit status.
@MainActor func runStitch(_ args: [String]) async -> Int32 {
    let options: StitchOptions
    do {
        guard let parsed = try StitchOptions.parse(args) else { print(stitchHelp); return 0 }
        options = parsed
    } catch {
        printError("interlude stitch: \(error)")
        return 2
    }
    setMediaLogging(verbose: options.verbose)
    TemporaryFiles.installSignalCleanup()
    let progress = ProgressLine(enabled: !options.quiet && isatty(STDERR_FILENO) == 1)
    let outcome: StitchJob.Outcome
    do {
        outcome = try await options.job.run { done, total in progress.update(done: done, total: total) }
    } catch {
        progress.clear()
        printError("interlude stitch: \(error)")
        return error.exitStatus
    }
    progress.clear()
    for line in outcome.summary {
        if options.job.request.output == "-" { printError(line) } else { print(line) }
    }
    return 0
}

/// Parsed `stitch` options: the job, and how the command shows it.
struct StitchOptions {
    /// The stitch to run.
    var job: StitchJob
    /// No progress line.
    var quiet = false
    /// FFmpeg's own warnings shown.
    var verbose = false

    /// Parses; nil when help was asked for.
    static func parse(_ args: [String]) throws -> StitchOptions? {
        var scanner = ArgumentScanner(args, repeatable: ["--ad-break", "--native-break", "--native-format"], aliases: commonAliases)
        var content: String?
        var output: String?
        var breaks: [(BreakCue, [String], DoubleBoxStyle?)] = []
        var format: OutputContainer?
        var hlsSegmentsGiven = false
        var dash = false   // --format dash: an HLS package of CMAF tracks, whose index.mpd is the point
        var encoder = EncoderSettings()
        var size: (Int, Int)?
        var fps: Rational?
        var overwrite = false
        var threads = 0
        var report: String?
        var quiet = false, verbose = false
        var adTag: String?
        var maxRedirects: Int?
        var loadVideoTimeout: Double?
        var playAdsAfter: Double?
        var vastTimeout: Double?
        var cacheDir: String?
        var allowTruncated = false
        var preloadTimeout: Double?
        var stallTimeout: Double? = StitchRequest.defaultStallTimeout
        var hls = HLSSettings()
        var loudness = LoudnessMode.off
        var smart = SmartRendering.auto
        var transcodeCache: String?
        var adUI: AdUIChoice?
        var adUIPath: String?
        var nativeBreaks: [(position: BreakCue, response: String, layout: NativeBreak.Layout)] = []
        var nativeFormats: [String] = []
        var companionsDir: String?
        var companionSizes: [(Int, Int)]?
        func number(_ name: String, _ v: String, _ range: ClosedRange<Double>) throws -> Double {
            guard let d = Double(v), range.contains(d) else { throw UsageError("\(name) must be a number from \(range.lowerBound) to \(range.upperBound), not '\(v)'") }
            return d
        }
        while let arg = scanner.next() {
            let name = try scanner.name(of: arg)
            switch name {
            case "-h", "--help": return nil
            case "-o", "--output": output = try scanner.value(for: name, in: arg)
            case "--ad-break": breaks.append(try parseBreak(try scanner.value(for: name, in: arg)))
            case "--report": report = try scanner.value(for: name, in: arg)
            case "--native-break": nativeBreaks.append(try parseNativeBreak(try scanner.value(for: name, in: arg)))
            case "--native-format": nativeFormats.append(try scanner.value(for: name, in: arg))
            case "--format":
                let v = try scanner.value(for: name, in: arg)
                // dash: one set of CMAF tracks, addressed by index.mpd (and index.m3u8)
                dash = v == "dash"
                guard let f = dash ? .hls : OutputContainer(rawValue: v) else { throw UsageError("--format must be mp4, hls, dash, y4m or nut, not '\(v)'") }
                format = f
            case "--preset": encoder.preset = try OptionValue.preset(try scanner.value(for: name, in: arg))
            case "--crf": encoder.crf = try OptionValue.crf(try scanner.value(for: name, in: arg))
            case "--audio-bitrate":
                let v = try scanner.value(for: name, in: arg)
                guard let n = Int(v), (8_000...1_024_000).contains(n) else { throw UsageError("--audio-bitrate must be 8000-1024000, not '\(v)'") }
                encoder.audioBitRate = n
            case "--size": size = try OptionValue.size(try scanner.value(for: name, in: arg))
            case "--fps": fps = try OptionValue.frameRate(try scanner.value(for: name, in: arg))
            case "--threads": threads = try OptionValue.threads(try scanner.value(for: name, in: arg))
            case "--encoder-threads": encoder.threads = try OptionValue.threads(try scanner.value(for: name, in: arg), option: name)
            case "--hls-time":
                let v = try scanner.value(for: name, in: arg)
                guard let d = Double(v), d >= 1, d <= 60 else { throw UsageError("--hls-time must be seconds from 1 to 60, not '\(v)'") }
                hls.segmentDuration = MediaTime(seconds: d, timescale: 1000)
            case "--hls-segments", "--segments":
                let v = try scanner.value(for: name, in: arg)
                guard let f = HLSSegmentFormat(rawValue: v) else { throw UsageError("--hls-segments must be ts or cmaf, not '\(v)'") }
                hls.segmentFormat = f
                hlsSegmentsGiven = true
            case "--loudness":
                let v = try scanner.value(for: name, in: arg)
                guard let mode = LoudnessMode(parsing: v) else { throw UsageError("--loudness must be off, auto or LUFS from -40 to -5 such as -23, not '\(v)'") }
                loudness = mode
            case "--transcode-cache": transcodeCache = try scanner.value(for: name, in: arg)
            case "--smart":
                let v = try scanner.value(for: name, in: arg)
                guard let mode = SmartRendering(rawValue: v) else { throw UsageError("--smart must be auto, on or off, not '\(v)'") }
                smart = mode
            case "--ads": adTag = try scanner.value(for: name, in: arg)
            case "--ad-ui":
                let v = try scanner.value(for: name, in: arg)
                adUI = try AdUIChoice.parse(v)
                if case .layout = adUI { adUIPath = v }
            case "--companions": companionsDir = try scanner.value(for: name, in: arg)
            case "--companion-sizes":
                let v = try scanner.value(for: name, in: arg)
                companionSizes = try v.split(separator: ",").map { item in
                    let wh = item.split(separator: "x").compactMap { Int($0) }
                    guard wh.count == 2, (1...4096).contains(wh[0]), (1...4096).contains(wh[1]) else {
                        throw UsageError("--companion-sizes must be WxH[,WxH…] such as 300x250,728x90, not '\(v)'")
                    }
                    return (wh[0], wh[1])
                }
            case "--max-redirects":
                maxRedirects = Int(try number(name, try scanner.value(for: name, in: arg), 0...20))
            case "--vast-timeout": vastTimeout = try number(name, try scanner.value(for: name, in: arg), 1...120_000)
            case "--load-video-timeout": loadVideoTimeout = try number(name, try scanner.value(for: name, in: arg), 0.1...600)
            case "--play-ads-after": playAdsAfter = try number(name, try scanner.value(for: name, in: arg), 0...1e7)
            case "--cache-dir": cacheDir = try scanner.value(for: name, in: arg)
            case "--preload-timeout": preloadTimeout = try number(name, try scanner.value(for: name, in: arg), 0.1...3600)
            case "--stall-timeout":
                let v = try scanner.value(for: name, in: arg)
                guard v == "off" || Double(v).map({ (0.1...86_400).contains($0) }) == true else {
                    throw UsageError("--stall-timeout must be seconds from 0.1 to 86400, or off, not '\(v)'")
                }
                stallTimeout = Double(v)
            case "-y": overwrite = true
            case "--allow-truncated": allowTruncated = true
            case "-q", "--quiet": quiet = true
            case "-v", "--verbose": verbose = true
            default:
                if !name.isEmpty { throw UsageError("unknown option '\(arg)' (see --help)") }
                guard content == nil else { throw UsageError("unexpected argument '\(arg)'") }
                content = arg
            }
        }
        guard let content else { throw UsageError("missing CONTENT (see --help)") }
        guard let output else { throw UsageError("missing -o OUT") }
        let container = format ?? (output.hasSuffix(".y4m") ? .y4m : output.hasSuffix(".nut") ? .nut : .mp4)
        if output == "-" && (container == .mp4 || container == .hls) { throw UsageError("writing to standard output needs --format nut or y4m") }
        if hls.segmentFormat != .mpegTS && container != .hls { throw UsageError("--hls-segments needs --format hls") }
        if dash {
            if hlsSegmentsGiven && hls.segmentFormat != .cmaf { throw UsageError("--format dash writes CMAF segments, not --hls-segments ts") }
            hls.segmentFormat = .cmaf
        }
        if adTag != nil && !breaks.isEmpty { throw UsageError("use --ads or --ad-break, not both") }
        if !nativeBreaks.isEmpty && nativeFormats.isEmpty { throw UsageError("--native-break needs --native-format FILE") }
        if !nativeBreaks.isEmpty && adTag != nil { throw UsageError("use --ads or --native-break, not both (a VMAP carries its own native breaks)") }
        let named = breakRequests(breaks)
        if named.contains(where: { $0.doubleBox != nil && $0.ads.contains { if case .tag = AdRulesBuilder.AdReference.guess($0) { return true } else { return false } } }) {
            throw UsageError("a double-box break takes ad media files, not VAST tags")
        }
        let request = StitchRequest(content: content, breaks: named, output: output,
                                    container: container, encoder: encoder, size: size, frameRate: fps,
                                    overwrite: overwrite, threads: threads)
        var o = StitchJob(request: request)
        o.request.allowTruncated = allowTruncated
        o.request.hls = hls
        o.request.loudness = loudness
        o.request.smart = smart
        o.request.stallTimeout = stallTimeout
        o.request.transcodeCache = transcodeCache == "off" ? nil
            : transcodeCache ?? (cacheDir.map { URL(fileURLWithPath: $0) } ?? AdMediaCache.defaultDirectory.deletingLastPathComponent())
                .appendingPathComponent("transcoded").path
        o.reportPath = report
        o.adTag = adTag
        o.maxRedirects = maxRedirects; o.loadVideoTimeout = loadVideoTimeout
        o.playAdsAfter = playAdsAfter
        o.vastTimeout = vastTimeout
        o.cacheDir = cacheDir
        o.preloadTimeout = preloadTimeout
        o.nativeBreaks = nativeBreaks
        o.nativeFormats = nativeFormats
        o.adUI = adUI
        o.adUIPath = adUIPath
        o.companionsDir = companionsDir
        if let companionSizes { o.companionSizes = companionSizes }
        if companionsDir != nil, !o.usesAdsAPI {
            throw UsageError("--companions needs VAST ads (--ads, or a tag in --ad-break)")
        }
        if adUI != nil, !o.usesAdsAPI {
            throw UsageError("--ad-ui needs VAST ads (--ads, or a tag in --ad-break): plain media breaks have no ad data to draw")
        }
        return StitchOptions(job: o, quiet: quiet, verbose: verbose)
    }

    /// Parses `TIME=AD[,AD…][@doublebox[-reverse][:LEVEL]]`.
    static func parseBreak(_ value: String) throws -> (BreakCue, [String], DoubleBoxStyle?) {
        var text = value
        var style: DoubleBoxStyle?
        if let at = value.range(of: "@doublebox", options: [.caseInsensitive, .backwards]) {
            do { style = try DoubleBoxStyle(parsing: String(value[value.index(after: at.lowerBound)...])) } catch {
                throw UsageError("--ad-break \(value): \(error)")
            }
            text = String(value[..<at.lowerBound])
            if case .postroll? = BreakCue(parsing: String(text.prefix { $0 != "=" })) {
                throw UsageError("--ad-break \(value): a double-box break cannot be at the end (content must go on beside it)")
            }
        }
        guard let eq = text.firstIndex(of: "=") else { throw UsageError("--ad-break must be TIME=AD[,AD…], not '\(text)'") }
        let time = String(text[..<eq])
        guard let cue = BreakCue(parsing: time) else {
            throw UsageError("malformed TIME '\(time)' in --ad-break (use seconds, HH:MM:SS.mmm, start or end)")
        }
        let ads = text[text.index(after: eq)...].split(separator: ",").map(String.init).filter { !$0.isEmpty }
        guard !ads.isEmpty else { throw UsageError("--ad-break \(text) names no ad media") }
        return (cue, ads, style)
    }

    /// Breaks in play order, named by the sequencer: `preroll`, `preroll-2`…, `midroll-1`…, `postroll`, `postroll-2`…
    static func breakRequests(_ breaks: [(BreakCue, [String], DoubleBoxStyle?)]) -> [AdBreakRequest] {
        Stitcher.ordered(breaks.map { var b = AdBreakRequest(id: "", position: $0.0, ads: $0.1); b.doubleBox = $0.2; return b })
    }
}
