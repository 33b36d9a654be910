import Foundation

/// Decides which beacons fire: each key (`break/ad/event`, or `break/ad/error`) of a session is
/// granted to one caller only — in this process, or across every node sharing a Redis.
public protocol BeaconLedger: Sendable {
    /// Of `keys` (of session `session`), those this call is the first to claim: the caller fires
    /// them. A key that cannot be recorded is not granted (a beacon never fires twice).
    func claim(_ keys: [String], session: String) -> [String]
    /// Whether the ledger is shared by every node (Redis): a live viewer, which keeps its own
    /// record of what it fired, also claims there, so that a beacon fires once across the fleet.
    var isShared: Bool { get }
}

/// The single-node ledger: the `fired` set of the session in `sessions` (dropped with it).
public struct SessionBeaconLedger: BeaconLedger {
    /// Where the sessions live.
    public let sessions: any SessionStore

    /// The ledger over `sessions`.
    public init(sessions: any SessionStore) { self.sessions = sessions }

    /// False: one process's sessions.
    public var isShared: Bool { false }

    /// Of `keys`, those not in the session's `fired` set yet (added to it); none for an unknown session.
    public func claim(_ keys: [String], session: String) -> [String] {
        sessions.update(session) { s in keys.filter { s.fired.insert($0).inserted } } ?? []
    }
}
