import Foundation
import Threads
#if canImport(Glibc)
import Glibc
#endif

/// A TCP connection for HTTP tests that curl cannot write: it binds a chosen local address (Linux
/// routes all of 127.0.0.0/8 to lo, so 127.0.0.2 is another client than 127.0.0.1 to a server on
/// 127.0.0.1), sends arbitrary bytes (slowly, if asked) and reads an answer with a deadline.
public final class RawHTTPConnection: Sendable {
    /// The socket.
    public let fd: Int32

    /// Why a connection could not be made.
    public struct Failure: Error, CustomStringConvertible {
        /// One line.
        public var description: String
    }

    /// Connects to `host`:`port` from `local` (any port), within `timeout` seconds.
    public init(to host: String = "127.0.0.1", port: UInt16, from local: String = "127.0.0.1", timeout: Double = 5) throws {
        fd = try rawConnect(to: host, port: port, from: local)
        var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        let ready = poll(&p, 1, Int32(timeout * 1000))
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
        guard ready == 1, error == 0 else {
            Glibc.close(fd)
            throw Failure(description: ready == 1 ? "connect to \(host):\(port) from \(local): \(String(cString: strerror(error)))"
                                                  : "connect to \(host):\(port) from \(local): no answer within \(timeout) s")
        }
    }

    deinit { Glibc.close(fd) }

    /// Sends all of `bytes`; false when the server closed or reset the connection first.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EAGAIN || errno == EINTR {
                    var p = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    if poll(&p, 1, 5000) != 1 { return false }
                    continue
                }
                return false
            }
            sent += n
        }
        return true
    }

    /// Sends `text`'s UTF-8 bytes.
    @discardableResult
    public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// Sends `bytes` `chunk` bytes at a time, `interval` seconds apart; how many went out before
    /// the server closed the connection (all of them when it did not).
    @discardableResult
    public func sendSlowly(_ bytes: [UInt8], chunk: Int = 1, interval: Double) -> Int {
        var at = 0
        while at < bytes.count {
            let piece = Array(bytes[at..<min(bytes.count, at + chunk)])
            if peerClosed || !send(piece) { return at }
            at += piece.count
            if at < bytes.count { usleep(UInt32(interval * 1_000_000)) }
        }
        return at
    }

    /// Whether the server has closed (or reset) the connection, without waiting.
    public var peerClosed: Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN) | pollReadHangup, revents: 0)
        guard poll(&p, 1, 0) == 1 else { return false }
        if p.revents & pollClosed != 0 { return true }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) == 0
    }

    /// Reads one response (its head, then a body of its Content-Length) or until the server
    /// closes, for at most `seconds`.
    public func readResponse(within seconds: Double) -> RawHTTPReply {
        let start = Date()
        var data = Data()
        var closed = false
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            if let r = RawHTTPReply(parsing: data, closed: closed, seconds: Date().timeIntervalSince(start)), r.complete || closed { return r }
            if closed { return RawHTTPReply(bytes: data, closed: true, timedOut: false, seconds: Date().timeIntervalSince(start)) }
            let left = seconds - Date().timeIntervalSince(start)
            guard left > 0 else { return RawHTTPReply(bytes: data, closed: false, timedOut: true, seconds: Date().timeIntervalSince(start)) }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, Int32(max(1, left * 1000))) == 1 else { continue }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n > 0 { data.append(contentsOf: buffer[0..<n]) } else if n == 0 || (errno != EAGAIN && errno != EINTR) { closed = true }
        }
    }
}

/// What a `RawHTTPConnection` read.
public struct RawHTTPReply: Sendable, CustomStringConvertible {
    /// The status code; nil when no status line came.
    public var status: Int?
    /// Header fields (names lower-cased).
    public var headers: [String: String] = [:]
    /// The body read (all of it when `complete`).
    public var body = Data()
    /// Whether the head and a body of its Content-Length were read.
    public var complete = false
    /// Every byte read.
    public var bytes: Data
    /// The server closed (or reset) the connection.
    public var closed: Bool
    /// The deadline passed first.
    public var timedOut: Bool
    /// Seconds it took.
    public var seconds: Double

    init(bytes: Data, closed: Bool, timedOut: Bool, seconds: Double) {
        self.bytes = bytes; self.closed = closed; self.timedOut = timedOut; self.seconds = seconds
        if let r = RawHTTPReply(parsing: bytes, closed: closed, seconds: seconds) { self = r; self.timedOut = timedOut }
    }

    /// Parses a response head (and its body as far as read) out of `data`; nil without a
    /// complete head.
    init?(parsing data: Data, closed: Bool, seconds: Double) {
        guard let end = data.range(of: Data("\r\n\r\n".utf8)) else { return nil }
        let head = String(decoding: data[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let parts = head[0].split(separator: " ")
        bytes = data; self.closed = closed; timedOut = false; self.seconds = seconds
        status = parts.count >= 2 ? Int(parts[1]) : nil
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        body = Data(data[end.upperBound...])
        if let length = headers["content-length"].flatMap(Int.init) {
            complete = body.count >= length
            if body.count > length { body = body.prefix(length) }
        } else {
            complete = closed
        }
    }

    /// The body as text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// `status 400 in 0.01 s, closed` and the like.
    public var description: String {
        let what = status.map { "status \($0)" } ?? (bytes.isEmpty ? "no bytes" : "\(bytes.count) bytes, no status line")
        return "\(what) in \(String(format: "%.2f", seconds)) s\(closed ? ", closed" : "")\(timedOut ? ", timed out" : "")"
    }
}

/// Many connections from one local address, held open without a finished request: the
/// slowloris client (a request head never finished, a byte now and then) and the idle one.
///
/// A test drips bytes and reopens connections from a thread of its own while it closes the swarm
/// from another, so the descriptors are behind a lock, held for each whole call: a descriptor is
/// never aborted by one call while another sends on it (its number may already be another test's
/// file).
public final class RawConnectionSwarm: Sendable {
    private let fds = Locked<[Int32]>([])
    private let port: UInt16, local: String, first: [UInt8]

    /// Starts connecting `count` connections to 127.0.0.1:`port` from `local` (non-blocking: the
    /// connects finish in the kernel); each sends `firstBytes` once connected (nothing: idle).
    public init(count: Int, port: UInt16, from local: String, firstBytes: [UInt8] = []) {
        self.port = port; self.local = local; first = firstBytes
        let made = (0..<count).compactMap { _ in try? rawConnect(to: "127.0.0.1", port: port, from: local) }
        fds.withLock { $0 = made }
        if !first.isEmpty { _ = waitConnected(within: 5); send(first) }
    }

    deinit { close() }

    /// Sockets made.
    public var count: Int { fds.withLock { $0.count } }

    /// Waits up to `seconds` for the connects to finish; how many did.
    @discardableResult
    public func waitConnected(within seconds: Double) -> Int {
        let deadline = Date().addingTimeInterval(seconds)
        var connected = 0
        repeat {
            let (done, all) = fds.withLock { fds -> (Int, Int) in
                var polls = fds.map { pollfd(fd: $0, events: Int16(POLLOUT), revents: 0) }
                _ = poll(&polls, nfds_t(polls.count), 0)
                return (polls.filter { $0.revents & Int16(POLLOUT) != 0 }.count, fds.count)
            }
            connected = done
            if connected == all { break }
            usleep(20_000)
        } while Date() < deadline
        return connected
    }

    /// Sends `bytes` on every connection still open (what cannot go out at once is dropped).
    public func send(_ bytes: [UInt8]) {
        fds.withLock { Self.send(bytes, on: $0) }
    }

    /// Sends `bytes` on each of `fds`, without blocking or a signal (what cannot go out is dropped).
    private static func send(_ bytes: [UInt8], on fds: [Int32]) {
        for fd in fds { _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) } }
    }

    /// Whether each of `fds` was closed, reset or failed on the server's side.
    private static func closedByPeer(_ fds: [Int32]) -> [Bool] {
        var polls = fds.map { pollfd(fd: $0, events: pollReadHangup, revents: 0) }
        _ = poll(&polls, nfds_t(polls.count), 0)
        return polls.map { $0.revents & pollClosed != 0 }
    }

    /// Connections the server has not closed (nor reset) — connected or still connecting.
    public var open: Int {
        fds.withLock { Self.closedByPeer($0).filter { !$0 }.count }
    }

    /// Replaces every connection the server closed with a new one (sending `firstBytes`); how
    /// many were replaced.
    @discardableResult
    public func reopenClosed() -> Int {
        fds.withLock { fds in
            var replaced: [Int32] = []
            for (i, closed) in Self.closedByPeer(fds).enumerated() where closed {
                abortSocket(fds[i])
                if let fd = try? rawConnect(to: "127.0.0.1", port: port, from: local) { fds[i] = fd; replaced.append(fd) } else { fds[i] = -1 }
            }
            fds.removeAll { $0 < 0 }
            if !first.isEmpty, !replaced.isEmpty {
                usleep(50_000)
                Self.send(first, on: replaced)
            }
            return replaced.count
        }
    }

    /// Closes every connection (with a reset: no TIME_WAIT left behind).
    public func close() {
        fds.withLock { fds in
            for fd in fds { abortSocket(fd) }
            fds = []
        }
    }
}

/// Raises the soft limit of open descriptors towards `wanted` (at most the hard limit); the soft
/// limit before and after.
@discardableResult
public func raiseOpenFileLimit(to wanted: Int) -> (before: Int, after: Int) {
    let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    var limit = rlimit()
    getrlimit(resource, &limit)
    let before = Int(clamping: limit.rlim_cur)
    if limit.rlim_cur < rlim_t(wanted) {
        limit.rlim_cur = min(rlim_t(wanted), limit.rlim_max)
        setrlimit(resource, &limit)
        getrlimit(resource, &limit)
    }
    return (before, Int(clamping: limit.rlim_cur))
}

/// POLLRDHUP (glibc defines it only with _GNU_SOURCE): the peer closed its side.
private let pollReadHangup: Int16 = 0x2000
/// The peer closed, reset, or the socket failed.
private let pollClosed: Int16 = Int16(POLLHUP) | Int16(POLLERR) | 0x2000

/// A non-blocking socket bound to `local` (its port chosen at connect, so that one local address
/// can hold many connections to one server) and connecting to `host`:`port`.
func rawConnect(to host: String, port: UInt16, from local: String) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw RawHTTPConnection.Failure(description: "socket: \(String(cString: strerror(errno)))") }
    var on: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_IP), 24 /* IP_BIND_ADDRESS_NO_PORT */, &on, socklen_t(MemoryLayout<Int32>.size))
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    var me = sockaddr_in()
    me.sin_family = sa_family_t(AF_INET)
    inet_pton(AF_INET, local, &me.sin_addr)
    var them = sockaddr_in()
    them.sin_family = sa_family_t(AF_INET)
    them.sin_port = port.bigEndian
    inet_pton(AF_INET, host, &them.sin_addr)
    let bound = withUnsafePointer(to: &me) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
    guard bound == 0 else {
        let e = errno; Glibc.close(fd)
        throw RawHTTPConnection.Failure(description: "bind \(local): \(String(cString: strerror(e)))")
    }
    let r = withUnsafePointer(to: &them) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
    guard r == 0 || errno == EINPROGRESS else {
        let e = errno; Glibc.close(fd)
        throw RawHTTPConnection.Failure(description: "connect \(host):\(port) from \(local): \(String(cString: strerror(e)))")
    }
    return fd
}

/// Closes with a reset (SO_LINGER 0).
func abortSocket(_ fd: Int32) {
    var l = linger(l_onoff: 1, l_linger: 0)
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, socklen_t(MemoryLayout<linger>.size))
    Glibc.close(fd)
}
