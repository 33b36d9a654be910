/// Limits and sizes of an `HTTPServer`. The defaults keep one process serving on its own, with
/// no proxy in front, while one client holds thousands of idle or half-sent connections: a cap
/// per client address, deadlines for a request's head and body, and strict framing.
public struct HTTPServerOptions: Sendable {
    /// IPv4 address to listen on (dotted quad).
    public var host: String
    /// Port; 0 picks a free one (read it back from `HTTPServer.port`).
    public var port: UInt16
    /// Threads in libmicrohttpd's pool; each serves many connections (epoll), and a handler runs
    /// on the thread of its connection.
    public var threads: Int
    /// Connections open at once (lowered to what the process's descriptor limit allows, see
    /// `HTTPServer.connectionLimit`). When all are taken, a new one evicts the oldest connection
    /// that has not sent its first request in full, else the oldest idle kept-alive one; only
    /// when every connection is in a request is a new one refused.
    public var connectionLimit: Int
    /// Connections one client address may hold at once; more are closed as they are accepted.
    /// 0: no cap (behind a proxy or a CDN, whose connections all come from a few addresses).
    public var maxConnectionsPerClient: Int
    /// Seconds a kept-alive connection may stay idle before it is closed: the next request's
    /// head must be in within this of the last response (and libmicrohttpd closes a connection
    /// silent this long mid-response).
    public var connectionTimeout: Int
    /// Seconds a new connection has to send its first request's head (request line and headers)
    /// in full, however slowly it trickles in; past it: 408 (or closed, when nothing came).
    public var headerTimeout: Double
    /// Seconds a request's body has to arrive in full after its head; past it: 408 or closed.
    public var bodyTimeout: Double
    /// The largest request body accepted; a longer one is answered 413.
    public var maxBodyBytes: Int
    /// The largest request head, and libmicrohttpd's memory per connection: a longer head is
    /// answered 431 (414 while still in the request line).
    public var maxHeaderBytes: Int
    /// The most query arguments a request may have; more: 414 (libmicrohttpd 0.9.75 stalls when
    /// they overflow its per-connection memory, about 290 short ones in 32 KiB).
    public var maxQueryArguments: Int

    /// The default cap of connections per client address.
    public static let defaultMaxConnectionsPerClient = 64

    /// Options; the defaults suit a playlist service on one machine.
    public init(host: String = "127.0.0.1", port: UInt16 = 0, threads: Int = 8, connectionLimit: Int = 4096,
                maxConnectionsPerClient: Int = HTTPServerOptions.defaultMaxConnectionsPerClient,
                connectionTimeout: Int = 30, headerTimeout: Double = 10, bodyTimeout: Double = 10,
                maxBodyBytes: Int = 64 * 1024, maxHeaderBytes: Int = 32 * 1024, maxQueryArguments: Int = 128) {
        self.host = host; self.port = port; self.threads = threads; self.connectionLimit = connectionLimit
        self.maxConnectionsPerClient = maxConnectionsPerClient
        self.connectionTimeout = connectionTimeout; self.headerTimeout = headerTimeout; self.bodyTimeout = bodyTimeout
        self.maxBodyBytes = maxBodyBytes; self.maxHeaderBytes = maxHeaderBytes; self.maxQueryArguments = maxQueryArguments
    }
}

/// What a server's gate has done since it started (for tests and metrics).
public struct HTTPServerCounters: Sendable, Equatable {
    /// Connections open now (held by the gate or by libmicrohttpd).
    public var openConnections = 0
    /// Connections closed at accept: their client address held its cap already.
    public var refusedOverClientCap = 0
    /// Connections closed at accept: every connection was busy with a request.
    public var refusedFull = 0
    /// Connections closed to make room for a new one (slow first request, or idle).
    public var evicted = 0
    /// Connections closed, or requests answered 408, at a deadline (head, body or idle).
    public var timedOut = 0
    /// Requests refused for their framing or head (400, 413, 414, 431, 501), before a handler.
    public var refusedRequests = 0
}
