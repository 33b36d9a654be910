import Ads
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
    public var hasOverlays: Bool { plans.contains(where: isOverlayBreak) }

    /// Shows the ads of overlay break `index` from content time `contentTime`: static images are
    /// scheduled on the overlay layer with their `creativeView` beacons; IFrame and HTML resources
    /// cannot be drawn and are reported (VAST 503), as are images that cannot be fetched (502) or
    /// decoded (500).
    func showOverlays(_ index: Int, plan: BreakPlan, at contentTime: MediaTime) {
        overlaysShown += 1
        state = state.settingBreak(index, to: .playing)
        for (k, ad) in plan.ads.enumerated() {
            switch overlay(for: ad, plan: plan, at: contentTime) {
            case .success(let o):
                request.adDisplayContainer.overlays?.add(o)
                for url in ad.impressions { emitOverlayBeacon("impression", url, ad, plan.id, contentTime: contentTime) }
                for url in overlayTracking(ad, "creativeView") { emitOverlayBeacon("creativeView", url, ad, plan.id, contentTime: contentTime) }
                overlayCloses.append((o.contentEnd, ad, plan.id))
                state = state.settingAd(k, ofBreak: index, to: .played)
            case .failure(let e):
                recordError(e, urls: ad.errorURLs, adId: ad.id, breakId: plan.id)
                state = state.settingAd(k, ofBreak: index, to: .failed)
            }
        }
        state = state.settingBreak(index, to: .played)
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
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        guard let size, size <= 16 << 20, let data = FileManager.default.contents(atPath: path) else {
            return fail(502, "non-linear image \(url) cannot be read (at most 16 MB)")
        }
        let image: AdUIImage
        do { image = try AdUIImage(data: data) } catch { return fail(500, "non-linear image \(url) cannot be decoded: \(error)") }
        let duration = nl.minSuggestedDuration.flatMap { $0 > .zero ? $0 : nil } ?? MediaTime(value: Self.defaultOverlaySeconds, timescale: 1)
        return .success(ScheduledOverlay(adId: ad.id ?? "", breakId: plan.id, image: image,
                                         width: nl.width ?? image.image.width, height: nl.height ?? image.image.height,
                                         contentStart: start, contentEnd: start + duration))
    }

    /// The NonLinearAds tracking URLs of `ad` for `event`.
    private func overlayTracking(_ ad: ResolvedAd, _ event: String) -> [URLTemplate] {
        ad.inline.creatives.compactMap(\.nonLinearAds).flatMap(\.trackingEvents).filter { $0.event == event }.map(\.url)
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
            for url in overlayTracking(item.ad, "close") { emitOverlayBeacon("close", url, item.ad, item.breakId, contentTime: end, streamTime: stream) }
        }
    }
}
