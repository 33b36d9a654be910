// The media file of a native ad's video asset: its VAST (inline or a wrapper chain) resolved like a VAST ad tag.
import Ads
import Foundation

/// Chooses the media file of a native video asset. The asset's VAST goes through the project's
/// hardened loader (`AdTagResolver`), so wrapper chains are followed with the same limits as ad
/// tags: `maxRedirects` hops, a deadline per request, the document size cap, loops refused, and
/// no local media (or local wrapper) from any document that came over the network.
enum NativeVideoResolver {
    /// What the video asset came to.
    struct Outcome: Sendable {
        /// The chosen media file: an http(s) URL, or a local path when every document was local.
        var url: String?
        /// Width over height of the chosen file, when declared.
        var aspect: Double?
        /// Why there is no video (the image layout is shown instead), for the report.
        var problem: String?
    }

    /// Resolves the VAST of a video asset. `base` is where the native response came from (nil:
    /// handed over by the app, local files allowed).
    static func resolve(_ vast: String, base: URL?, settings: NativeLoadSettings, maxRedirects: Int = 4,
                        fetcher: any AdDocumentFetcher) async -> Outcome {
        var options = AdTagOptions(maxRedirects: maxRedirects, initialTimeout: settings.timeout, wrapperTimeout: settings.timeout,
                                      maxDocumentBytes: settings.maxResponseBytes, media: settings.media, allowNetwork: settings.allowNetwork)
        options.media.allowLocalFiles = base == nil || base?.isFileURL == true
        let schedule: AdSchedule
        do {
            schedule = try await AdTagResolver(options: options, fetcher: fetcher).load(response: Data(vast.utf8), baseURL: base)
        } catch {
            return Outcome(problem: "the video asset's VAST cannot be used: \(error)")
        }
        for ad in schedule.allAds {
            guard let file = ad.mediaFile else { continue }
            let fromNetwork = !(base == nil || base?.isFileURL == true) || ad.wrappers.contains { !isLocal($0.tagURL) }
            let documentBase = ad.wrappers.last.flatMap { URL(string: $0.tagURL) } ?? base   // the InLine came from the innermost tag
            guard case .success(let url) = TagLocation.resolve(file.url.template, base: documentBase) else { continue }
            if url.isFileURL && fromNetwork { continue }   // never a local file named by a network document
            let aspect = file.width.flatMap { w in file.height.flatMap { h in h > 0 ? Double(w) / Double(h) : nil } }
            return Outcome(url: url.isFileURL ? url.path : url.absoluteString, aspect: aspect)
        }
        let why = schedule.issues.map(\.message).first ?? "no usable media file"
        return Outcome(problem: "the video asset has no usable media: \(why)")
    }

    private static func isLocal(_ s: String) -> Bool {
        let l = s.lowercased()
        return !(l.hasPrefix("http:") || l.hasPrefix("https:"))
    }
}
