// The public entry point: a tag (path or URL) or a canned response in, an AdSchedule out.
import Foundation
import Timing

/// Resolves ad tags into an `AdSchedule`: fetches (http, https, file), parses VAST or VMAP,
/// follows wrapper chains within the limits of `options`, selects media files and records every
/// problem with its VAST/VMAP code.
///
/// ```swift
/// let loader = AdTagResolver(options: AdTagOptions(maxRedirects: 4))
/// let schedule = try await loader.load(tag: "https://ads.example.com/vmap.xml")
/// for b in schedule.breaks { print(b.cueSeconds ?? -2, b.ads.map(\.title)) }
/// ```
public struct AdTagResolver: Sendable {
    /// Limits and preferences.
    public var options: AdTagOptions
    /// The http(s) transport.
    public var fetcher: any AdDocumentFetcher

    /// A loader; the default fetcher is `HTTPAdFetcher` (libcurl).
    public init(options: AdTagOptions = AdTagOptions(), fetcher: any AdDocumentFetcher = HTTPAdFetcher()) {
        self.options = options
        self.fetcher = fetcher
    }

    /// Loads and resolves a tag: a file path, a `file://` URL or an http(s) URL. `request`: how
    /// an http(s) tag is asked for (`AdHTTPRequest`: `GET`, or `POST` with headers and a body;
    /// wrappers are always `GET`); a `POST` to a file tag is refused.
    ///
    /// Throws `AdLoadError` only when the tag cannot be read at all (missing file, network failure,
    /// timeout, not XML, not VAST/VMAP, unsupported version); everything else, including a response
    /// with no ads, comes back as a schedule with issues.
    public func load(tag: String, request: AdHTTPRequest = .get) async throws -> AdSchedule {
        guard let url = TagLocation.rootURL(tag) else {
            throw AdLoadError(code: .wrapperTimeout, message: "'\(tag)' is neither a file path nor a URL")
        }
        let scheme = url.scheme?.lowercased() ?? ""
        guard ["http", "https", "file"].contains(scheme) else {
            throw AdLoadError(code: .wrapperTimeout, message: "scheme '\(scheme)' refused (only http, https and file)")
        }
        guard request.method == .get || scheme != "file" else {
            throw AdLoadError(code: .wrapperTimeout, message: "'\(tag)' is a file: only an http(s) tag can be asked for with POST")
        }
        let resolver = ChainResolver(options: options, fetcher: fetcher)
        let data: Data
        do {
            data = try await resolver.fetchDocument(url, timeout: options.initialTimeout, request: request)
        } catch {
            switch error {
            case .noContent:
                var empty = AdSchedule(kind: .vast, tag: tag, breaks: [resolver.prerollBreak(pod: [], buffet: [])],
                                       issues: [AdIssue(code: .noAdsAfterWrapper, message: "the tag returned an empty response (no ads)")])
                empty.isEmptyResponse = true
                return empty
            case .tooLarge:
                throw AdLoadError(code: .xmlParsing, message: "\(tag): \(error)")
            default:
                throw AdLoadError(code: .wrapperTimeout, message: "\(tag): \(error)")
            }
        }
        return try await load(response: data, baseURL: url, tag: tag)
    }

    /// Resolves a response already in hand (IMA's `adsResponse`); relative wrapper URIs resolve against `baseURL`.
    public func load(response: Data, baseURL: URL? = nil, tag: String? = nil) async throws -> AdSchedule {
        let resolver = ChainResolver(options: options, fetcher: fetcher)
        switch AdResponseParser(maxBytes: options.maxDocumentBytes).parse(response) {
        case .failure(let e):
            throw AdLoadError(code: e.code, message: e.message)
        case .success(.vast(let doc)):
            return await resolver.resolveRootVAST(doc, url: baseURL, tag: tag)
        case .success(.vmap(let doc)):
            return await resolver.resolveVMAP(doc, url: baseURL, tag: tag)
        }
    }
}
