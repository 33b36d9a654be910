import CMicroHTTPD
import Foundation
import Threads

/// An HTTP/1.1 server over libmicrohttpd: its own thread pool, keep-alive, a connection limit
/// and idle timeout, a request body limit (413) and a header limit, responses from memory or
/// from a file, and a graceful shutdown. libmicrohttpd parses every request; the handler sees
/// complete, well-framed requests only.
///
/// Hostile clients: the server accepts connections itself (`ConnectionGate`) and hands one to
/// libmicrohttpd once its first request's head is in and well-formed, so that connections that
/// trickle or never send (slowloris) take no slot of libmicrohttpd's; each client address may
/// hold `maxConnectionsPerClient`; a request's head and body have deadlines; malformed framing
/// (bare CR, unsupported Transfer-Encoding, conflicting lengths, a long chunk line, too many
/// query arguments) is answered 4xx/501 at once and the connection closed.
///
/// ```swift
/// let server = try HTTPServer(options: HTTPServerOptions(port: 8080)) { request in
///     .text("hello \(request.path)\n")
/// }
/// // …
/// server.shutdown(grace: 10)
/// ```
public final class HTTPServer: Sendable {
    /// A handler: one complete request in, one response out. Runs on a pool thread; may block
    /// that thread (and only its connections) for as long as it needs.
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse
    /// A handler that answers at once or later (`HTTPAnswer`): runs on a pool thread, which it
    /// should not block; work that waits goes in `.later`, on Swift's concurrency pool.
    public typealias Answerer = @Sendable (HTTPRequest) -> HTTPAnswer

    /// Why a server could not start.
    public struct StartError: Error, CustomStringConvertible {
        /// One line.
        public var description: String
    }

    let options: HTTPServerOptions
    let answerer: Answerer
    let gate: ConnectionGate
    /// The daemon (nil once stopped) and the requests in flight.
    private struct State {
        var daemon: OpaquePointer?
        var inFlight = 0
        var stopping = false
    }
    private let state = Locked(State())
    /// Connections suspended while their request runs off the pool, by ticket.
    private struct Parked {
        var connections: [Int: SuspendedConnection] = [:]
        var nextTicket = 0
    }
    /// The parked connections, under a lock of their own (not `state`'s: libmicrohttpd's
    /// callbacks take `state`'s, and resuming, done holding this one, takes libmicrohttpd's own
    /// locks).
    private let parking = Locked(Parked())
    /// The port listened on.
    public let port: UInt16
    /// Connections open at once: `options.connectionLimit`, lowered to what the process's
    /// descriptor limit allows (whose soft limit the server raises towards the hard one when
    /// the connection limit needs it).
    public let connectionLimit: Int

    /// Starts listening at once; `handler` answers every request on the pool thread that read it.
    public convenience init(options: HTTPServerOptions, handler: @escaping Handler) throws {
        try self.init(options: options, answer: { .now(handler($0)) })
    }

    /// Starts listening at once; `answer` answers each request now or later (`HTTPAnswer`).
    public init(options: HTTPServerOptions, answer: @escaping Answerer) throws {
        self.options = options
        self.answerer = answer
        connectionLimit = HTTPServer.connectionsTheDescriptorsAllow(options.connectionLimit)
        let headerBytes = max(4096, options.maxHeaderBytes)
        gate = try ConnectionGate(host: options.host, port: options.port, limits: ConnectionGate.Limits(
            connections: connectionLimit, perClient: max(0, options.maxConnectionsPerClient),
            headerTimeout: max(0.1, options.headerTimeout), bodyTimeout: max(0.1, options.bodyTimeout),
            idleTimeout: Double(max(1, options.connectionTimeout)),
            check: RawRequestCheck(maxHeaderBytes: headerBytes, maxBodyBytes: options.maxBodyBytes)))
        port = gate.port
        // The daemon holds an unretained pointer to self; `shutdown` (run by deinit at the
        // latest) stops the daemon before self goes. Its own limit is twice the gate's: the gate
        // decides, and a connection it evicted may still be closing.
        let me = Unmanaged.passUnretained(self).toOpaque()
        let started = interlude_mhd_start(UInt32(max(1, options.threads)), UInt32(2 * connectionLimit + 64),
                                          UInt32(max(1, options.connectionTimeout)), headerBytes,
                                          accessCallback, me, completedCallback, me, connectionCallback, me, targetCallback, me)
        guard let started else {
            gate.stop()
            throw StartError(description: "cannot start libmicrohttpd on \(options.host):\(options.port)")
        }
        state.withLock { $0.daemon = started }
        gate.start(started)
    }

    /// What the server's gate has done: connections open, refused, evicted, timed out; requests
    /// refused before a handler.
    public var counters: HTTPServerCounters { gate.counters }

    /// `wanted`, or fewer when the process may not open that many descriptors (and as many
    /// again for files, pipes and the like, at most 256): the soft RLIMIT_NOFILE is raised
    /// towards the hard limit first.
    static func connectionsTheDescriptorsAllow(_ wanted: Int) -> Int {
        let wanted = max(1, wanted)
        let reserve = rlim_t(min(256, wanted))
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return wanted }
        let needed = rlim_t(wanted) + reserve
        if limit.rlim_cur != rlim_t.max, limit.rlim_cur < needed, limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = min(needed, limit.rlim_max)
            if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        if limit.rlim_cur == rlim_t.max || limit.rlim_cur >= needed { return wanted }
        return max(1, Int(limit.rlim_cur) - Int(reserve))
    }

    deinit { shutdown(grace: 0) }

    /// Requests being handled now (received, not yet answered in full).
    public var requestsInFlight: Int { state.withLock { $0.inFlight } }

    /// Stops accepting connections, lets requests in flight finish (up to `grace` seconds), then
    /// closes every connection and joins the pool. Idempotent.
    public func shutdown(grace: Double) {
        let daemon = state.withLock { s -> OpaquePointer? in
            guard let d = s.daemon, !s.stopping else { return nil }
            s.stopping = true
            return d
        }
        guard let d = daemon else { return }
        gate.stopAccepting()
        let deadline = Date().addingTimeInterval(grace)
        while requestsInFlight > 0 && Date() < deadline { usleep(10_000) }
        // libmicrohttpd aborts the process when stopped with a connection suspended: answer
        // every request still running off the pool 503 now (its handler's answer, when it
        // comes, is dropped), and give those answers a moment to go out.
        if resumeParked(with: .error(503, "the server is shutting down")) > 0 {
            let last = Date().addingTimeInterval(1)
            while requestsInFlight > 0 && Date() < last { usleep(10_000) }
        }
        MHD_stop_daemon(d)
        gate.stop()
        state.withLock { $0.daemon = nil }
    }

    // MARK: libmicrohttpd's calls

    /// Keeps a suspended connection until `answer(_:with:)` or shutdown resumes it.
    func park(_ connection: SuspendedConnection) -> Int {
        parking.withLock { p in
            p.nextTicket += 1
            p.connections[p.nextTicket] = connection
            return p.nextTicket
        }
    }

    /// The handler's answer for a parked connection: queued, unless shutdown answered it first.
    func answer(_ ticket: Int, with response: HTTPResponse) {
        parking.withLock { p in
            guard let c = p.connections.removeValue(forKey: ticket) else { return }
            c.request.answer = response
            MHD_resume_connection(c.connection)
        }
    }

    /// Resumes every parked connection with `response`; how many there were.
    private func resumeParked(with response: HTTPResponse) -> Int {
        parking.withLock { p in
            let all = p.connections.values
            p.connections = [:]
            for c in all {
                c.request.answer = response
                MHD_resume_connection(c.connection)
            }
            return all.count
        }
    }

    func began() { state.withLock { $0.inFlight += 1 } }
    func ended() { state.withLock { $0.inFlight -= 1 } }
}
