import Foundation
import Threads
#if canImport(Glibc)
import Glibc
#endif

/// A thread-safe Redis client: a few connections opened on first use, each used by one caller
/// at a time. A broken connection is replaced on the next call; while the server cannot be
/// reached, attempts are spaced by an exponential backoff (`minBackoff` doubling to
/// `maxBackoff`) and calls between them fail at once with `RedisError.unavailable` — so a
/// Redis outage costs a caller microseconds, not a connect timeout each.
public final class RedisClient: Sendable {
    /// The server.
    public let url: RedisURL
    /// Seconds a connect, read or write may take.
    public let timeout: Double
    /// First retry delay after a failure.
    public let minBackoff: Double
    /// Longest retry delay.
    public let maxBackoff: Double
    /// The connections, each behind its own lock, held by one caller for its whole call (the
    /// connect and the command's round trip): a connection serves one caller at a time.
    private let slots: [Locked<RedisConnection?>]
    /// The slot used last; callers take the slots in turn.
    private let turn = Locked(0)
    /// When to try the server again after a failure, and why it failed.
    private struct Backoff {
        var retryAt: Double = 0
        var delay: Double
        var lastFailure = ""
    }
    private let backoff: Locked<Backoff>

    /// A client for `url` with up to `connections` connections.
    public init(url: RedisURL, connections: Int = 4, timeout: Double = 1, minBackoff: Double = 0.05, maxBackoff: Double = 2) {
        self.url = url; self.timeout = timeout; self.minBackoff = minBackoff; self.maxBackoff = maxBackoff
        backoff = Locked(Backoff(delay: minBackoff))
        slots = (0..<max(1, connections)).map { _ in Locked(nil) }
        // A write to a connection the server closed raises SIGPIPE, which would end the
        // process; the failed write is reported as an I/O error instead.
        _ = RedisClient.ignoreSIGPIPE
    }

    private static let ignoreSIGPIPE: Void = { signal(SIGPIPE, SIG_IGN); return () }()

    /// A client for the URL text; throws `RedisError.badURL`.
    public convenience init(_ url: String, connections: Int = 4, timeout: Double = 1) throws {
        self.init(url: try RedisURL(url), connections: connections, timeout: timeout)
    }

    /// Whether the last attempt reached the server (false while backing off after a failure).
    public var isAvailable: Bool { backoff.withLock { $0.retryAt == 0 } }

    /// Runs one command. A server error reply comes back as `.error`; unreachable or broken
    /// connections throw (`.unavailable` while backing off, `.io` when a command's connection failed).
    @discardableResult
    public func command(_ args: String...) throws -> RedisReply { try command(args) }

    /// Runs one command (arguments as an array).
    @discardableResult
    public func command(_ args: [String]) throws -> RedisReply { try withConnection { try $0.command(args) } }

    /// Runs one command with binary-safe arguments.
    @discardableResult
    public func command(data args: [Data]) throws -> RedisReply { try withConnection { try $0.command(args) } }

    /// Sends commands in one pipeline on one connection; their replies in order.
    public func pipeline(_ commands: [[String]]) throws -> [RedisReply] { try withConnection { try $0.pipeline(commands) } }

    /// Drops every connection (they reopen on next use).
    public func close() { for s in slots { s.withLock { $0 = nil } } }

    private func withConnection<T>(_ body: (RedisConnection) throws -> T) throws -> T {
        let slot = turn.withLock { t in t = (t + 1) % slots.count; return slots[t] }
        // the slot's lock is held across the connect and the command: one caller per connection
        return try slot.withLock { connection throws -> T in
            if connection == nil || connection!.broken {
                connection = nil
                let now = ProcessInfo.processInfo.systemUptime
                let wait: (Bool, String) = backoff.withLock { ($0.retryAt > now, $0.lastFailure) }
                if wait.0 { throw RedisError.unavailable("\(url): \(wait.1) (retrying)") }
                do {
                    connection = try RedisConnection(url: url, timeout: timeout)
                    backoff.withLock { $0.retryAt = 0; $0.delay = minBackoff }
                } catch {
                    failed("\(error)")
                    throw error
                }
            }
            do { return try body(connection!) } catch {
                connection = nil
                failed("\(error)")
                throw error
            }
        }
    }

    private func failed(_ message: String) {
        backoff.withLock { b in
            b.retryAt = ProcessInfo.processInfo.systemUptime + b.delay
            b.delay = min(maxBackoff, b.delay * 2)
            b.lastFailure = message
        }
    }
}
