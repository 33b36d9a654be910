// The one http(s) fetcher of documents and media: streams a body into a sink with a hard deadline,
// a cap on the bytes delivered, no content encodings, a redirect guard and back-pressure.
import CCurl
import Foundation
import Threads
import Timing

/// Streams one http(s) response body, chunk by chunk, into a caller's sink.
///
/// Everything an ad server sends is hostile: the body is never held whole (the sink decides where
/// it goes), its size is counted as delivered, a body in a content encoding (gzip, deflate, br —
/// not asked for: `Accept-Encoding: identity`) is refused before it is decoded, so a compression
/// bomb never expands; a `Content-Length` over the cap is refused before any body, the deadline
/// covers the whole exchange (redirects included, not just idle time), and a redirect may lead
/// only to http(s) (judged on the `Location` the server sent).
///
/// The transfer is libcurl's easy interface on a thread of its own: each chunk is handed to the
/// sink inside libcurl's write callback, so libcurl reads from the socket only as fast as the
/// sink takes the data. A fast server and a slow disk therefore cost at most libcurl's buffer and
/// the kernel's socket buffers, not the body (URLSession on Linux queued every chunk it read for
/// its delegate, so a server could fill memory up to the size cap). Timeout and cancellation
/// return at once; the transfer thread stops at libcurl's next callback and never calls the sink
/// after the fetch has returned.
public enum HTTPStream {
    /// Most redirects followed for one fetch.
    public static let maxRedirects = 10

    /// Sets libcurl up now (TLS libraries included, some milliseconds) rather than in the first
    /// request: a live player calls it before its first beacon is due.
    public static func prepare() { _ = CurlTransfer.globalInit }

    /// Fetches `url` (http or https), handing each chunk to `sink` (on one thread, in order), within
    /// `timeout` seconds and at most `maxBytes` bytes. A sink that throws stops the transfer with
    /// `.network(its message)`. Returns the HTTP status (2xx only; others throw `.httpStatus`).
    /// `request`: a `POST` with headers and a body instead of a `GET` (`AdHTTPRequest`).
    public static func fetch(_ url: URL, timeout: Double, maxBytes: Int64, userAgent: String? = "interlude/0.1",
                             request: AdHTTPRequest = .get,
                             sink: @escaping @Sendable (Data) throws -> Void) async throws(FetchError) -> Int {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw .refusedScheme(url.scheme ?? "")
        }
        let transfer = CurlTransfer(url: url, timeout: timeout, maxBytes: maxBytes, userAgent: userAgent, request: request,
                                    acceptsEmpty: false, sink: sink)
        let result: Result<Int, FetchError> = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Int, FetchError>, Never>) in
                transfer.start { continuation.resume(returning: $0) }
            }
        } onCancel: {
            transfer.finish(.failure(.network("cancelled")))
        }
        return try result.get()
    }

    /// Starts a request whose answer is not wanted (a tracking beacon): its body, up to
    /// `maxBytes`, is read and dropped; `completion` gets the HTTP status (an empty answer, 204
    /// included, is a status too; a non-2xx one is `.httpStatus`) on the transfer's thread.
    /// Nothing waits on the caller's thread or on Swift's cooperative pool.
    public static func send(_ url: URL, timeout: Double, maxBytes: Int64 = 1 << 20, userAgent: String? = "interlude/0.1",
                            completion: @escaping @Sendable (Result<Int, FetchError>) -> Void) {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            completion(.failure(.refusedScheme(url.scheme ?? "")))
            return
        }
        CurlTransfer(url: url, timeout: timeout, maxBytes: maxBytes, userAgent: userAgent, request: .get, acceptsEmpty: true, sink: { _ in })
            .start(completion)
    }
}

/// One fetch: its libcurl handle lives on the transfer thread; the outcome is reported exactly once.
/// Sendable as the compiler checks it: `done` and `completion` are in `outcome`, whose lock is also held
/// while the sink runs, so once `finish` has returned the sink is never called again. Every other
/// field is immutable, or in `transfer`, a `LoopBound` of the transfer thread.
private final class CurlTransfer: Sendable {
    let url: URL
    let timeout: Double
    let maxBytes: Int64
    let userAgent: String?
    let request: AdHTTPRequest
    /// An empty answer (204, or 2xx without a body) is its status, not `.noContent`.
    let acceptsEmpty: Bool
    let sink: @Sendable (Data) throws -> Void
    let deadline: Double

    /// Whether the outcome was reported, and to whom it goes until then.
    private struct Outcome {
        var done = false
        var completion: (@Sendable (Result<Int, FetchError>) -> Void)?
    }
    private let outcome = Locked(Outcome())

    /// What the transfer thread alone keeps as the response comes in (a `LoopBound` of it).
    private struct Transfer {
        var received: Int64 = 0
        var response = ResponseHead()
        var currentRequest: URL?   // what a relative `Location` resolves against
        var posting = false        // the next request is the POST (a 301/302/303 turns it into a GET)
    }
    private let transferThread: ThreadOwner
    private let transfer: LoopBound<Transfer>
    private var received: Int64 { get { transfer.value.received } _modify { yield &transfer.value.received } }
    private var response: ResponseHead { get { transfer.value.response } _modify { yield &transfer.value.response } }
    private var currentRequest: URL? { get { transfer.value.currentRequest } _modify { yield &transfer.value.currentRequest } }
    private var posting: Bool { get { transfer.value.posting } _modify { yield &transfer.value.posting } }

    /// What one response's head said, as its header lines arrive.
    struct ResponseHead {
        var status = 0
        var headers: [String: String] = [:]
        var complete = false
        /// Where a redirect leads (http or https), when the head was one.
        var redirect: URL?
    }

    /// libcurl is set up once per process, before any handle (FoundationNetworking shares the library).
    static let globalInit: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    init(url: URL, timeout: Double, maxBytes: Int64, userAgent: String?, request: AdHTTPRequest, acceptsEmpty: Bool,
         sink: @escaping @Sendable (Data) throws -> Void) {
        self.url = url
        self.timeout = timeout
        self.maxBytes = maxBytes
        self.userAgent = userAgent
        self.request = request
        self.acceptsEmpty = acceptsEmpty
        self.sink = sink
        deadline = monotonicSeconds() + timeout
        let owner = ThreadOwner(name: "an HTTP transfer's thread")
        transferThread = owner
        transfer = LoopBound(Transfer(), owner: owner, name: "the response so far")
    }

    /// Starts the transfer thread; `completion` is called once, with the outcome.
    func start(_ completion: @escaping @Sendable (Result<Int, FetchError>) -> Void) {
        let cancelled = outcome.withLock { o in
            if o.done { return true }
            o.completion = completion
            return false
        }
        if cancelled { completion(.failure(.network("cancelled"))); return }
        let t = timeout
        DispatchQueue.global().asyncAfter(deadline: .now() + t) { [weak self] in self?.finish(.failure(.timeout(seconds: t))) }
        let thread = Thread { [self] in run() }
        thread.name = "interlude-http"
        thread.start()
    }

    var isDone: Bool { outcome.withLock { $0.done } }

    /// Reports the outcome (the first call wins). Waits for a sink call in progress to return.
    func finish(_ result: Result<Int, FetchError>) {
        let c = outcome.withLock { o -> (@Sendable (Result<Int, FetchError>) -> Void)? in
            if o.done { return nil }
            o.done = true
            defer { o.completion = nil }
            return o.completion
        }
        c?(result)
    }

    // MARK: the transfer thread

    private func run() {
        transferThread.bind()
        defer { transferThread.release() }
        guard Self.globalInit else { finish(.failure(.network("libcurl could not be initialised"))); return }
        var current = url
        posting = request.method == .post
        for _ in 0...HTTPStream.maxRedirects {
            switch perform(current) {
            case .finished(let result): finish(result); return
            case .stopped: return   // `finish` was called from a callback
            case .redirect(let next):
                if ![307, 308].contains(response.status) { posting = false }
                current = next
            }
        }
        finish(.failure(.network("more than \(HTTPStream.maxRedirects) redirects")))
    }

    private enum Step { case finished(Result<Int, FetchError>), stopped, redirect(URL) }

    /// One request: its body goes to the sink; a redirect's target comes back to be followed.
    private func perform(_ target: URL) -> Step {
        let left = deadline - monotonicSeconds()
        guard left > 0 else { return .finished(.failure(.timeout(seconds: timeout))) }
        guard let handle = curl_easy_init() else { return .finished(.failure(.network("libcurl handle could not be made"))) }
        defer { curl_easy_cleanup(handle) }
        var headers = curl_slist_append(nil, "Accept-Encoding: identity")
        if posting {
            // checked by `AdHTTPRequest`: tokens, no CR/LF/NUL, none the transfer sets itself;
            // "Expect:" keeps libcurl from waiting for a 100 Continue before a large body
            for h in request.headers + [(name: "Expect", value: "")] { headers = curl_slist_append(headers, "\(h.name): \(h.value)") }
        }
        defer { curl_slist_free_all(headers) }
        var errorText = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        response = ResponseHead()
        currentRequest = target
        let me = Unmanaged.passUnretained(self).toOpaque()
        let code: CURLcode = errorText.withUnsafeMutableBufferPointer { errorBuffer in
            let ms = max(1, Int(left * 1000))
            _ = interlude_curl_set_string(handle, CURLOPT_URL, target.absoluteString)
            _ = interlude_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
            _ = interlude_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0)   // followed here, after judging the Location
            _ = interlude_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
            _ = interlude_curl_set_long(handle, CURLOPT_TIMEOUT_MS, ms)
            _ = interlude_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, ms)
            _ = interlude_curl_set_offset(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(maxBytes))
            _ = interlude_curl_set_list(handle, CURLOPT_HTTPHEADER, headers)
            if posting {
                // the size first, then the bytes, which libcurl copies (an empty body: a 1-byte buffer, size 0)
                _ = interlude_curl_set_offset(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count))
                var bytes = [UInt8](request.body.isEmpty ? Data([0]) : request.body)
                _ = bytes.withUnsafeMutableBytes { interlude_curl_set_pointer(handle, CURLOPT_COPYPOSTFIELDS, $0.baseAddress) }
            }
            if let userAgent { _ = interlude_curl_set_string(handle, CURLOPT_USERAGENT, userAgent) }
            _ = interlude_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer.baseAddress)
            _ = interlude_curl_set_write(handle, CURLOPT_HEADERFUNCTION, curlHeader)
            _ = interlude_curl_set_pointer(handle, CURLOPT_HEADERDATA, me)
            _ = interlude_curl_set_write(handle, CURLOPT_WRITEFUNCTION, curlWrite)
            _ = interlude_curl_set_pointer(handle, CURLOPT_WRITEDATA, me)
            _ = interlude_curl_set_long(handle, CURLOPT_NOPROGRESS, 0)
            _ = interlude_curl_set_xferinfo(handle, curlProgress)
            _ = interlude_curl_set_pointer(handle, CURLOPT_XFERINFODATA, me)
            return curl_easy_perform(handle)
        }
        if isDone { return .stopped }
        if let next = response.redirect { return .redirect(next) }
        switch code {
        case CURLE_OK:
            if !(200..<300).contains(response.status) { return .finished(.failure(.httpStatus(response.status))) }
            return .finished(received == 0 && !acceptsEmpty ? .failure(.noContent) : .success(response.status))
        case CURLE_OPERATION_TIMEDOUT:
            return .finished(.failure(.timeout(seconds: timeout)))
        case CURLE_FILESIZE_EXCEEDED:
            return .finished(.failure(.tooLarge(limit: Int(clamping: maxBytes))))
        default:
            let detail = String(decoding: errorText.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .finished(.failure(.network(detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail)))
        }
    }

    /// One header line of the response (or of an interim 1xx, or of a redirect).
    fileprivate func header(_ line: String) -> Bool {
        let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("HTTP/") {
            let fields = text.split(separator: " ", maxSplits: 2)
            response = ResponseHead(status: fields.count > 1 ? Int(fields[1]) ?? 0 : 0)
            return true
        }
        if !text.isEmpty {
            guard let colon = text.firstIndex(of: ":") else { return true }
            let name = text[..<colon].lowercased()
            response.headers[name] = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            return true
        }
        // the blank line: the head is complete
        let status = response.status
        if (100..<200).contains(status) { return true }   // an interim answer; the real one follows
        response.complete = true
        if [301, 302, 303, 307, 308].contains(status), let location = response.headers["location"] {
            let next = URL(string: location, relativeTo: currentRequest)?.absoluteURL
            let scheme = next?.scheme?.lowercased()
            guard let next, scheme == "http" || scheme == "https", !HTTPStream.isUnspecifiedAddress(next.host) else {
                finish(.failure(.redirectRefused(location)))
                return false
            }
            response.redirect = next
            return false   // its body is not wanted: the redirect is followed from `run`
        }
        if status == 204 && !acceptsEmpty { finish(.failure(.noContent)); return false }
        if !(200..<300).contains(status) { finish(.failure(.httpStatus(status))); return false }
        // An encoded body was not asked for (Accept-Encoding: identity): refused before any of it is read.
        let encoding = (response.headers["content-encoding"] ?? "identity").lowercased()
        if encoding != "identity" && !encoding.isEmpty { finish(.failure(.encodingRefused(encoding))); return false }
        // A declared length over the cap is refused before any body.
        if let length = response.headers["content-length"].flatMap({ Int64($0) }), length > maxBytes {
            finish(.failure(.tooLarge(limit: Int(clamping: maxBytes))))
            return false
        }
        return true
    }


    /// A chunk of the body: counted, then handed to the sink while libcurl waits.
    fileprivate func body(_ chunk: UnsafeRawBufferPointer) -> Bool {
        guard response.complete, response.redirect == nil else { return false }
        received += Int64(chunk.count)
        if received > maxBytes { finish(.failure(.tooLarge(limit: Int(clamping: maxBytes)))); return false }
        let data = Data(chunk)
        // the sink runs under the lock: `finish` waits for it, and no sink call follows `finish`
        let sunk = outcome.withLock { o -> Result<Void, Error>? in o.done ? nil : Result { try sink(data) } }
        guard let sunk else { return false }
        if case .failure(let error) = sunk {
            finish(.failure(.network("\(error)")))
            return false
        }
        return true
    }
}

// libcurl's callbacks: C functions, the transfer passed as their user data.

private func curlHeader(_ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ user: UnsafeMutableRawPointer?) -> Int {
    guard let buffer, let user else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
    let bytes = UnsafeRawBufferPointer(start: buffer, count: size * count)
    let line = String(decoding: bytes, as: UTF8.self)
    return transfer.header(line) ? size * count : 0
}

private func curlWrite(_ buffer: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ user: UnsafeMutableRawPointer?) -> Int {
    guard let buffer, let user else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue()
    return transfer.body(UnsafeRawBufferPointer(start: buffer, count: size * count)) ? size * count : 0
}

/// Called by libcurl at least once a second: a fetch that has returned (timeout, cancellation)
/// stops its transfer here.
private func curlProgress(_ user: UnsafeMutableRawPointer?, _: curl_off_t, _: curl_off_t, _: curl_off_t, _: curl_off_t) -> Int32 {
    guard let user else { return 1 }
    return Unmanaged<CurlTransfer>.fromOpaque(user).takeUnretainedValue().isDone ? 1 : 0
}
