// A stitch job with an ad response (`--ads TAG`, or tags in the breaks): the stitch through
// AdsLoader/AdsManager (`stitch` with `.adTag` or `.adsResponse`), its companions and its report.
import Foundation
import Interlude
import Playback
import Timing

extension StitchJob {
    /// Runs the tag-driven stitch (with `native`, the native breaks beside the VAST ones),
    /// stages the companions and commits.
    func runTag(_ onProgress: (@Sendable (MediaTime, MediaTime) -> Void)?, native: NativeTagHook? = nil) async throws(JobFailure) -> Outcome {
        let breaks: StitchBreaks = adTag.map { .adTag($0) } ?? .adsResponse(AdRulesBuilder.vmap(adRules))
        var options = StitchOptions()
        if let n = maxRedirects { options.settings.maxRedirects = n }
        if let t = loadVideoTimeout { options.renderingSettings.loadVideoTimeout = t }
        if let t = playAdsAfter { options.renderingSettings.playAdsAfterTime = t }
        options.vastLoadTimeout = vastTimeout
        if let ui = adUI {
            options.drawsDefaultAdUI = ui.drawsDefault
            options.customAdUI = ui.custom
            if ui.disablesUi { options.renderingSettings.disableUi = true }
        }
        if let dir = cacheDir { options.cache = AdMediaCache(directory: URL(fileURLWithPath: dir)) }
        if let t = preloadTimeout { options.cache.preloadTimeout = t }
        native?.configure(&options, self)
        if companionsDir != nil {
            options.companionSlots = companionSizes.map { CompanionAdSlot(width: $0.0, height: $0.1) }
            options.companionLBar = companionsDir == "lbar"
        }
        options.onProgress = onProgress
        let result = try await Self.stitching(request, breaks, options)
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
