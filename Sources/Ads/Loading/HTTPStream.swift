// The one http(s) fetcher of documents and media: streams a body into a sink with a hard deadline,
// a cap on the bytes delivered, no content encodings, a redirect guard and lock-free cancellation.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Streams one http(s) response body, chunk by chunk, into a caller's sink.
///
/// Everything an ad server sends is hostile: the body is never held whole (the sink decides where
/// it goes), its size is counted as delivered, a body in a content encoding (gzip, deflate, br —
/// not asked for: `Accept-Encoding: identity`) is refused before it is decoded, so a compression
/// bomb never expands; a `Content-Length` over the cap is refused before any body, the deadline
/// covers the whole exchange (not just idle time), and a redirect may lead only to http(s).
/// Cancellation never calls into URLSession from its own callbacks or under a lock: the task is
/// cancelled from a queue of its own, so no lock inversion can hang the caller.
public enum HTTPStream {
    /// Fetches `url` (http or https), handing each chunk to `sink` (on one queue, in order), within
    /// `timeout` seconds and at most `maxBytes` bytes. A sink that throws stops the transfer with
    /// `.network(its message)`. Returns the HTTP status (2xx only; others throw `.httpStatus`).
    public static func fetch(_ url: URL, timeout: Double, maxBytes: Int64, userAgent: String? = "interlude/0.1",
                             sink: @escaping @Sendable (Data) throws -> Void) async throws(FetchError) -> Int {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .refusedScheme(url.scheme ?? "")
        }
        let delegate = StreamDelegate(maxBytes: maxBytes, timeout: timeout, sink: sink)
        let config = URLSessionConfiguration.ephemeral
        // FoundationNetworking truncates its timeouts to whole seconds (0.3 s becomes "time out
        // now"): its own timers get a margin and the exact deadline is the delegate's timer.
        let sessionTimeout = (timeout + 1).rounded(.up)
        config.timeoutIntervalForRequest = sessionTimeout
        config.timeoutIntervalForResource = sessionTimeout
        config.requestCachePolicy = .reloadIgnoringLocalCacheData
        config.urlCache = nil
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(configuration: config, delegate: delegate, delegateQueue: queue)
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: sessionTimeout)
        if let userAgent { request.setValue(userAgent, forHTTPHeaderField: "User-Agent") }
        // Bodies are taken as sent: FoundationNetworking decodes gzip/deflate inside libcurl and
        // queues every decoded chunk for the delegate with no back-pressure, so a 1 MB gzip bomb
        // would reach the process memory whole before any cap could stop it.
        request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        let result: Result<Int, FetchError> = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Int, FetchError>, Never>) in
                delegate.start(session: session, request: request, continuation: continuation)
            }
        } onCancel: {
            delegate.finish(.failure(.network("cancelled")))
        }
        return try result.get()
    }
}

/// Runs one transfer; resumes its continuation exactly once.
/// `@unchecked Sendable`: every mutable field is guarded by `lock`, and no URLSession call is made
/// while holding it.
private final class StreamDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    let maxBytes: Int64
    let timeout: Double
    let sink: @Sendable (Data) throws -> Void
    let lock = NSLock()
    var received: Int64 = 0
    var status = 0
    var continuation: CheckedContinuation<Result<Int, FetchError>, Never>?
    var task: URLSessionDataTask?
    var done = false
    /// URLSession calls are made from here, never from a delegate callback or under `lock`.
    static let cancelQueue = DispatchQueue(label: "interlude.http.cancel", attributes: .concurrent)

    init(maxBytes: Int64, timeout: Double, sink: @escaping @Sendable (Data) throws -> Void) {
        self.maxBytes = maxBytes
        self.timeout = timeout
        self.sink = sink
    }

    func start(session: URLSession, request: URLRequest, continuation: CheckedContinuation<Result<Int, FetchError>, Never>) {
        let task = session.dataTask(with: request)
        lock.lock()
        if done { lock.unlock(); continuation.resume(returning: .failure(.network("cancelled"))); session.invalidateAndCancel(); return }
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

    var isDone: Bool { lock.lock(); defer { lock.unlock() }; return done }

    func finish(_ result: Result<Int, FetchError>) {
        lock.lock()
        if done { lock.unlock(); return }
        done = true
        let c = continuation
        continuation = nil
        let t = task
        task = nil
        lock.unlock()
        if case .failure = result, let t { StreamDelegate.cancelQueue.async { t.cancel() } }
        c?.resume(returning: result)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        if let http = response as? HTTPURLResponse {
            lock.lock(); status = http.statusCode; lock.unlock()
            if http.statusCode == 204 { finish(.failure(.noContent)); completionHandler(.cancel); return }
            if !(200..<300).contains(http.statusCode) { finish(.failure(.httpStatus(http.statusCode))); completionHandler(.cancel); return }
            // An encoded body was not asked for (Accept-Encoding: identity) and would be decoded
            // out of reach of the cap: refused before any of it is read.
            let encoding = (http.value(forHTTPHeaderField: "Content-Encoding") ?? "identity").trimmingCharacters(in: .whitespaces).lowercased()
            if encoding != "identity" && !encoding.isEmpty {
                finish(.failure(.encodingRefused(encoding)))
                completionHandler(.cancel)
                return
            }
            // A declared length over the cap is refused before any body.
            if response.expectedContentLength > maxBytes {
                finish(.failure(.tooLarge(limit: Int(clamping: maxBytes))))
                completionHandler(.cancel)
                return
            }
        }
        completionHandler(isDone ? .cancel : .allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.lock()
        if done { lock.unlock(); return }
        received += Int64(data.count)
        let over = received > maxBytes
        lock.unlock()
        if over { finish(.failure(.tooLarge(limit: Int(clamping: maxBytes)))); return }
        do { try sink(data) } catch { finish(.failure(.network("\(error)"))) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        // Judge the Location the server sent, not the request FoundationNetworking derived from it
        // (it may rewrite `file:///x` into a URL on the same host).
        let location = response.value(forHTTPHeaderField: "Location") ?? request.url?.absoluteString ?? ""
        let target = URL(string: location, relativeTo: response.url)
        let scheme = target?.scheme?.lowercased() ?? request.url?.scheme?.lowercased()
        let newScheme = request.url?.scheme?.lowercased()
        if (scheme == "http" || scheme == "https") && (newScheme == "http" || newScheme == "https") {
            completionHandler(request)
        } else {
            finish(.failure(.redirectRefused(location)))
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
        let (count, code) = (received, status)
        lock.unlock()
        finish(count == 0 ? .failure(.noContent) : .success(code == 0 ? 200 : code))
    }
}
