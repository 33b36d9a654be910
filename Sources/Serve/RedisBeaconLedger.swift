import Foundation
import Redis

/// Fired beacons recorded in Redis, so each fires once across every node: a key is granted to
/// the node whose `SET interlude:fired:SESSION:KEY 1 NX PX ttl` succeeds. Keys are claimed in
/// one pipeline. While Redis cannot be reached nothing is granted (a beacon may be lost, never
/// fired twice).
public struct RedisBeaconLedger: BeaconLedger {
    /// The Redis client.
    public let client: RedisClient
    /// How long a fired record is kept, in seconds.
    public let ttl: Double

    /// A ledger on `client` keeping records `ttl` seconds.
    public init(client: RedisClient, ttl: Double) { self.client = client; self.ttl = ttl }

    /// `interlude:fired:SESSION:KEY`.
    public static func key(session: String, _ key: String) -> String { "interlude:fired:\(session):\(key)" }

    /// True: every node sharing the Redis claims here.
    public var isShared: Bool { true }

    /// Of `keys`, those whose `SET NX` this call won.
    public func claim(_ keys: [String], session: String) -> [String] {
        guard !keys.isEmpty else { return [] }
        let ms = RedisTTL.px(ttl)
        guard let replies = try? client.pipeline(keys.map { ["SET", Self.key(session: session, $0), "1", "NX", "PX", ms] }),
              replies.count == keys.count else { return [] }
        return zip(keys, replies).filter { $0.1 == .status("OK") }.map(\.0)
    }
}
