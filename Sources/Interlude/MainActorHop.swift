import Foundation

/// Runs `body` on the main actor from any thread and returns its result: at once when already on
/// the main thread, else by waiting for the main queue (which must not be blocked: a stitch's
/// frame loop runs on the player's thread while its main-actor caller awaits it).
func runOnMain<T: Sendable>(_ body: @MainActor () -> T) -> T {
    if Thread.isMainThread { return MainActor.assumeIsolated(body) }
    return DispatchQueue.main.sync { MainActor.assumeIsolated(body) }
}

/// Runs `body` on a thread of its own and awaits its result, so that long frame-loop work (a
/// stitch decoding and encoding for seconds) never holds the main actor, where the IMA-shaped
/// API delivers its events.
func onWorkerThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.stackSize = 8 << 20   // as decoding and encoding want
        thread.start()
    }
}

/// A value handed to a worker thread while its owner waits (the owner never touches it meanwhile).
final class HandedOver<T>: @unchecked Sendable {
    // @unchecked Sendable: used by one thread at a time; the hand-over (thread start, the awaited
    // continuation) orders the accesses.
    let value: T
    init(_ value: T) { self.value = value }
}
