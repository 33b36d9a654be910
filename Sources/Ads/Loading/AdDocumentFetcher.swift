// Fetching ad documents: http(s) through URLSession with a hard deadline and a size cap.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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
        }
    }
}

/// Fetches one http(s) document. Injectable so the loader can be driven by any transport.
public protocol AdDocumentFetcher: Sendable {
    /// The body at `url`, within `timeout` seconds and at most `maxBytes` bytes.
    func fetch(_ url: URL, timeout: Double, maxBytes: Int) async throws(FetchError) -> Data
}

/// The production fetcher: FoundationNetworking's URLSession, one ephemeral session per request,
/// a hard deadline (not just an idle timeout), the size cap enforced while streaming, and HTTP
/// redirects followed only to http(s).
public struct URLSessionAdFetcher: AdDocumentFetcher {
    /// `User-Agent` header to send, if any.
    public var userAgent: String?

    /// A fetcher.
    public init(userAgent: String? = "interlude/0.1") { self.userAgent = userAgent }

    /// Fetches `url` (http or https only).
    public func fetch(_ url: URL, timeout: Double, maxBytes: Int) async throws(FetchError) -> Data {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .refusedScheme(url.scheme ?? "")
        }
        let delegate = FetchDelegate(maxBytes: maxBytes, timeout: timeout)
        let config = URLSessionConfiguration.ephemeral
        // FoundationNetworking truncates its timeouts to whole seconds (0.3 s becomes "time out now"), so its
        // own timers get a whole-second margin and the exact deadline is the delegate's timer.
        let sessionTimeout = (timeout + 1).rounded(.up)
        config.timeoutIntervalForRequest = sessionTimeout
        config.timeoutIntervalForResource = sessionTimeout
        config.requestCachePolicy = .reloadIgnoringLocalCacheData
        config.urlCache = nil
        let session = URLSession(configuration: config, delegate: delegate, delegateQueue: nil)
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: sessionTimeout)
        if let userAgent { request.setValue(userAgent, forHTTPHeaderField: "User-Agent") }
        let result: Result<Data, FetchError> = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Data, FetchError>, Never>) in
                delegate.start(session: session, request: request, continuation: continuation)
            }
        } onCancel: {
            delegate.finish(.failure(.network("cancelled")))
        }
        return try result.get()
    }
}

/// Collects one response; resumes its continuation exactly once.
/// `@unchecked Sendable`: every mutable field is guarded by `lock`.
private final class FetchDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    let maxBytes: Int
    let timeout: Double
    let lock = NSLock()
    var body = Data()
    var continuation: CheckedContinuation<Result<Data, FetchError>, Never>?
    var task: URLSessionDataTask?
    var done = false

    init(maxBytes: Int, timeout: Double) {
        self.maxBytes = maxBytes
        self.timeout = timeout
    }

    func start(session: URLSession, request: URLRequest, continuation: CheckedContinuation<Result<Data, FetchError>, Never>) {
        let task = session.dataTask(with: request)
        lock.lock()
        if done { lock.unlock(); continuation.resume(returning: .failure(.network("cancelled"))); return }
        self.continuation = continuation
        self.task = task
        lock.unlock()
        task.resume()
        session.finishTasksAndInvalidate()
        let t = timeout
        DispatchQueue.global().asyncAfter(deadline: .now() + t) { [weak self] in
            self?.finish(.failure(.timeout(seconds: t)))
        }
    }

    func finish(_ result: Result<Data, FetchError>) {
        lock.lock()
        if done { lock.unlock(); return }
        done = true
        let c = continuation
        continuation = nil
        let t = task
        lock.unlock()
        if case .failure = result { t?.cancel() }
        c?.resume(returning: result)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        if let http = response as? HTTPURLResponse {
            if http.statusCode == 204 { finish(.failure(.noContent)); completionHandler(.cancel); return }
            if !(200..<300).contains(http.statusCode) { finish(.failure(.httpStatus(http.statusCode))); completionHandler(.cancel); return }
        }
        if response.expectedContentLength > Int64(maxBytes) {
            finish(.failure(.tooLarge(limit: maxBytes)))
            completionHandler(.cancel)
            return
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.lock()
        body.append(data)
        let over = body.count > maxBytes
        lock.unlock()
        if over { finish(.failure(.tooLarge(limit: maxBytes))) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        let scheme = request.url?.scheme?.lowercased()
        if scheme == "http" || scheme == "https" {
            completionHandler(request)
        } else {
            finish(.failure(.refusedScheme(scheme ?? "")))
            completionHandler(nil)
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        if let error {
            let ns = error as NSError
            if ns.code == NSURLErrorTimedOut { finish(.failure(.timeout(seconds: timeout))); return }
            finish(.failure(.network(ns.localizedDescription)))
            return
        }
        lock.lock()
        let data = body
        lock.unlock()
        finish(data.isEmpty ? .failure(.noContent) : .success(data))
    }
}
