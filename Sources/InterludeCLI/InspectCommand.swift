// `interlude inspect`: resolves a VAST/VMAP tag and prints its ad schedule. Argument parsing only;
// the work and the report are `InspectJob`'s.
import Ads
import Foundation
import Interlude
import Jobs
import Timing

let inspectUsage = """
    usage: interlude inspect TAG [options]
           interlude inspect --conformance DIR

    Resolves TAG (a file path or an http(s)/file URL to a VAST or VMAP document), follows wrapper
    chains and prints the ad schedule: breaks with cue times, each ad's id, title, ad system,
    duration, skip offset, chosen media file and why, tracking counts, wrapper chain, and every
    error or warning with its VAST code. A plain VAST tag is one pre-roll break (cue point 0).

    options:
      --json                     print one JSON object instead of text
      --content-duration SECS    content length, to place n% breaks and repeatAfter
      --max-redirects N          most wrapper redirects per chain (default 4)
      --timeout SECS             timeout of the first request (default 8)
      --wrapper-timeout SECS     timeout of each wrapper request (default 4)
      --max-bytes N              largest document accepted (default 2097152)
      --mime-types A,B,...       MIME types the pipeline decodes, preferred first
      --bitrate KBPS             target bitrate for media selection (default: highest)
      --size WxH                 output size for media selection (e.g. 1280x720)
      --no-mezzanine             do not prefer Mezzanine files
      --offline                  never fetch http(s): network wrappers fail with 301
      --allow-multiple-ads       a VAST 3+ wrapper without allowMultipleAds keeps every ad
                                 of the pod behind it (default: the spec's false, first ad only)
      --conformance DIR          load every .xml under DIR offline and print a table
      --native-format FILE       with an OpenRTB Native 1.2 response (a .json TAG, or a file
                                 starting with '{'): name its assets by this format
      -h, --help                 this text

    exit status: 0 when the tag resolved (even to no ads); 1 when it could not be read; 2 for bad usage.
    """

/// Runs `interlude inspect ARGS`; returns the exit status.
func runInspect(_ args: [String]) async -> Int32 {
    var options = AdTagOptions()
    var media = MediaSelectionPreferences()
    var json = false
    var tag: String?
    var conformanceDir: String?
    var nativeFormats: [String] = []
    var i = 0
    func fail(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("interlude inspect: \(message)\n".utf8))
        return 2
    }
    func value(_ name: String) -> String? {
        guard i + 1 < args.count else { return nil }
        i += 1
        return args[i]
    }
    var optionsEnded = false
    var seen: Set<String> = []
    while i < args.count {
        let a = args[i]
        if !optionsEnded, a == "--" { optionsEnded = true; i += 1; continue }
        if !optionsEnded, a.hasPrefix("-"), a.count > 1, a != "--native-format", !seen.insert(a == "-h" ? "--help" : a).inserted {
            return fail("option \(a) given twice (each option once; only --native-format repeats)")
        }
        switch optionsEnded ? "" : a {
        case "-h", "--help": print(inspectUsage); return 0
        case "--json": json = true
        case "--offline": options.allowNetwork = false
        case "--allow-multiple-ads": options.defaultAllowMultipleAds = true
        case "--no-mezzanine": media.preferMezzanine = false
        case "--content-duration":
            guard let v = value(a), let t = MediaTime(decimal: v) ?? MediaTime(clock: v), t > .zero else {
                return fail("--content-duration needs a positive number of seconds")
            }
            options.contentDuration = t
        case "--max-redirects":
            guard let v = value(a), let n = Int(v), n >= 0 else { return fail("--max-redirects needs a whole number ≥ 0") }
            options.maxRedirects = n
        case "--timeout", "--wrapper-timeout":
            guard let v = value(a), let s = Double(v), s > 0, s.isFinite else { return fail("\(a) needs a positive number of seconds") }
            if a == "--timeout" { options.initialTimeout = s } else { options.wrapperTimeout = s }
        case "--max-bytes":
            guard let v = value(a), let n = Int(v), n > 0 else { return fail("--max-bytes needs a positive whole number") }
            options.maxDocumentBytes = n
        case "--mime-types":
            guard let v = value(a) else { return fail("--mime-types needs a comma-separated list") }
            media.mimeTypes = v.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
        case "--bitrate":
            guard let v = value(a), let n = Int(v), n > 0 else { return fail("--bitrate needs kbit/s as a positive whole number") }
            media.targetBitrate = n
        case "--size":
            let parts = value(a)?.lowercased().split(separator: "x").compactMap { Int($0) } ?? []
            guard parts.count == 2, parts[0] > 0, parts[1] > 0 else { return fail("--size needs WIDTHxHEIGHT, e.g. 1280x720") }
            media.outputWidth = parts[0]
            media.outputHeight = parts[1]
        case "--native-format":
            guard let v = value(a) else { return fail("--native-format needs a file") }
            nativeFormats.append(v)
        case "--conformance":
            guard let v = value(a) else { return fail("--conformance needs a directory") }
            conformanceDir = v
        default:
            if !optionsEnded && a.hasPrefix("-") && a.count > 1 { return fail("unknown option '\(a)' (see --help)") }
            if tag != nil { return fail("only one TAG, got '\(tag!)' and '\(a)'") }
            tag = a
        }
        i += 1
    }
    options.media = media
    guard let tag = tag ?? (conformanceDir != nil ? "" : nil) else { return fail("missing TAG (see --help)") }
    var job = InspectJob(tag: tag)
    job.options = options
    job.json = json
    job.conformanceDirectory = conformanceDir
    job.nativeFormats = nativeFormats
    let outcome = await job.run()
    if let error = outcome.error { FileHandle.standardError.write(Data("interlude inspect: \(error)\n".utf8)) }
    print(outcome.output, terminator: "")
    return outcome.succeeded ? 0 : 1
}
