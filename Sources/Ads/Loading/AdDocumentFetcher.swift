// Fetching ad documents: http(s) through HTTPStream (libcurl) with a hard deadline and a size cap.
import Foundation
import Threads

/// Why a document could not be fetched.
public enum FetchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No complete answer within the timeout.
    case timeout(seconds: Double)
    /// The server answered with a non-2xx status.
    case httpStatus(Int)
    /// HTTP 204 or an empty body: no ads.
    case noContent
    /// The body is over the size cap.
    case tooLarge(limit: Int)
    /// Connection or transport failure.
    case network(String)
    /// A local file could not be read.
    case file(String)
    /// The URL's scheme is not allowed here.
    case refusedScheme(String)
    /// A redirect led somewhere other than http(s), or to an unspecified address (its Location as sent).
    case redirectRefused(String)
    /// The body came in a content encoding that was not asked for (gzip, deflate, …).
    case encodingRefused(String)

    /// One line for a person.
    public var description: String {
        switch self {
        case .timeout(let s): return "no answer within \(s) s"
        case .httpStatus(let c): return "HTTP status \(c)"
        case .noContent: return "empty response"
        case .tooLarge(let l): return "response larger than \(l) bytes"
        case .network(let m): return "network error: \(m)"
        case .file(let m): return m
        case .refusedScheme(let s): return "scheme '\(s)' refused"
        case .redirectRefused(let l): return "redirect to \(Printable.escaped(l)) refused (only http and https, to an address that can be reached)"
        case .encodingRefused(let e): return "response in Content-Encoding '\(e)' refused (identity was asked for)"
        }
    }
}

/// Fetches one http(s) document. Injectable so the loader can be driven by any transport.
public protocol AdDocumentFetcher: Sendable {
    /// The body at `url`, within `timeout` seconds and at most `maxBytes` bytes.
    func fetch(_ url: URL, timeout: Double, maxBytes: Int) async throws(FetchError) -> Data
    /// The body at `url` asked for as `request` says (a `POST` with headers and a body), within
    /// `timeout` seconds and at most `maxBytes` bytes.
    func fetch(_ url: URL, request: AdHTTPRequest, timeout: Double, maxBytes: Int) async throws(FetchError) -> Data
}

extension AdDocumentFetcher {
    /// A `GET` is `fetch(_:timeout:maxBytes:)`; a transport that cannot send anything else refuses
    /// a `POST` rather than turning it into a `GET`.
    public func fetch(_ url: URL, request: AdHTTPRequest, timeout: Double, maxBytes: Int) async throws(FetchError) -> Data {
        guard request.method == .get else { throw .network("this transport sends GET requests only") }
        return try await fetch(url, timeout: timeout, maxBytes: maxBytes)
    }
}

/// The production fetcher: `HTTPStream` (libcurl underneath) with the document collected in
/// memory under the size cap, no content encodings, a hard deadline, and redirects followed only
/// to http(s).
public struct HTTPAdFetcher: AdDocumentFetcher {
    /// `User-Agent` header to send, if any.
    public var userAgent: String?

    /// A fetcher.
    public init(userAgent: String? = "interlude/0.1") { self.userAgent = userAgent }

    /// Fetches `url` (http or https only).
    public func fetch(_ url: URL, timeout: Double, maxBytes: Int) async throws(FetchError) -> Data {
        try await fetch(url, request: .get, timeout: timeout, maxBytes: maxBytes)
    }

    /// Fetches `url` (http or https only) as `request` says.
    public func fetch(_ url: URL, request: AdHTTPRequest, timeout: Double, maxBytes: Int) async throws(FetchError) -> Data {
        let body = Collected()
        _ = try await HTTPStream.fetch(url, timeout: timeout, maxBytes: Int64(maxBytes), userAgent: userAgent, request: request) { body.append($0) }
        return body.data
    }
}

/// The fetcher's name before it stopped using URLSession.
@available(*, deprecated, renamed: "HTTPAdFetcher")
public typealias URLSessionAdFetcher = HTTPAdFetcher

/// A body collected chunk by chunk.
private final class Collected: Sendable {
    private let bytes = Locked(Data())
    func append(_ d: Data) { bytes.withLock { $0.append(d) } }
    var data: Data { bytes.withLock { $0 } }
}
