import Foundation
import Threads

/// Holds the process's main thread for as long as a body runs: a block on the main queue that
/// waits, so that nothing queued on the main queue (or the main actor) runs meanwhile. For the
/// tests that check that a stitch never needs the main thread. Never call `during` on the main
/// thread itself.
public final class MainThreadHold: Sendable {
    private enum State { case before, held, released }
    private let state = Locked(State.before)
    private let seenThroughout = Locked(false)

    /// A hold, not taken yet.
    public init() {}

    /// Takes the main thread, runs `body`, then lets the main thread go. The hold gives up by
    /// itself after `limit` seconds (a body that hangs does not hang the process).
    public func during<T: Sendable>(limit: Double = 55, _ body: () async throws -> T) async throws -> T {
        let taken = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        DispatchQueue.main.async { [self] in
            state.withLock { $0 = .held }
            taken.signal()
            _ = release.wait(timeout: .now() + limit)
            state.withLock { $0 = .released }
        }
        let took = try await offPool { taken.wait(timeout: .now() + 30) == .success }
        defer { release.signal() }
        let result = try await body()
        seenThroughout.withLock { $0 = took && state.withLock { $0 == .held } }
        return result
    }

    /// Whether the main thread was held from before the body started until after it returned.
    public var wasHeldThroughout: Bool { seenThroughout.withLock { $0 } }
}
