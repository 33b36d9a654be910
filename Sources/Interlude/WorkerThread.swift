import Foundation

/// Runs `body` on a thread of its own and awaits its result, so that long synchronous frame-loop
/// work (a stitch decoding and encoding for seconds, a flush) never holds a thread of Swift's
/// concurrency pool, nor the caller's actor.
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
