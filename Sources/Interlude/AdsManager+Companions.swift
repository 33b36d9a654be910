import Ads
import Files
import Foundation
import Media
import Playback
import Timing

/// Companion ads: for each linear ad played, every `CompanionAdSlot` of the display container is
/// filled with the ad's companion of exactly the slot's size that has a static image.
extension AdsManager {
    /// The static-image companion of `ad` that fits a `width`×`height` slot: the companion and its URL.
    static func companion(_ ad: ResolvedAd, width: Int, height: Int) -> (Companion, String, String)? {
        for c in ad.companions where c.width == width && c.height == height {
            for case let .staticResource(url, type) in c.resources {
                let t = (type ?? "").lowercased()
                let u = url.template.trimmingCharacters(in: .whitespacesAndNewlines)
                if !u.isEmpty, t.hasPrefix("image/") { return (c, u, t) }
            }
        }
        return nil
    }

    /// The companion image URLs of `ad` for the container's slots (fetched with the ad's media).
    func companionURLs(_ ad: ResolvedAd) -> [String] {
        request.adDisplayContainer.companionSlots.compactMap { Self.companion(ad, width: $0.width, height: $0.height)?.1 }
    }

    /// The companions of `ad` for the container's slots, loaded when the ad starts (shown by an
    /// L-bar layout at once); errors 603 (not fetched) and 604 (not an image).
    func loadCompanions(_ ad: ResolvedAd, breakId: String, plan: BreakPlan) -> [(CompanionAdSlot, FilledCompanion)] {
        var out: [(CompanionAdSlot, FilledCompanion)] = []
        let start = request.adDisplayContainer.videoDisplay?.streamTime ?? .zero
        for slot in request.adDisplayContainer.companionSlots {
            guard let (c, url, type) = Self.companion(ad, width: slot.width, height: slot.height) else { continue }
            func fail(_ code: Int, _ message: String) {
                recordError(AdError(type: .adPlayingFailed, code: code, message: message, adId: ad.id), urls: ad.errorURLs, adId: ad.id, breakId: breakId)
            }
            let path: String
            switch mediaPaths[url] {
            case .success(let p)?: path = p
            case .failure(let e)?: fail(603, "companion \(url) not fetched: \(e.message)"); continue
            case nil:
                let scheme = URL(string: url)?.scheme?.lowercased()
                guard scheme == nil || scheme == "file", allowsLocalMedia(ad, plan) else { fail(603, "companion \(url) not fetched"); continue }
                path = scheme == "file" ? (URL(string: url)?.path ?? url) : resolvedMediaURL(url)
            }
            // a regular file only, read without blocking (a FIFO would wait for a writer)
            guard let data = try? LocalFile.read(path, maxBytes: 16 << 20, what: "companion") else {
                fail(603, "companion \(url) cannot be read (at most 16 MB)"); continue
            }
            guard let image = try? ImageDecoder.decode(data, maxPixels: 4_194_304), let kind = ImageDecoder.kind(of: data) else {
                fail(604, "companion \(url) is not a decodable image"); continue
            }
            out.append((slot, FilledCompanion(slot: "\(slot.width)x\(slot.height)", adId: ad.id ?? "", breakId: breakId, companionId: c.id,
                                              data: data, creativeType: type, fileExtension: kind.rawValue, streamStart: start, streamEnd: start,
                                              clickThrough: c.clickThrough?.template, image: AdUIImage(image))))
            for t in c.trackingEvents where t.event == "creativeView" {
                emit(TrackedBeacon(event: "creativeView", streamTime: start, contentTime: request.adDisplayContainer.videoDisplay?.contentTime ?? .zero,
                                   url: MacroExpander.expand(t.url, context: macroContext(nil, at: start)), adId: ad.id, breakId: breakId))
            }
        }
        return out
    }

    /// Records the companions shown with an ad that played at `placement` in their slots.
    func fillCompanionSlots(_ shown: [(CompanionAdSlot, FilledCompanion)], placement: PlacedAd) {
        for (slot, c) in shown {
            var c = c
            c.streamStart = placement.streamTime
            c.streamEnd = placement.streamTime + placement.duration
            slot.fill(c)
        }
    }
}
