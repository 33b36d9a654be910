import Foundation

/// A value behind a lock that threads can also wait on: `Locked` with a condition variable, for a
/// hand-off where one thread waits until another has changed the value (a queue with room, a frame
/// posted, a loop with work). Every read and change is inside `withLock` or `holding`; waits happen
/// only inside `holding`, give the lock up while they last and take it back before they return,
/// so the caller re-checks the value there.
///
/// The lock and condition are one `NSCondition` (a pthread mutex and condition variable), for the
/// reasons `Locked` gives against Synchronization's `Mutex`.
package final class LockedCondition<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched with `condition` locked (inside `withLock`, or
    // through a `Held` that exists only while `holding` has it locked).
    private let condition = NSCondition()
    private var value: Value

    /// A lock and a condition around `value`.
    package init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, the lock held; wakes no one. Throws what `body` throws.
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        condition.lock()
        defer { condition.unlock() }
        return try body(&value)
    }

    /// Runs `body` with the lock held and a `Held` through which it reads and changes the value,
    /// waits and wakes waiters. Throws what `body` throws.
    package func holding<Result, Failure: Error>(_ body: (borrowing Held) throws(Failure) -> Result) throws(Failure) -> Result {
        condition.lock()
        defer { condition.unlock() }
        return try body(Held(self))
    }

    /// The lock, held: exists only inside `holding`, which cannot let it escape (it cannot be
    /// copied). Each access to `value` is a short one, so a wait between two of them sees what
    /// other threads changed meanwhile.
    package struct Held: ~Copyable {
        private let owner: LockedCondition

        fileprivate init(_ owner: LockedCondition) { self.owner = owner }

        /// The value: read and changed under the lock.
        package var value: Value {
            _read { yield owner.value }
            nonmutating _modify { yield &owner.value }
        }

        /// Waits until `ready` holds for the value (at once if it already does), giving the lock up
        /// while it waits; checked again, with the lock held, after every wake-up.
        package func wait(until ready: (Value) -> Bool) {
            while !ready(owner.value) { owner.condition.wait() }
        }

        /// Waits until `ready` holds for the value or `deadline` has passed, giving the lock up
        /// while it waits; whether `ready` holds when it returns (checked with the lock held).
        package func wait(until ready: (Value) -> Bool, before deadline: Date) -> Bool {
            while !ready(owner.value) {
                if !owner.condition.wait(until: deadline) { return ready(owner.value) }
            }
            return true
        }

        /// Waits once for a wake-up (`signal`, `broadcast`, or none: a wait may end for no
        /// reason), giving the lock up meanwhile. For loops that decide what to do after each
        /// wake-up; the caller checks the value again.
        package func wait() { owner.condition.wait() }

        /// Waits once for a wake-up or until `deadline`, giving the lock up meanwhile; false when
        /// the deadline passed. The caller checks the value again.
        @discardableResult
        package func wait(before deadline: Date) -> Bool { owner.condition.wait(until: deadline) }

        /// Wakes one thread waiting (it runs once this `holding` has ended).
        package func signal() { owner.condition.signal() }

        /// Wakes every thread waiting (they run once this `holding` has ended).
        package func broadcast() { owner.condition.broadcast() }
    }
}
