import Foundation

/// Where a Redis server listens: `redis://HOST[:PORT][/DB]` (port 6379 by default) or
/// `unix:///PATH[?db=N]`.
public struct RedisURL: Sendable, Hashable, CustomStringConvertible {
    /// A TCP address or a Unix socket path.
    public enum Address: Sendable, Hashable {
        /// Host and port.
        case tcp(host: String, port: Int)
        /// A Unix socket.
        case unix(path: String)
    }

    /// The address.
    public var address: Address
    /// The database number (`SELECT`), 0 by default.
    public var database: Int

    /// A parsed URL; throws `RedisError.badURL`.
    public init(_ text: String) throws {
        if text.hasPrefix("unix://") {
            let rest = text.dropFirst("unix://".count)
            let parts = rest.split(separator: "?", maxSplits: 1).map(String.init)
            guard let path = parts.first, path.hasPrefix("/") else { throw RedisError.badURL(text) }
            var db = 0
            if parts.count == 2 {
                guard parts[1].hasPrefix("db="), let n = Int(parts[1].dropFirst(3)), n >= 0 else { throw RedisError.badURL(text) }
                db = n
            }
            address = .unix(path: path); database = db
            return
        }
        guard text.hasPrefix("redis://") else { throw RedisError.badURL(text) }
        var rest = Substring(text.dropFirst("redis://".count))
        var db = 0
        if let slash = rest.firstIndex(of: "/") {
            let tail = rest[rest.index(after: slash)...]
            if !tail.isEmpty {
                guard let n = Int(tail), n >= 0 else { throw RedisError.badURL(text) }
                db = n
            }
            rest = rest[..<slash]
        }
        var host = String(rest), port = 6379
        if let colon = rest.lastIndex(of: ":") {
            guard let p = Int(rest[rest.index(after: colon)...]), (1...65535).contains(p) else { throw RedisError.badURL(text) }
            host = String(rest[..<colon]); port = p
        }
        guard !host.isEmpty, !host.contains("@") else { throw RedisError.badURL(text) }
        address = .tcp(host: host, port: port); database = db
    }

    /// The URL as written.
    public var description: String {
        switch address {
        case .tcp(let h, let p): "redis://\(h):\(p)" + (database == 0 ? "" : "/\(database)")
        case .unix(let path): "unix://\(path)" + (database == 0 ? "" : "?db=\(database)")
        }
    }
}
