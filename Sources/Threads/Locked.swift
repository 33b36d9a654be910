import Foundation

/// A value behind a lock: the package's one lock type. Every read and change of the value is a
/// `withLock` call, so no access can forget the lock.
///
/// The lock is a plain pthread mutex (`NSLock`), not Synchronization's `Mutex`: on Linux `Mutex`
/// spins and then waits on a priority-inheritance futex, and under contention (the service's 8
/// request threads on 2 cores writing one log buffer) it cost 3× the throughput of a pthread
/// mutex (30,857 against 94,779 requests/s, 17 % of the CPU in `_MutexHandle._lockSlow`;
/// docs/BENCHMARKS.md). Uncontended, both are a compare-and-swap.
package final class Locked<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched inside `withLock`, under `lock`.
    private let lock = NSLock()
    private var value: Value

    /// A lock around `value`.
    package init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, the lock held; throws what `body` throws.
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
