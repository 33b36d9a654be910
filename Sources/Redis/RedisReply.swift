import Foundation

/// One Redis reply (RESP2), copied out of hiredis's reply object.
public enum RedisReply: Sendable, Hashable {
    /// A bulk string (binary-safe).
    case string(Data)
    /// A status line (`OK`, `QUEUED` …).
    case status(String)
    /// An integer.
    case integer(Int64)
    /// An array (nested replies).
    case array([RedisReply])
    /// The nil bulk string or nil array.
    case null
    /// An error reply (`ERR …`, `WRONGTYPE …`, `BUSYGROUP …`): the server answered, the command failed.
    case error(String)

    /// The string or status as UTF-8 text; nil for any other reply.
    public var text: String? {
        switch self {
        case .string(let d): String(decoding: d, as: UTF8.self)
        case .status(let s): s
        default: nil
        }
    }

    /// The integer, or a bulk string holding one; nil otherwise.
    public var integer: Int64? {
        switch self {
        case .integer(let i): i
        case .string(let d): Int64(String(decoding: d, as: UTF8.self))
        default: nil
        }
    }

    /// The array's elements; nil for any other reply (`.null` included).
    public var elements: [RedisReply]? { if case .array(let a) = self { a } else { nil } }

    /// Whether this is `.null`.
    public var isNull: Bool { self == .null }
}

/// Why a command did not get a reply from the server.
public enum RedisError: Error, Sendable, CustomStringConvertible {
    /// Not connected, and the next attempt to connect is not due yet (backing off), or it failed.
    case unavailable(String)
    /// The connection failed during the command (reset, timeout); the command may or may not have run.
    case io(String)
    /// The server answered with an error reply.
    case server(String)
    /// A URL that is not `redis://HOST[:PORT][/DB]` or `unix:///PATH`.
    case badURL(String)

    /// One line.
    public var description: String {
        switch self {
        case .unavailable(let m): "redis unavailable: \(m)"
        case .io(let m): "redis connection failed: \(m)"
        case .server(let m): "redis error: \(m)"
        case .badURL(let u): "'\(u)' is not a Redis URL (redis://HOST[:PORT][/DB] or unix:///PATH)"
        }
    }
}
