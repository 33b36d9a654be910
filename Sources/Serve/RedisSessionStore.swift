import Foundation
import Redis
import Threads
import Timing

/// Sessions shared by every node through Redis: each session's durable core (`SessionRecord`,
/// JSON) under `interlude:session:ID`, with a TTL of the idle timeout restarted by every request
/// that names the session (`GETEX … PX`). Redis' TTL decides a session's life; any node answers
/// any session.
///
/// What is built for a session (timelines, playlists) is this node's cache: deterministic from
/// the core and the shared store, rebuilt by any node that lacks it. While Redis cannot be
/// reached, sessions this node has cached keep being answered from the cache, and new sessions
/// are refused (`insert` throws, `acceptsNewSessions` is false).
///
/// `count` is the sessions this node has cached (no Redis call: `/health` answers in an outage),
/// not the fleet's.
public final class RedisSessionStore: SessionStore, Sendable {
    /// The Redis client.
    public let client: RedisClient
    /// The keys' TTL in seconds (the idle timeout).
    public let ttl: Double
    /// The sessions this node has cached.
    private let cache = Locked<[String: ServeSession]>([:])

    /// A store on `client` whose sessions live `ttl` seconds past their last request.
    public init(client: RedisClient, ttl: Double) {
        self.client = client; self.ttl = ttl
    }

    /// `interlude:session:ID`.
    public static func key(_ id: String) -> String { "interlude:session:\(id)" }
    /// `interlude:plan:ID`: the session's `SessionPlan` as JSON, set once (`NX`), with the
    /// session's TTL restarted by the same requests.
    public static func planKey(_ id: String) -> String { "interlude:plan:\(id)" }

    private var ttlMilliseconds: String { RedisTTL.px(ttl) }

    /// Stores a new session in Redis (and this node's cache); throws when Redis does not take it.
    public func insert(_ session: ServeSession) throws {
        let json = String(decoding: SessionRecord(session).encoded(), as: UTF8.self)
        let reply = try client.command("SET", Self.key(session.id), json, "PX", ttlMilliseconds)
        if case .error(let e) = reply { throw RedisError.server(e) }
        cache.withLock { $0[session.id] = session }
    }

    /// Whether Redis answers now: a `PING` unless the last command reached it (cheap while
    /// backing off: the client refuses at once), so a returning Redis is noticed.
    public var acceptsNewSessions: Bool {
        if client.isAvailable { return true }
        if case .status("PONG")? = try? client.command("PING") { return true }
        return false
    }

    /// The session, its TTL restarted in Redis: from this node's cache (what it built kept)
    /// or read from Redis. Nil when Redis has no such session; the cached one while Redis
    /// cannot be reached.
    public func touch(_ id: String) -> ServeSession? {
        // Ids are `ServeSession.newID()`'s 32 hex digits: anything else is no session, unasked.
        guard ServeSession.isWellFormedID(id) else { return nil }
        let now = monotonicSeconds()
        let replies: [RedisReply]
        do {
            replies = try client.pipeline([["GETEX", Self.key(id), "PX", ttlMilliseconds], ["GETEX", Self.planKey(id), "PX", ttlMilliseconds]])
        } catch {
            // Redis unreachable: serve what this node has.
            return cache.withLock { cache -> ServeSession? in cache[id]?.lastSeen = now; return cache[id] }
        }
        guard replies.count == 2, case .string(let data) = replies[0], let record = SessionRecord.decode(data), record.id == id,
              var fresh = record.session(lastSeen: now) else { return nil }
        if case .string(let p) = replies[1] { fresh.plan = try? JSONDecoder().decode(SessionPlan.self, from: p) }
        return cache.withLock { cache in
            if cache[id] == nil { cache[id] = fresh } else {
                cache[id]!.lastSeen = now
                if cache[id]!.plan == nil { cache[id]!.plan = fresh.plan }
            }
            return cache[id]
        }
    }

    /// Changes this node's cached session (what it built); nil when this node has not cached it.
    public func update<T>(_ id: String, _ change: (inout ServeSession) -> T) -> T? {
        cache.withLock { cache in
            guard cache[id] != nil else { return nil }
            return change(&cache[id]!)
        }
    }

    /// The session's plan: `SET interlude:plan:ID … NX`, so that the first node to decide wins
    /// and every other reads the winner's; nil when Redis cannot be reached or the session is
    /// not cached here.
    public func settle(_ plan: SessionPlan, for id: String) -> SessionPlan? {
        guard cache.withLock({ $0[id] != nil }), let json = try? JSONEncoder().encode(plan) else { return nil }
        guard let set = try? client.command("SET", Self.planKey(id), String(decoding: json, as: UTF8.self), "NX", "PX", ttlMilliseconds) else {
            return nil
        }
        var settled = plan
        if case .status("OK") = set {} else {
            guard case .string(let data)? = try? client.command("GET", Self.planKey(id)),
                  let theirs = try? JSONDecoder().decode(SessionPlan.self, from: data) else { return nil }
            settled = theirs
        }
        return cache.withLock { cache -> SessionPlan? in
            guard cache[id] != nil else { return nil }
            if cache[id]!.plan == nil { cache[id]!.plan = settled }
            return cache[id]!.plan
        }
    }

    /// The cached sessions whose Redis key is gone, among those this node has not seen for
    /// `idle` seconds: dropped from the cache and returned (so their pins are released). While
    /// Redis cannot be reached, nothing is dropped.
    public func expire(idle: Double, now: Double) -> [ServeSession] {
        let candidates = cache.withLock { cache in cache.values.filter { now - $0.lastSeen > idle }.map(\.id) }
        guard !candidates.isEmpty, let replies = try? client.pipeline(candidates.map { ["EXISTS", Self.key($0)] }),
              replies.count == candidates.count else { return [] }
        let gone = zip(candidates, replies).filter { $0.1 == .integer(0) }.map(\.0)
        return cache.withLock { cache in gone.compactMap { id in
            defer { cache[id] = nil }
            // Seen again since the check: kept.
            guard let s = cache[id], now - s.lastSeen > idle else { return nil }
            return s
        } }
    }

    /// Sessions this node has cached.
    public var count: Int { cache.withLock { $0.count } }
}

extension RedisSessionStore {
    /// What `interlude serve --redis URL` runs on: one client for the sessions and the fired
    /// beacons (records kept a day, or the idle timeout when longer), and the fleet's segment
    /// URL signing key (`signature(client:)`). Throws for a bad URL.
    public static func shared(url: String, idleTimeout: Double) throws -> (RedisSessionStore, RedisBeaconLedger, SegmentSignature) {
        let client = try RedisClient(url, connections: 8)
        return (RedisSessionStore(client: client, ttl: idleTimeout), RedisBeaconLedger(client: client, ttl: max(86_400, idleTimeout)),
                signature(client: client))
    }

    /// `interlude:urlkey`: the key every node signs ad segment URLs with, made by the first node
    /// (`SET NX`, no expiry) and read by the others; a random key of this node's own when Redis
    /// cannot be reached (its signed URLs then fire beacons on this node only).
    public static func signature(client: RedisClient) -> SegmentSignature {
        let mine = SegmentSignature.random()
        _ = try? client.command("SET", "interlude:urlkey", mine.hexKey, "NX")
        if case .string(let data)? = try? client.command("GET", "interlude:urlkey"),
           let shared = SegmentSignature(hexKey: String(decoding: data, as: UTF8.self)) { return shared }
        return mine
    }
}
