import Foundation
import Threads
import Timing

/// The live viewers this node serves, by session id, with their idle clocks: those it started
/// and, in a fleet (`LiveViewerStore`), those it took over from the fleet's store. Thread-safe.
public final class LiveViewers: Sendable {
    private let viewers = Locked<[String: (viewer: LiveViewer, lastSeen: Double)]>([:])

    /// None yet.
    public init() {}

    /// Adds a viewer.
    public func insert(_ v: LiveViewer) { viewers.withLock { $0[v.id] = (v, monotonicSeconds()) } }

    /// Adds `v` unless a viewer of its id is held already; the one held.
    public func insertIfAbsent(_ v: LiveViewer) -> LiveViewer {
        viewers.withLock { viewers in
            if let held = viewers[v.id] { return held.viewer }
            viewers[v.id] = (v, monotonicSeconds())
            return v
        }
    }

    /// Drops viewer `id` (its session is over).
    public func remove(_ id: String) { viewers.withLock { $0[id] = nil } }

    /// The viewer, its idle clock restarted; nil when unknown or expired.
    public func touch(_ id: String) -> LiveViewer? {
        viewers.withLock { viewers -> LiveViewer? in
            guard let v = viewers[id] else { return nil }
            viewers[id] = (v.viewer, monotonicSeconds())
            return v.viewer
        }
    }

    /// Drops viewers idle for longer than `idle` seconds; returns how many.
    public func expire(idle: Double, now: Double) -> Int {
        viewers.withLock { viewers in
            let old = viewers.filter { now - $0.value.lastSeen > idle }.map(\.key)
            for id in old { viewers[id] = nil }
            return old.count
        }
    }

    /// Viewers held.
    public var count: Int { viewers.withLock { $0.count } }
}
