import Foundation
import Redis

/// Live viewers in Redis: `interlude:live:ID` holds the viewer's record (JSON) with a TTL of the
/// session's idle timeout, restarted by every read and write; `interlude:live:ID:lock` is the
/// node changing it now (`SET … NX PX`, a random token, released only by its holder).
public struct RedisLiveViewerStore: LiveViewerStore {
    /// The Redis client.
    public let client: RedisClient
    /// A record's life past its last use, seconds.
    public let ttl: Double
    /// How long a lock lasts when its holder dies, seconds: longer than any one change takes
    /// (publishing a playlist's new items, with the pieces cut for them: milliseconds, a second
    /// under heavy load), short enough that a viewer whose node died holding it waits less than
    /// a player's playlist timeout.
    public let lockLife: Double

    /// A store on `client` whose records live `ttl` seconds past their last use.
    public init(client: RedisClient, ttl: Double, lockLife: Double = 4) {
        self.client = client; self.ttl = ttl; self.lockLife = lockLife
    }

    /// `interlude:live:ID`.
    public static func key(_ id: String) -> String { "interlude:live:\(id)" }

    public func load(_ id: String) throws -> Data? {
        switch try client.command("GETEX", Self.key(id), "PX", RedisTTL.px(ttl)) {
        case .string(let data): return data
        case .null: return nil
        case .error(let e): throw RedisError.server(e)
        default: return nil
        }
    }

    public func save(_ id: String, _ record: Data) throws {
        let reply = try client.command(data: [Data("SET".utf8), Data(Self.key(id).utf8), record, Data("PX".utf8),
                                              Data(RedisTTL.px(ttl).utf8)])
        if case .error(let e) = reply { throw RedisError.server(e) }
    }

    public func lock(_ id: String) async -> String? {
        let token = UUID().uuidString
        let key = Self.key(id) + ":lock", life = RedisTTL.px(lockLife)
        let deadline = Date().timeIntervalSince1970 + lockLife + 1
        while true {
            guard let reply = try? client.command("SET", key, token, "NX", "PX", life) else { return nil }
            if reply == .status("OK") { return token }
            if case .error = reply { return nil }
            // held by another request, here or on another node: it changes the viewer in milliseconds
            guard Date().timeIntervalSince1970 < deadline else { return nil }
            try? await Task.sleep(nanoseconds: 3_000_000)
        }
    }

    /// `interlude:live-rungs:CHANNEL`, kept a day past its last use.
    public func agreeRungs(channel: String, proposed: Data) -> Data? {
        let key = "interlude:live-rungs:\(channel)", day = RedisTTL.px(86_400)
        guard let replies = try? client.pipeline([["SET", key, String(decoding: proposed, as: UTF8.self), "NX", "PX", day],
                                                  ["GETEX", key, "PX", day]]),
              replies.count == 2, case .string(let data) = replies[1] else { return nil }
        return data
    }

    public func replaceRungs(channel: String, _ rungs: Data) {
        _ = try? client.command(data: [Data("SET".utf8), Data("interlude:live-rungs:\(channel)".utf8), rungs, Data("PX".utf8),
                                       Data(RedisTTL.px(86_400).utf8)])
    }

    public func unlock(_ id: String, token: String) {
        let script = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end"
        _ = try? client.command("EVAL", script, "1", Self.key(id) + ":lock", token)
    }
}
