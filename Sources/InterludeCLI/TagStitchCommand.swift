// `interlude stitch --ads TAG` (and --ad-break with tags): the app built on AdsLoader/AdsManager.
import Ads
import Foundation
import Interlude
import Playback
import Timing

/// Runs a tag-driven stitch; returns the exit status.
@MainActor func runTagStitch(_ options: StitchOptions, native: NativeTagHook? = nil) async -> Int32 {
    let stitcher: TagStitcher
    if let tag = options.adTag {
        stitcher = TagStitcher(output: options.request, adTag: tag)
    } else {
        stitcher = TagStitcher(output: options.request, adsResponse: AdRulesBuilder.vmap(options.adRules))
    }
    if let n = options.maxRedirects { stitcher.settings.maxRedirects = n }
    if let t = options.loadVideoTimeout { stitcher.renderingSettings.loadVideoTimeout = t }
    if let t = options.playAdsAfter { stitcher.renderingSettings.playAdsAfterTime = t }
    stitcher.vastLoadTimeout = options.vastTimeout
    if let ui = options.adUI {
        stitcher.drawsDefaultAdUI = ui.drawsDefault
        stitcher.customAdUI = ui.custom
        if ui.disablesUi { stitcher.renderingSettings.disableUi = true }
    }
    if let dir = options.cacheDir { stitcher.cache = AdMediaCache(directory: URL(fileURLWithPath: dir)) }
    if let t = options.preloadTimeout { stitcher.cache.preloadTimeout = t }
    native?.configure(stitcher, options)
    if options.companionsDir != nil {
        stitcher.companionSlots = options.companionSizes.map { CompanionAdSlot(width: $0.0, height: $0.1) }
        stitcher.companionLBar = options.companionsDir == "lbar"
    }
    guard let result = await runWithProgress(options, { stitcher.onProgress = $0 }, { try await stitcher.run() }) else { return 1 }
    var report = StitchReport(result)
    var summary = StitchSummary.lines(result)
    native?.amend(&summary, result)
    var companions = CompanionFiles.Staged()
    if let dir = options.companionsDir, dir != "lbar" {
        do {
            companions = try CompanionFiles.stage(result.companions, into: dir)
            for (i, path) in companions.paths.enumerated() { report.companions?[i].file = path }
            summary.append("\(companions.items.count) companion(s) written to \(dir)")
        } catch {
            if options.request.output != "-", options.request.container != .hls { OutputTarget.discard(OutputTarget.temporaryPath(for: options.request.output)) }
            printError("interlude stitch: \(error)")
            return 1
        }
    }
    return finishStitch(options, summary: summary, companions: companions) { try native?.json(try report.json(), result) ?? report.json() }
}

extension StitchSummary {
    /// An ad response: each ad by its identity, and the events and beacons recorded.
    static func adResponseLines(_ r: StitchResult) -> [String] {
        var lines: [String] = []
        lines.append("wrote \(r.output.uri): \(r.format), \(r.videoFrames) frames, \(r.output.duration.clockString)")
        lines.append("content \(r.content.uri): \(r.content.duration.clockString); cue points \(r.cuePoints.map { String(format: "%g", $0) }.joined(separator: ", "))")
        for b in r.playedBreaks {
            lines.append("  break \(b.id) at content \(b.contentTime.clockString) -> stream \(b.streamTime.clockString), \(b.ads.count) ad(s), \(b.duration.clockString)"
                         + (b.doubleBox.map { " (\($0); content went on)" } ?? ""))
            for a in b.ads {
                lines.append("    ad \(a.ad.adPodInfo.adPosition)/\(a.ad.adPodInfo.totalAds) \(a.ad.adId) \"\(a.ad.adTitle)\" (\(a.ad.adSystem)) at \(a.placement.streamTime.clockString), \(a.placement.duration.clockString), \(a.tracking.count) beacon(s)")
            }
        }
        for e in r.errors { lines.append("  error \(e.code): \(e.message)") }
        for w in r.warnings { lines.append("  warning: \(w)") }
        lines.append("\(r.events.count) ad events, \(r.beacons.count) beacons recorded (none fired)")
        lines.append(String(format: "took %.2fs (plan %.2fs; busy: decode %.2fs, encode %.2fs, mux %.2fs)", r.timings.total, r.timings.plan, r.timings.decode, r.timings.encode, r.timings.mux))
        return lines.map(Printable.escaped)   // ad ids, titles and systems are the documents' text
    }
}
