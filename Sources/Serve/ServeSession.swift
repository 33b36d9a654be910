import Foundation
import HTTPServer
import Threads
import Timing

/// One viewer's session: its content, its ad decision and what has been built and fired for it.
public struct ServeSession: Sendable {
    /// Random, URL-safe.
    public var id: String
    /// The content's name.
    public var content: String
    /// Who fires the beacons.
    public var reporting: ReportingMode
    /// The player parameters the tag was filled from.
    public var playerParams: [String: String]
    /// The breaks decided at creation.
    public var breaks: [PlannedBreak]
    /// The date the playlists' `EXT-X-PROGRAM-DATE-TIME` starts at (the session's creation).
    public var programDate: Date
    /// Monotonic seconds of the last request naming the session.
    public var lastSeen: Double
    /// What plays, decided at the session's first playlist for every variant; nil before.
    public var plan: SessionPlan?
    /// Built timelines by rendition name (from `plan`; they never change): later playlist
    /// requests are a lookup.
    public var timelines: [String: SessionTimeline] = [:]
    /// The playlists written from `timelines` (media playlists by rendition name, the master,
    /// the CMAF ones and the MPD under their own keys), each kept as its answer, made once.
    public var playlists: [String: PreparedResponse] = [:]
    /// Beacons already fired (`break/ad/event`), so each fires once.
    public var fired: Set<String> = []

    /// A new session.
    public init(id: String, content: String, reporting: ReportingMode, playerParams: [String: String], breaks: [PlannedBreak],
                programDate: Date = Date(), lastSeen: Double = monotonicSeconds()) {
        self.id = id; self.content = content; self.reporting = reporting; self.playerParams = playerParams
        self.breaks = breaks; self.programDate = programDate; self.lastSeen = lastSeen
    }

    /// A new random id: 16 bytes of hex.
    public static func newID() -> String {
        var g = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max, using: &g)) }.joined()
    }

    /// Whether `id` has `newID`'s form (32 lowercase hex digits): anything else is no session,
    /// not worth a look in Redis.
    public static func isWellFormedID(_ id: String) -> Bool {
        id.utf8.count == 32 && id.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}

/// Where sessions live: this process's memory (`MemorySessionStore`) or Redis
/// (`RedisSessionStore`). Every call is thread-safe.
public protocol SessionStore: Sendable {
    /// Stores a new session; throws when it cannot be stored (the session is refused).
    func insert(_ session: ServeSession) throws
    /// Whether new sessions can be stored now (checked before the ad server is asked).
    var acceptsNewSessions: Bool { get }
    /// The session, its idle clock restarted; nil when unknown or expired.
    func touch(_ id: String) -> ServeSession?
    /// What `read` takes from the session, its idle clock restarted; nil when unknown or
    /// expired. The memory store reads the session in place, without copying it out.
    func touch<T>(_ id: String, _ read: (ServeSession) -> T) -> T?
    /// Changes a session in place; returns the change's result, nil when the session is unknown.
    func update<T>(_ id: String, _ change: (inout ServeSession) -> T) -> T?
    /// The session's plan: the one it has, else `plan` stored as its plan (the first to settle
    /// wins, across nodes); nil when the session is unknown or the plan cannot be stored.
    func settle(_ plan: SessionPlan, for id: String) -> SessionPlan?
    /// Drops sessions idle for longer than `idle` seconds; returns them.
    func expire(idle: Double, now: Double) -> [ServeSession]
    /// Sessions held.
    var count: Int { get }
}

extension SessionStore {
    /// What `read` takes from `touch(id)`'s copy of the session.
    public func touch<T>(_ id: String, _ read: (ServeSession) -> T) -> T? { touch(id).map(read) }

    /// Always, unless the store says otherwise.
    public var acceptsNewSessions: Bool { true }
}

/// Sessions in this process's memory, behind one lock.
public final class MemorySessionStore: SessionStore, Sendable {
    private let sessions = Locked<[String: ServeSession]>([:])

    /// An empty store.
    public init() {}

    /// Stores a new session.
    public func insert(_ session: ServeSession) { sessions.withLock { $0[session.id] = session } }

    /// The session, its idle clock restarted; nil when unknown or expired.
    public func touch(_ id: String) -> ServeSession? {
        sessions.withLock { sessions in
            sessions[id]?.lastSeen = monotonicSeconds()
            return sessions[id]
        }
    }

    /// What `read` takes from the session, read in place under the lock (a kept playlist's
    /// answer, without copying the session's every field out and back); nil when unknown.
    public func touch<T>(_ id: String, _ read: (ServeSession) -> T) -> T? {
        sessions.withLock { sessions in
            guard let i = sessions.index(forKey: id) else { return nil }
            sessions.values[i].lastSeen = monotonicSeconds()
            return read(sessions.values[i])
        }
    }

    /// Changes a session in place under the lock; nil when the session is unknown.
    public func update<T>(_ id: String, _ change: (inout ServeSession) -> T) -> T? {
        sessions.withLock { sessions in
            guard sessions[id] != nil else { return nil }
            return change(&sessions[id]!)
        }
    }

    /// The session's plan, or `plan` stored as it under the lock.
    public func settle(_ plan: SessionPlan, for id: String) -> SessionPlan? {
        sessions.withLock { sessions in
            guard sessions[id] != nil else { return nil }
            if sessions[id]!.plan == nil { sessions[id]!.plan = plan }
            return sessions[id]!.plan
        }
    }

    /// Drops sessions idle for longer than `idle` seconds; returns them.
    public func expire(idle: Double, now: Double) -> [ServeSession] {
        sessions.withLock { sessions in
            let old = sessions.values.filter { now - $0.lastSeen > idle }
            for s in old { sessions[s.id] = nil }
            return old
        }
    }

    /// Sessions held.
    public var count: Int { sessions.withLock { $0.count } }
}
