import Ads
import Files
import Foundation
import Media
import Playback
import Timing

/// VAST NonLinear ads: a break whose ads are all non-linear is shown as overlays over the content
/// (drawn by the display container's `AdOverlayLayer`) instead of pausing it.
extension AdsManager {
    /// Seconds an overlay shows when VAST gives no `minSuggestedDuration`.
    static let defaultOverlaySeconds: Int64 = 10

    /// Whether a break's ads are overlays (non-linear ads with NonLinear creatives).
    func isOverlayBreak(_ plan: BreakPlan) -> Bool {
        !plan.ads.isEmpty && plan.ads.allSatisfy { !$0.isLinear && !$0.nonLinears.isEmpty }
    }

    /// Whether any break of the response will show overlays (a stitch then draws on content).
    var hasOverlays: Bool { perform { plans.contains(where: isOverlayBreak) } }

    /// Shows the ads of overlay break `index` from content time `contentTime`: static images are
    /// scheduled on the overlay layer with their `creativeView` beacons; IFrame and HTML resources
    /// cannot be drawn and are reported (VAST 503), as are images that cannot be fetched (502) or
    /// decoded (500). An ad that fails is replaced by the next non-linear stand-alone ad of the
    /// response (the buffet), as IMA falls back; each failure is reported with its Error URLs.
    func showOverlays(_ index: Int, plan: BreakPlan, at contentTime: MediaTime) {
        overlaysShown += 1
        adState = adState.settingBreak(index, to: .playing)
        var spares = plan.spares.filter { !$0.isLinear && !$0.nonLinears.isEmpty }[...]
        for (k, first) in plan.ads.enumerated() {
            var ad = first
            var result = overlay(for: ad, plan: plan, at: contentTime)
            while case .failure(let e) = result {
                recordError(e, urls: ad.errorURLs, adId: ad.id, breakId: plan.id)
                guard let next = spares.popFirst() else { break }
                ad = next
                result = overlay(for: ad, plan: plan, at: contentTime)
            }
            guard case .success(let o) = result else { adState = adState.settingAd(k, ofBreak: index, to: .failed); continue }
            request.adDisplayContainer.overlays?.add(o)
            overlaysOnScreen.append((o, ad, index))
            for url in ad.impressions { emitOverlayBeacon("impression", url, ad, plan.id, contentTime: contentTime) }
            for url in ad.nonLinearTrackingURLs(for: "creativeView") { emitOverlayBeacon("creativeView", url, ad, plan.id, contentTime: contentTime) }
            overlayCloses.append((o.contentEnd, ad, plan.id))
            adState = adState.settingAd(k, ofBreak: index, to: .played)
        }
        adState = adState.settingBreak(index, to: .played)
    }

    /// The overlay drawn at output pixel (x, y) on the last content frame, if any (a live window's click).
    public func overlay(atX x: Int, y: Int) -> ScheduledOverlay? {
        request.adDisplayContainer.overlays?.overlay(atX: x, y: y)
    }

    /// The viewer clicked overlay `overlay` (`PlaySession.click(atX:y:)` on it): its
    /// NonLinearClickTracking beacons (the wrappers' and the InLine NonLinear's), CLICKED with
    /// the NonLinearClickThrough URL, and that URL handed to the rendering settings' `linkOpener`.
    /// The content plays on.
    public func overlayClicked(_ overlay: ScheduledOverlay) {
        perform {
            guard !destroyed, let shown = overlaysOnScreen.last(where: {
                $0.overlay.adId == overlay.adId && $0.overlay.breakId == overlay.breakId && $0.overlay.contentStart == overlay.contentStart
            }) else { return }
            let plan = plans[shown.breakIndex]
            let at = request.adDisplayContainer.videoDisplay?.contentTime ?? overlay.contentStart
            for url in overlay.clickTracking { emitOverlayBeacon("clickTracking", url, shown.ad, plan.id, contentTime: at) }
            let target = overlay.clickThrough.map { MacroExpander.expand($0, context: macroContext(nil)) }
            deliver(.clicked, ad: makeAd(shown.ad, position: 1, total: 1, plan: plan, media: nil), data: target.map { ["clickThroughUrl": $0] })
            openLink(target)
        }
    }

    /// The first NonLinear of `ad` with a static image: the NonLinear and the image URL.
    static func staticImage(_ ad: ResolvedAd) -> (NonLinear, String)? {
        for nl in ad.nonLinears {
            for case let .staticResource(url, type) in nl.resources {
                let t = (type ?? "").lowercased()
                let u = url.template.trimmingCharacters(in: .whitespacesAndNewlines)
                if !u.isEmpty, t.isEmpty || t.hasPrefix("image/") { return (nl, u) }
            }
        }
        return nil
    }

    private func overlay(for ad: ResolvedAd, plan: BreakPlan, at start: MediaTime) -> Result<ScheduledOverlay, AdError> {
        func fail(_ code: Int, _ message: String) -> Result<ScheduledOverlay, AdError> {
            .failure(AdError(type: .adPlayingFailed, code: code, message: message, adId: ad.id))
        }
        guard let (nl, url) = Self.staticImage(ad) else {
            let kinds = Set(ad.nonLinears.flatMap(\.resources).map { r -> String in
                switch r { case .iframe: return "IFrameResource"; case .html: return "HTMLResource"; case .staticResource(_, let t): return "StaticResource \(t ?? "")" }
            }).sorted().joined(separator: ", ")
            return fail(503, "non-linear ad \(ad.id ?? "") has no static image to draw (\(kinds.isEmpty ? "no resource" : kinds) is not renderable here)")
        }
        guard request.adDisplayContainer.overlays != nil else { return fail(500, "non-linear ad \(ad.id ?? ""): no overlay layer on the display container") }
        let path: String
        switch mediaPaths[url] {
        case .success(let p)?: path = p
        case .failure(let e)?: return fail(502, "non-linear image \(url) not fetched: \(e.message)")
        case nil:
            let scheme = URL(string: url)?.scheme?.lowercased()
            guard scheme == nil || scheme == "file" else { return fail(502, "non-linear image \(url) was not fetched (call preloadMedia)") }
            guard allowsLocalMedia(ad, plan) else { return fail(502, "non-linear image \(url) is a local file named by a network document; refused") }
            path = scheme == "file" ? (URL(string: url)?.path ?? url) : resolvedMediaURL(url)
        }
        // a regular file only, read without blocking (a FIFO would wait for a writer)
        guard let data = try? LocalFile.read(path, maxBytes: 16 << 20, what: "non-linear image") else {
            return fail(502, "non-linear image \(url) cannot be read (at most 16 MB)")
        }
        let image: AdUIImage
        do { image = try AdUIImage(data: data) } catch { return fail(500, "non-linear image \(url) cannot be decoded: \(error)") }
        let duration = nl.minSuggestedDuration.flatMap { $0 > .zero ? $0 : nil } ?? MediaTime(value: Self.defaultOverlaySeconds, timescale: 1)
        var o = ScheduledOverlay(adId: ad.id ?? "", breakId: plan.id, image: image,
                                 width: nl.width ?? image.image.width, height: nl.height ?? image.image.height,
                                 contentStart: start, contentEnd: start + duration)
        o.clickThrough = nl.clickThrough
        o.clickTracking = ad.wrapperNonLinearClickTracking + nl.clickTracking
        return .success(o)
    }

    private func emitOverlayBeacon(_ event: String, _ url: URLTemplate, _ ad: ResolvedAd, _ breakId: String,
                                   contentTime: MediaTime, streamTime: MediaTime? = nil) {
        let display = request.adDisplayContainer.videoDisplay
        let at = streamTime ?? display?.streamTime ?? .zero
        emit(TrackedBeacon(event: event, streamTime: at, contentTime: contentTime,
                           url: MacroExpander.expand(url, context: macroContext(nil, at: at)), adId: ad.id, breakId: breakId))
    }

    /// Records the `close` beacons of overlays that ended by content time `t` (all of them when
    /// the content ended), at the stream time of their end frame on the timeline.
    func closeOverlays(reached t: MediaTime, contentEnded: Bool = false) {
        guard !overlayCloses.isEmpty, let display = request.adDisplayContainer.videoDisplay else { return }
        let segments = display.timeline.segments
        var due: [(end: MediaTime, ad: ResolvedAd, breakId: String)] = []
        overlayCloses.removeAll { item in
            guard contentEnded || item.end <= t else { return false }
            due.append(item)
            return true
        }
        for item in due.sorted(by: { $0.end < $1.end }) {
            var end = item.end, stream = display.streamTime
            if let seg = segments.first(where: { item.end >= $0.contentStart && item.end < $0.contentEnd }) {
                stream = seg.streamStart + (item.end - seg.contentStart)
            } else if let last = segments.last(where: { $0.contentEnd <= item.end }) {
                end = last.contentEnd; stream = last.streamEnd   // the content ended first
            }
            for url in item.ad.nonLinearTrackingURLs(for: "close") { emitOverlayBeacon("close", url, item.ad, item.breakId, contentTime: end, streamTime: stream) }
        }
    }
}
