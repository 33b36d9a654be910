// Fetching and parsing a native response from a URL or a file, with the ad-tag fetcher's limits.
import Ads
import Foundation

/// Loads OpenRTB Native 1.2 responses: http(s) through the hardened fetcher (deadline, size cap,
/// no content encodings, redirects only to http(s)) or a local file (regular files only, capped).
package enum NativeResponseResolver {
    /// The response at `location` (an http(s) URL or a path) and the URL it was read from.
    package static func load(_ location: String, settings: NativeLoadSettings = NativeLoadSettings(),
                            fetcher: any AdDocumentFetcher = HTTPAdFetcher()) async throws(NativeAdError) -> (NativeResponse, URL) {
        guard let url = TagLocation.rootURL(location) else { throw NativeAdError(.invalidRequest, "'\(location)' is neither a URL nor a path") }
        let data: Data
        if url.isFileURL {
            data = try NativeAdAssembler.readLocal(url.path, maxBytes: settings.maxResponseBytes, what: "native response")
        } else {
            guard let s = url.scheme?.lowercased(), s == "http" || s == "https" else {
                throw NativeAdError(.invalidRequest, "'\(location)': scheme '\(url.scheme ?? "")' refused (only http, https and files)")
            }
            guard settings.allowNetwork else { throw NativeAdError(.networkError, "native response \(location): network access is off") }
            do {
                data = try await fetcher.fetch(url, timeout: settings.timeout, maxBytes: settings.maxResponseBytes)
            } catch {
                if case .noContent = error { throw NativeAdError(.noFill, "native response \(location): no ad (\(error))") }
                if case .tooLarge = error { throw NativeAdError(.receivedInvalidResponse, "native response \(location): \(error)") }
                throw NativeAdError(.networkError, "native response \(location): \(error)")
            }
        }
        switch NativeResponseParser(maxBytes: settings.maxResponseBytes).parse(data) {
        case .success(let r): return (r, url)
        case .failure(let e): throw NativeAdError(.receivedInvalidResponse, "native response \(location): \(e.message)")
        }
    }
}
