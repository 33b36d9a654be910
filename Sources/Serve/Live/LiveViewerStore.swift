import Foundation

/// Where a fleet keeps its live viewers (`--redis`), so that any node answers any live session:
/// each viewer's record (`LiveViewerRecord`, JSON) and a short lock that makes one node at a
/// time change it. Every call may fail (the store cannot be reached): the viewer then goes on
/// from what this node holds.
public protocol LiveViewerStore: Sendable {
    /// The record of viewer `id`, its life restarted; nil when there is none (never made, or
    /// expired). Throws when the store cannot be reached.
    func load(_ id: String) throws -> Data?
    /// Stores viewer `id`'s record for the session's life. Throws when it is not taken.
    func save(_ id: String, _ record: Data) throws
    /// Takes viewer `id`'s lock, waiting while another node holds it (a holder that died frees
    /// it when it expires); a token for `unlock`, nil when the store cannot be reached.
    func lock(_ id: String) async -> String?
    /// Gives the lock back, if `token` still holds it.
    func unlock(_ id: String, token: String)
    /// The rungs (`[LiveRung]`, JSON) every node serves `channel` in: those stored by the first
    /// node that asked, else `proposed`, stored; nil when the store cannot be reached.
    func agreeRungs(channel: String, proposed: Data) -> Data?
    /// Stores `rungs` as `channel`'s (the channel's ladder changed).
    func replaceRungs(channel: String, _ rungs: Data)
}
