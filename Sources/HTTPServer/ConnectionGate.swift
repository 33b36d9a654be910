import CMicroHTTPD
import Foundation
import Threads
#if canImport(Glibc)
import Glibc
#endif

/// Seconds on the monotonic clock.
func monotonicSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

/// The server's front door, on a thread of its own: it accepts every connection itself (a cap
/// per client address and one in all), holds it until its first request's head (and a chunked
/// body) is in and well-formed or a deadline passes, and only then hands it to libmicrohttpd,
/// which owns it from there. libmicrohttpd 0.9.75 has only an inactivity timeout (a client that
/// sends a byte now and then keeps a connection forever), waits for ever on a bare CR, and
/// answers a long chunk line 500; and a connection it owns takes one of its slots.
///
/// It also keeps the deadlines of the connections libmicrohttpd owns (their records are
/// `OwnedConnection`s, made and updated from libmicrohttpd's callbacks): a request's body must be
/// in within the body timeout of its head, and the next request's head within the idle timeout of
/// the last response; past one, the socket is shut down and libmicrohttpd closes it.
///
/// When all connections are taken, a new one evicts the oldest connection still sending its
/// first request, else the oldest idle kept-alive one, so that slow clients cannot keep new ones
/// out; only when every connection is busy with a request is a new one refused.
final class ConnectionGate: @unchecked Sendable {
    // @unchecked Sendable: a C owner (the listening socket, the epoll set, the wake fd and the
    // daemon pointer); what the gate thread keeps is a `LoopBound` of it, the counts, what is
    // tracked of libmicrohttpd's connections and `request` are in `shared`, under its lock.

    /// The limits the gate enforces.
    struct Limits: Sendable {
        var connections: Int
        var perClient: Int
        var headerTimeout: Double
        var bodyTimeout: Double
        var idleTimeout: Double
        var check: RawRequestCheck
    }

    /// A connection libmicrohttpd owns: its socket context, naming it in `Shared.owned`.
    final class OwnedConnection: Sendable {
        let fd: Int32
        let address: UInt32
        init(fd: Int32, address: UInt32) { self.fd = fd; self.address = address }
    }

    /// What the gate tracks of a connection libmicrohttpd owns.
    private struct Tracked {
        let fd: Int32
        /// When the gate shuts it down; nil while a request is being handled.
        var deadline: Double?
        /// When its last response went out; nil while a request is in progress.
        var idleSince: Double?
        /// Shut down by the gate (a deadline passed, or evicted); libmicrohttpd closes it.
        var closing = false
        /// The request's query had more arguments than allowed (they were cut before parsing).
        var queryOverLimit = false
    }

    /// What the gate's thread and libmicrohttpd's threads share.
    private struct Shared {
        var perClient: [UInt32: Int] = [:]
        var open = 0
        var owned: [ObjectIdentifier: Tracked] = [:]
        var request = Request.none
        var tally = HTTPServerCounters()

        /// `body` with what is tracked of `c`; nil when it is not tracked (any more).
        mutating func update<R>(_ c: OwnedConnection, _ body: (inout Tracked) -> R) -> R? {
            guard let i = owned.index(forKey: ObjectIdentifier(c)) else { return nil }
            return body(&owned.values[i])
        }

        /// A connection to `address` has gone.
        mutating func release(_ address: UInt32) {
            open -= 1
            if let n = perClient[address], n > 1 { perClient[address] = n - 1 } else { perClient[address] = nil }
        }
    }

    /// A connection the gate holds.
    private struct Pending {
        let fd: Int32
        let address: UInt32
        let port: UInt16
        let accepted: Double
        var deadline: Double
        var seen = 0
        var headComplete = false
        /// In the gate's epoll set.
        var registered = false
        /// Answered and half-closed: read and dropped until the client closes or this passes.
        var lingerUntil: Double?
    }

    private enum Request { case none, stopAccepting, exit }

    let port: UInt16
    let limits: Limits
    private let listener: Int32
    private let epoll: Int32
    private let wake: Int32
    private let shared = Locked(Shared())
    private let done = DispatchSemaphore(value: 0)
    /// `start` was called: the gate thread runs (until `stop`).
    private let started = Locked(false)

    /// What the gate thread alone keeps (a `LoopBound` of it once it runs).
    private struct Gate {
        var daemon: OpaquePointer?
        var pending: [Int32: Pending] = [:]
        var buffer: [UInt8]
        var listenerPausedUntil: Double?
        var listening = true
    }
    private let gateThread = ThreadOwner(name: "the connection gate's thread")
    private let gate: LoopBound<Gate>
    private var daemon: OpaquePointer? { get { gate.value.daemon } _modify { yield &gate.value.daemon } }
    private var pending: [Int32: Pending] { get { gate.value.pending } _modify { yield &gate.value.pending } }
    private var buffer: [UInt8] { get { gate.value.buffer } _modify { yield &gate.value.buffer } }
    private var listenerPausedUntil: Double? { get { gate.value.listenerPausedUntil } _modify { yield &gate.value.listenerPausedUntil } }
    private var listening: Bool { get { gate.value.listening } _modify { yield &gate.value.listening } }

    private static let listenerToken = UInt64.max, wakeToken = UInt64.max - 1

    /// Listens on `host`:`port` (0: a free port); throws when the address is invalid or taken.
    init(host: String, port: UInt16, limits: Limits) throws {
        self.limits = limits
        var bound: UInt16 = 0
        let fd = interlude_listen(host, port, 4096, &bound)
        guard fd >= 0 else {
            throw HTTPServer.StartError(description: "cannot listen on \(host):\(port) (\(errno == EINVAL ? "not an IPv4 address" : String(cString: strerror(errno))))")
        }
        listener = fd
        self.port = bound
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        wake = interlude_wake_fd()
        gate = LoopBound(Gate(buffer: [UInt8](repeating: 0, count: limits.check.peekLimit)), owner: gateThread, name: "the gate's connections")
        _ = interlude_epoll_add(epoll, listener, interlude_epoll_in, Self.listenerToken)
        _ = interlude_epoll_add(epoll, wake, interlude_epoll_in, Self.wakeToken)
    }

    /// Starts handing connections to `daemon`.
    func start(_ daemon: OpaquePointer) {
        self.daemon = daemon
        started.withLock { $0 = true }
        let thread = Thread { [self] in run() }
        thread.name = "http-gate"
        thread.start()
    }

    /// Closes the listening socket and the connections not handed over yet; returns once done.
    func stopAccepting() {
        guard started.withLock({ $0 }) else { return }
        tell(.stopAccepting)
        done.wait()
    }

    /// Stops the thread (after libmicrohttpd stopped) and closes what is left; closes the
    /// listening socket of a gate never started.
    func stop() {
        if started.withLock({ $0 }) {
            tell(.exit)
            done.wait()
        } else {
            close(listener)
        }
        close(epoll); close(wake)
    }

    private func tell(_ r: Request) {
        shared.withLock { $0.request = r }
        var one: UInt64 = 1
        _ = write(wake, &one, 8)
    }

    /// What the gate has done so far.
    var counters: HTTPServerCounters {
        shared.withLock { s in
            var c = s.tally
            c.openConnections = s.open
            return c
        }
    }

    // MARK: The gate's thread

    private func run() {
        gateThread.bind()
        var tokens = [UInt64](repeating: 0, count: 256)
        var events = [UInt32](repeating: 0, count: 256)
        var nextSweep = 0.0
        while true {
            let n = interlude_epoll_wait(epoll, &tokens, &events, 256, 100)
            let now = monotonicSeconds()
            for k in 0..<max(0, Int(n)) {
                switch tokens[k] {
                case Self.listenerToken: acceptAll(now)
                case Self.wakeToken: var v: UInt64 = 0; _ = read(wake, &v, 8)
                default: serve(Int32(truncatingIfNeeded: tokens[k]), events[k], now)
                }
            }
            let r = shared.withLock { s in
                defer { s.request = .none }
                return s.request
            }
            if r == .stopAccepting || r == .exit {
                if listening {
                    if listenerPausedUntil == nil { _ = interlude_epoll_remove(epoll, listener) }
                    close(listener)
                    listening = false
                }
                for p in Array(pending.values) { discard(p) }
                if r == .exit { gateThread.release() }   // before `stop` hears it
                done.signal()
                if r == .exit { return }
            }
            if now >= nextSweep { sweep(now); nextSweep = now + 0.1 }
        }
    }

    /// Accepts what is waiting, at most 512 at a time (the listener stays readable; the other
    /// connections' events and the deadlines are not starved by a flood of connects).
    private func acceptAll(_ now: Double) {
        for _ in 0..<512 where listening {
            var address: UInt32 = 0, port: UInt16 = 0
            let fd = interlude_accept(listener, &address, &port)
            if fd < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                if errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM {
                    // No descriptor to take it with: the listener would stay readable and spin.
                    _ = interlude_epoll_remove(epoll, listener)
                    listenerPausedUntil = now + 0.1
                }
                return
            }
            admit(fd, address, port, now)
        }
    }

    private func admit(_ fd: Int32, _ address: UInt32, _ port: UInt16, _ now: Double) {
        // nil: over the per-client cap
        let full = shared.withLock { s -> Bool? in
            if limits.perClient > 0, s.perClient[address, default: 0] >= limits.perClient {
                s.tally.refusedOverClientCap += 1
                return nil
            }
            return s.open >= limits.connections
        }
        guard let full else {
            interlude_abort_socket(fd)
            return
        }
        if full && !evictOne(now) {
            shared.withLock { $0.tally.refusedFull += 1 }
            interlude_abort_socket(fd)
            return
        }
        shared.withLock { s in s.open += 1; s.perClient[address, default: 0] += 1 }
        // Its request is often in already: looked at at once, without a round through epoll.
        examine(Pending(fd: fd, address: address, port: port, accepted: now, deadline: now + limits.headerTimeout), 0, now)
        if var p = pending[fd], !p.registered {
            guard interlude_epoll_add(epoll, fd, interlude_epoll_in | interlude_epoll_edge | interlude_epoll_hangup, UInt64(fd)) == 0 else {
                discard(p)
                return
            }
            p.registered = true
            pending[fd] = p
        }
    }

    /// Makes room for one connection: the oldest one still sending its first request, else the
    /// oldest idle one libmicrohttpd keeps alive. False when every connection is in a request.
    private func evictOne(_ now: Double) -> Bool {
        if let oldest = pending.values.filter({ $0.lingerUntil == nil }).min(by: { $0.accepted < $1.accepted }) {
            shared.withLock { $0.tally.evicted += 1 }
            discard(oldest)
            return true
        }
        return shared.withLock { s in
            guard let idle = s.owned.lazy.filter({ !$0.value.closing && $0.value.idleSince != nil })
                .min(by: { $0.value.idleSince! < $1.value.idleSince! }) else { return false }
            s.owned[idle.key]?.closing = true
            s.tally.evicted += 1
            shutdown(idle.value.fd, Int32(SHUT_RDWR))
            return true
        }
    }

    private func serve(_ fd: Int32, _ events: UInt32, _ now: Double) {
        guard let p = pending[fd] else { return }
        if p.lingerUntil != nil {
            if drain(fd) { discard(p) }
            return
        }
        examine(p, events, now)
    }

    /// Looks at what a connection the gate holds has sent: hands it over, refuses it, or keeps it
    /// (in `pending`) for more.
    private func examine(_ p: Pending, _ events: UInt32, _ now: Double) {
        var p = p
        let available = Int(interlude_readable_bytes(p.fd))
        // the socket failed, or the client hung up with nothing new: it left mid-request
        if available < 0 || (events & interlude_epoll_hangup != 0 && available <= p.seen) { discard(p); return }
        if available > p.seen {
            let n = buffer.withUnsafeMutableBytes { recv(p.fd, $0.baseAddress, min(available, $0.count), Int32(MSG_PEEK)) }
            if n <= 0 { discard(p); return }
            p.seen = n
            switch buffer.withUnsafeBufferPointer({ limits.check.verdict(UnsafeBufferPointer(rebasing: $0[0..<n])) }) {
            case .incomplete(let headComplete):
                if headComplete && !p.headComplete { p.headComplete = true; p.deadline = now + limits.bodyTimeout }
            case .admit:
                handOver(p)
                return
            case .refuse(let status, let reason):
                refuse(p, status, reason, now)
                return
            }
        }
        pending[p.fd] = p
    }

    private func handOver(_ p: Pending) {
        if p.registered { _ = interlude_epoll_remove(epoll, p.fd) }
        pending[p.fd] = nil
        guard let daemon, interlude_mhd_add(daemon, p.fd, p.address, p.port) != 0 else {
            release(p.address)   // libmicrohttpd closed it
            return
        }
    }

    /// Answers `status` and half-closes; what the client still sends is read and dropped for up
    /// to two seconds (closing with unread bytes would reset the connection, and the client could
    /// lose the answer).
    private func refuse(_ p: Pending, _ status: Int, _ reason: String, _ now: Double) {
        shared.withLock { s in if status == 408 { s.tally.timedOut += 1 } else { s.tally.refusedRequests += 1 } }
        _ = drain(p.fd)
        let body = "{\"error\":\"\(reason)\"}"
        let text = "HTTP/1.1 \(status) \(Self.phrase(status))\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        _ = text.withCString { send(p.fd, $0, strlen($0), Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        shutdown(p.fd, Int32(SHUT_WR))
        var q = p
        q.lingerUntil = now + 2
        pending[p.fd] = q
    }

    /// Reads and drops what is waiting (at most 256 KiB a call); true once the client has closed.
    private func drain(_ fd: Int32) -> Bool {
        var total = 0
        while total < 256 * 1024 {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n == 0 { return true }
            if n < 0 { return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR }
            total += n
        }
        return false
    }

    /// Closes a connection the gate holds, with a reset (a client that never finished its request
    /// gets no answer).
    private func discard(_ p: Pending) {
        if p.registered { _ = interlude_epoll_remove(epoll, p.fd) }
        pending[p.fd] = nil
        if p.lingerUntil != nil { close(p.fd) } else { interlude_abort_socket(p.fd) }
        release(p.address)
    }

    private func release(_ address: UInt32) {
        shared.withLock { $0.release(address) }
    }

    /// Deadlines: the gate's connections past theirs are answered 408 (or closed, when they sent
    /// nothing), libmicrohttpd's are shut down; a paused listener is watched again.
    private func sweep(_ now: Double) {
        for p in Array(pending.values) {
            if let until = p.lingerUntil {
                if now >= until { discard(p) }
            } else if now >= p.deadline {
                if p.seen == 0 {
                    shared.withLock { $0.tally.timedOut += 1 }
                    discard(p)
                } else {
                    let t = p.headComplete ? limits.bodyTimeout : limits.headerTimeout
                    refuse(p, 408, "request \(p.headComplete ? "body" : "head") not complete within \(t.formatted) s", now)
                }
            }
        }
        shared.withLock { s in
            let expired = s.owned.compactMap { id, c in !c.closing && c.deadline.map({ now >= $0 }) == true ? id : nil }
            for id in expired {
                guard let fd = s.owned[id]?.fd else { continue }
                s.owned[id]?.closing = true
                s.tally.timedOut += 1
                shutdown(fd, Int32(SHUT_RDWR))
            }
        }
        if let paused = listenerPausedUntil, now >= paused, listening {
            listenerPausedUntil = nil
            _ = interlude_epoll_add(epoll, listener, interlude_epoll_in, Self.listenerToken)
        }
    }

    private static func phrase(_ status: Int) -> String {
        switch status {
        case 400: return "Bad Request"
        case 408: return "Request Timeout"
        case 413: return "Content Too Large"
        case 414: return "URI Too Long"
        case 431: return "Request Header Fields Too Large"
        default: return "Error"
        }
    }

    // MARK: libmicrohttpd's connections (called on its threads)

    /// A connection libmicrohttpd took over: its record, retained, for the connection's socket
    /// context. Its first request is already in the socket.
    func started(_ connection: OpaquePointer) -> UnsafeMutableRawPointer {
        let c = OwnedConnection(fd: interlude_mhd_connection_fd(connection), address: interlude_mhd_connection_ipv4(connection))
        shared.withLock { $0.owned[ObjectIdentifier(c)] = Tracked(fd: c.fd, deadline: monotonicSeconds() + limits.headerTimeout) }
        return Unmanaged.passRetained(c).toOpaque()
    }

    /// libmicrohttpd closed a connection (its socket is closed right after this returns).
    func closed(_ connection: OpaquePointer, context: UnsafeMutableRawPointer?) {
        shared.withLock { s in
            let address: UInt32
            if let context {
                let c = Unmanaged<OwnedConnection>.fromOpaque(context).takeRetainedValue()
                s.owned[ObjectIdentifier(c)] = nil
                address = c.address
            } else {
                address = interlude_mhd_connection_ipv4(connection)
            }
            s.release(address)
        }
    }

    /// The record of one of libmicrohttpd's connections.
    func record(_ connection: OpaquePointer) -> OwnedConnection? {
        interlude_mhd_socket_context(connection).map { Unmanaged<OwnedConnection>.fromOpaque($0).takeUnretainedValue() }
    }

    /// A request's head is in: its body must be within the body timeout. True when its query was
    /// cut for having too many arguments.
    func headIn(_ connection: OpaquePointer) -> Bool {
        guard let c = record(connection) else { return false }
        return shared.withLock { s in
            s.update(c) { t in
                t.idleSince = nil
                t.deadline = monotonicSeconds() + limits.bodyTimeout
                defer { t.queryOverLimit = false }
                return t.queryOverLimit
            } ?? false
        }
    }

    /// A request is in whole and is being handled: no deadline until it is answered.
    func requestIn(_ connection: OpaquePointer) {
        guard let c = record(connection) else { return }
        shared.withLock { s in _ = s.update(c) { $0.deadline = nil } }
    }

    /// A request is done (answered, or abandoned): the next must be in within the idle timeout.
    func requestDone(_ connection: OpaquePointer) {
        guard let c = record(connection) else { return }
        let now = monotonicSeconds()
        shared.withLock { s in _ = s.update(c) { t in t.idleSince = now; t.deadline = now + limits.idleTimeout } }
    }

    /// Notes that a request's query was cut (more than the allowed arguments).
    func queryCut(_ connection: OpaquePointer) {
        guard let c = record(connection) else { return }
        shared.withLock { s in _ = s.update(c) { $0.queryOverLimit = true } }
    }

    /// A refused request is counted.
    func countRefusal() { shared.withLock { $0.tally.refusedRequests += 1 } }
}

extension Double {
    /// `2` or `2.5`: seconds for a message.
    var formatted: String { self == rounded() ? String(Int(self)) : String(self) }
}
