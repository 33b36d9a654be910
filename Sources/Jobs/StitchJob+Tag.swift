// A stitch job with an ad response (`--ads TAG`, or tags in the breaks): the app built on
// AdsLoader/AdsManager (`TagStitcher`), its companions and its report.
import Foundation
import Interlude
import Playback
import Timing

extension StitchJob {
    /// Runs the tag-driven stitch (with `native`, the native breaks beside the VAST ones),
    /// stages the companions and commits.
    func runTag(_ onProgress: (@Sendable (MediaTime, MediaTime) -> Void)?, native: NativeTagHook? = nil) async throws(JobFailure) -> Outcome {
        let stitcher: TagStitcher
        if let tag = adTag {
            stitcher = TagStitcher(output: request, adTag: tag)
        } else {
            stitcher = TagStitcher(output: request, adsResponse: AdRulesBuilder.vmap(adRules))
        }
        if let n = maxRedirects { stitcher.settings.maxRedirects = n }
        if let t = loadVideoTimeout { stitcher.renderingSettings.loadVideoTimeout = t }
        if let t = playAdsAfter { stitcher.renderingSettings.playAdsAfterTime = t }
        stitcher.vastLoadTimeout = vastTimeout
        if let ui = adUI {
            stitcher.drawsDefaultAdUI = ui.drawsDefault
            stitcher.customAdUI = ui.custom
            if ui.disablesUi { stitcher.renderingSettings.disableUi = true }
        }
        if let dir = cacheDir { stitcher.cache = AdMediaCache(directory: URL(fileURLWithPath: dir)) }
        if let t = preloadTimeout { stitcher.cache.preloadTimeout = t }
        native?.configure(stitcher, self)
        if companionsDir != nil {
            stitcher.companionSlots = companionSizes.map { CompanionAdSlot(width: $0.0, height: $0.1) }
            stitcher.companionLBar = companionsDir == "lbar"
        }
        stitcher.onProgress = onProgress
        let result = try await Self.stitching { try await stitcher.run() }
        var report = StitchReport(result)
        var summary = StitchSummary.lines(result)
        native?.amend(&summary, result)
        var companions = CompanionFiles.Staged()
        if let dir = companionsDir, dir != "lbar" {
            do throws(JobFailure) {
                companions = try CompanionFiles.stage(result.companions, into: dir)
            } catch {
                discardOutput()
                throw error
            }
            for (i, path) in companions.paths.enumerated() { report.companions?[i].file = path }
            summary.append("\(companions.items.count) companion(s) written to \(dir)")
        }
        return try commit(result, summary: summary, companions: companions) { [report] in
            try native?.json(try report.json(), result) ?? report.json()
        }
    }
}
