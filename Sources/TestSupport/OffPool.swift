import Foundation
import Threads

/// Runs blocking work (a stitch, a child process) on a thread of its own and awaits it, so that a
/// test does not hold one of the few threads of Swift's concurrency pool while it waits — other
/// tests' network timeouts and sleeps keep running on time.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await onOwnThread("test work", body)
}

/// `offPool` for work that keeps a core busy (an ffmpeg run, a decode to check): at most one per
/// core at once across the test process, the rest wait on their own threads. Before the media
/// makers and checkers left the pool, its two threads were also what bounded how many ran at
/// once; unbounded, a cold cache started dozens of encoders together and a stitch's 30 s ad
/// preload deadline passed.
public func offPoolThrottled<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await offPool {
        heavySlots.wait()
        defer { heavySlots.signal() }
        return try body()
    }
}

let heavySlots = DispatchSemaphore(value: max(1, ProcessInfo.processInfo.activeProcessorCount))
