// A real HTTP/1.1 server on 127.0.0.1 for tests: POSIX sockets, ephemeral port, canned routes.
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback HTTP/1.1 server for tests: binds 127.0.0.1 on an ephemeral port, answers each
/// request from a route table (status, headers, body, delay) on its own thread, records the
/// paths it was asked for, and stops on `stop()` (or deinit).
///
/// ```swift
/// let server = try HTTPTestServer()
/// server.route("/vast.xml", .init(body: "<VAST version=\"4.2\"/>"))
/// let url = server.url("/vast.xml")   // http://127.0.0.1:PORT/vast.xml
/// ```
/// `@unchecked Sendable`: all mutable state is guarded by `lock`; the socket is closed once.
public final class HTTPTestServer: @unchecked Sendable {
    /// One canned answer.
    public struct Response: Sendable {
        /// HTTP status code.
        public var status: Int
        /// Extra headers (Content-Length and Connection are added).
        public var headers: [String: String]
        /// The body.
        public var body: Data
        /// Seconds to wait before answering (for timeout tests).
        public var delay: Double

        /// A response; defaults to `200`, `application/xml`, no delay.
        public init(status: Int = 200, headers: [String: String] = ["Content-Type": "application/xml"],
                    body: Data = Data(), delay: Double = 0) {
            self.status = status
            self.headers = headers
            self.body = body
            self.delay = delay
        }

        /// A response with a text body.
        public init(status: Int = 200, body: String, delay: Double = 0, contentType: String = "application/xml") {
            self.init(status: status, headers: ["Content-Type": contentType], body: Data(body.utf8), delay: delay)
        }

        /// A redirect to `location`.
        public static func redirect(to location: String, status: Int = 302) -> Response {
            Response(status: status, headers: ["Location": location], body: Data())
        }
    }

    /// One request as received.
    public struct Request: Sendable, Hashable {
        /// `GET`, `POST`, …
        public var method: String
        /// Path without the query.
        public var path: String
        /// Path with the query, as sent.
        public var target: String
        /// Headers (names lower-cased).
        public var headers: [String: String]
    }

    /// The port the server listens on.
    public let port: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var routes: [String: Response] = [:]
    private var handler: (@Sendable (Request) -> Response?)?
    private var received: [Request] = []
    private var stopped = false

    /// Starts a server on 127.0.0.1 with an ephemeral port. Throws when the socket cannot be set up.
    public init() throws {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw ServerError.socket("socket() failed: errno \(errno)") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw ServerError.socket("bind/listen failed: errno \(errno)")
        }
        var out = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &out) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        listener = fd
        port = UInt16(bigEndian: out.sin_port)
        let thread = Thread { [weak self] in self?.acceptLoop() }
        thread.name = "HTTPTestServer:\(port)"
        thread.start()
    }

    deinit { stop() }

    /// Why the server could not start.
    public enum ServerError: Error { case socket(String) }

    /// `http://127.0.0.1:PORT` + path.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// The URL of a path on this server.
    public func url(_ path: String) -> String { baseURL + (path.hasPrefix("/") ? path : "/" + path) }

    /// Answers `path` (query ignored) with `response`.
    public func route(_ path: String, _ response: Response) {
        lock.lock(); routes[path] = response; lock.unlock()
    }

    /// Answers `path` with a text body.
    public func route(_ path: String, body: String, status: Int = 200, delay: Double = 0) {
        route(path, Response(status: status, body: body, delay: delay))
    }

    /// A fallback for requests no route matches (return nil for 404).
    public func setHandler(_ h: @escaping @Sendable (Request) -> Response?) {
        lock.lock(); handler = h; lock.unlock()
    }

    /// Every request received so far, in order.
    public var requests: [Request] {
        lock.lock(); defer { lock.unlock() }
        return received
    }

    /// How many requests asked for `path`.
    public func requestCount(_ path: String) -> Int { requests.filter { $0.path == path }.count }

    /// Stops accepting connections. Idempotent.
    public func stop() {
        lock.lock()
        let wasStopped = stopped
        stopped = true
        lock.unlock()
        guard !wasStopped else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private var isStopped: Bool { lock.lock(); defer { lock.unlock() }; return stopped }

    private func acceptLoop() {
        while !isStopped {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            let t = Thread { [weak self] in
                self?.serve(client)
                close(client)
            }
            t.start()
        }
    }

    private func serve(_ fd: Int32) {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        let terminator: [UInt8] = [13, 10, 13, 10]
        while buffer.count < 65536 {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { return }
            buffer.append(contentsOf: chunk[0..<n])
            if buffer.count >= 4, (0...(buffer.count - 4)).contains(where: { Array(buffer[$0..<($0 + 4)]) == terminator }) { break }
        }
        let head = String(decoding: buffer, as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        let parts = lines.first?.split(separator: " ").map(String.init) ?? []
        guard parts.count >= 2 else { return }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let target = parts[1]
        let path = String(target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
        let request = Request(method: parts[0], path: path, target: target, headers: headers)
        lock.lock()
        received.append(request)
        let response = routes[path] ?? handler?(request) ?? Response(status: 404, body: "not found", contentType: "text/plain")
        lock.unlock()
        if response.delay > 0 { Thread.sleep(forTimeInterval: response.delay) }
        var text = "HTTP/1.1 \(response.status) \(HTTPTestServer.reason(response.status))\r\n"
        for (k, v) in response.headers { text += "\(k): \(v)\r\n" }
        text += "Content-Length: \(response.body.count)\r\nConnection: close\r\n\r\n"
        var bytes = [UInt8](text.utf8)
        bytes.append(contentsOf: response.body)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            sent += n
        }
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 404: "Not Found"
        case 500: "Internal Server Error"
        default: "Status"
        }
    }
}
