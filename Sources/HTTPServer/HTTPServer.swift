import CMicroHTTPD
import Foundation

/// An HTTP/1.1 server over libmicrohttpd: its own thread pool, keep-alive, a connection limit
/// and idle timeout, a request body limit (413) and a header limit, responses from memory or
/// from a file, and a graceful shutdown. libmicrohttpd parses every request; the handler sees
/// complete requests only.
///
/// ```swift
/// let server = try HTTPServer(options: HTTPServerOptions(port: 8080)) { request in
///     .text("hello \(request.path)\n")
/// }
/// // …
/// server.shutdown(grace: 10)
/// ```
public final class HTTPServer: @unchecked Sendable {
    // @unchecked Sendable: `daemon` is written in init and in `shutdown` (under `lock`); the
    // counters are guarded by `lock`; libmicrohttpd's calls are thread-safe.
    /// A handler: one complete request in, one response out. Runs on a pool thread; may block
    /// that thread (and only its connections) for as long as it needs.
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    /// Why a server could not start.
    public struct StartError: Error, CustomStringConvertible {
        /// One line.
        public var description: String
    }

    let options: HTTPServerOptions
    let handler: Handler
    private let lock = NSLock()
    private var daemon: OpaquePointer?
    private var inFlight = 0
    private var stopping = false
    /// Connections suspended while their request runs off the pool, by ticket; guarded by
    /// `parking` (not `lock`: libmicrohttpd's callbacks take `lock`, and resuming takes
    /// libmicrohttpd's own locks).
    private var parked: [Int: SuspendedConnection] = [:]
    private var nextTicket = 0
    private let parking = NSLock()
    /// The port listened on.
    public private(set) var port: UInt16 = 0

    /// Starts listening at once.
    public init(options: HTTPServerOptions, handler: @escaping Handler) throws {
        self.options = options
        self.handler = handler
        // The daemon holds an unretained pointer to self; `shutdown` (run by deinit at the
        // latest) stops the daemon before self goes.
        let me = Unmanaged.passUnretained(self).toOpaque()
        let started = interlude_mhd_start(options.host, options.port, UInt32(max(1, options.threads)),
                                          UInt32(max(1, options.connectionLimit)), UInt32(max(1, options.connectionTimeout)),
                                          max(4096, options.maxHeaderBytes), accessCallback, me, completedCallback, me)
        guard let started else {
            throw StartError(description: "cannot listen on \(options.host):\(options.port) (address invalid or in use)")
        }
        daemon = started
        port = interlude_mhd_port(started)
    }

    deinit { shutdown(grace: 0) }

    /// Requests being handled now (received, not yet answered in full).
    public var requestsInFlight: Int { lock.lock(); defer { lock.unlock() }; return inFlight }

    /// Stops accepting connections, lets requests in flight finish (up to `grace` seconds), then
    /// closes every connection and joins the pool. Idempotent.
    public func shutdown(grace: Double) {
        lock.lock()
        guard let d = daemon, !stopping else { lock.unlock(); return }
        stopping = true
        lock.unlock()
        let listener = MHD_quiesce_daemon(d)
        if listener >= 0 { close(listener) }
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
        lock.lock(); daemon = nil; lock.unlock()
    }

    // MARK: libmicrohttpd's calls

    /// Keeps a suspended connection until `answer(_:with:)` or shutdown resumes it.
    func park(_ connection: SuspendedConnection) -> Int {
        parking.lock(); defer { parking.unlock() }
        nextTicket += 1
        parked[nextTicket] = connection
        return nextTicket
    }

    /// The handler's answer for a parked connection: queued, unless shutdown answered it first.
    func answer(_ ticket: Int, with response: HTTPResponse) {
        parking.lock(); defer { parking.unlock() }
        guard let c = parked.removeValue(forKey: ticket) else { return }
        c.request.answer = response
        MHD_resume_connection(c.connection)
    }

    /// Resumes every parked connection with `response`; how many there were.
    private func resumeParked(with response: HTTPResponse) -> Int {
        parking.lock(); defer { parking.unlock() }
        let all = parked.values
        parked = [:]
        for c in all {
            c.request.answer = response
            MHD_resume_connection(c.connection)
        }
        return all.count
    }

    func began() { lock.lock(); inFlight += 1; lock.unlock() }
    func ended() { lock.lock(); inFlight -= 1; lock.unlock() }
}
