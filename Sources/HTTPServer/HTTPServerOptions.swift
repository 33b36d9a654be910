/// Limits and sizes of an `HTTPServer`.
public struct HTTPServerOptions: Sendable {
    /// IPv4 address to listen on (dotted quad).
    public var host: String
    /// Port; 0 picks a free one (read it back from `HTTPServer.port`).
    public var port: UInt16
    /// Threads in libmicrohttpd's pool; each serves many connections (epoll), and a handler runs
    /// on the thread of its connection.
    public var threads: Int
    /// Connections open at once; more are refused at accept.
    public var connectionLimit: Int
    /// Seconds a connection may stay idle (kept alive or mid-request) before it is closed.
    public var connectionTimeout: Int
    /// The largest request body accepted; a longer one is answered 413.
    public var maxBodyBytes: Int
    /// Memory per connection for the request line and headers (libmicrohttpd's pool); longer
    /// headers are refused by libmicrohttpd (431/413) before the handler sees them.
    public var maxHeaderBytes: Int

    /// Which requests run on a thread of their own while their connection is suspended (a
    /// handler that waits on something slow, e.g. an ad server), so that they never hold a pool
    /// thread and the connections it serves; the rest run on the pool thread.
    public var runsOffPool: @Sendable (HTTPRequest) -> Bool = { _ in false }

    /// Options; the defaults suit a playlist service on one machine.
    public init(host: String = "127.0.0.1", port: UInt16 = 0, threads: Int = 8, connectionLimit: Int = 4096,
                connectionTimeout: Int = 30, maxBodyBytes: Int = 64 * 1024, maxHeaderBytes: Int = 32 * 1024) {
        self.host = host; self.port = port; self.threads = threads; self.connectionLimit = connectionLimit
        self.connectionTimeout = connectionTimeout; self.maxBodyBytes = maxBodyBytes; self.maxHeaderBytes = maxHeaderBytes
    }
}
