import Foundation

/// Decides which beacons fire: each key (`break/ad/event`, or `break/ad/error`) of a session is
/// granted to one caller only — in this process, or across every node sharing a Redis.
public protocol BeaconLedger: Sendable {
    /// Of `keys` (of session `session`), those this call is the first to claim: the caller fires
    /// them. A key that cannot be recorded is not granted (a beacon never fires twice).
    func claim(_ keys: [String], session: String) -> [String]
}

/// The single-node ledger: the `fired` set of the session in `sessions` (dropped with it).
public struct SessionBeaconLedger: BeaconLedger {
    /// Where the sessions live.
    public let sessions: any SessionStore

    /// The ledger over `sessions`.
    public init(sessions: any SessionStore) { self.sessions = sessions }

    /// Of `keys`, those not in the session's `fired` set yet (added to it); none for an unknown session.
    public func claim(_ keys: [String], session: String) -> [String] {
        sessions.update(session) { s in keys.filter { s.fired.insert($0).inserted } } ?? []
    }
}
