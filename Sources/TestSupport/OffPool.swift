import Foundation

/// Runs blocking work (a stitch, a child process) on a thread of its own and awaits it, so that a
/// test does not hold one of the few threads of Swift's concurrency pool while it waits — other
/// tests' network timeouts and sleeps keep running on time.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.start()
    }
}
