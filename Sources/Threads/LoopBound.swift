import Foundation
import Synchronization

/// The thread that owns some state — a frame loop's — once it has taken it over, or the serial
/// queue that does — a manager's. A thread owner is bound by that thread as it starts (`bind()`)
/// and lets go when it has finished (`release()`), so that others read what it left; a queue
/// owner is bound once its state is set up, and from then on whatever runs on the queue owns it.
/// Unbound, no thread owns the state: setup before the owner starts and reading after it ended
/// are ordered by the program itself (thread start, a join or a condition).
package final class ThreadOwner: @unchecked Sendable {
    // @unchecked Sendable: `thread` is atomic, `leader` a `Locked`; `queue` and `queueKey` are
    // immutable and only compared and looked up.
    /// Who owns it, for failure messages ("the frame loop").
    package let name: String
    /// The owner's `pthread_t`, `onQueue` for a bound queue owner; 0: unbound.
    private let thread = Atomic<UInt>(0)
    private static let onQueue: UInt = 1   // never a pthread_t (an address)
    private let queue: DispatchQueue?
    private let queueKey: DispatchSpecificKey<Void>?
    /// The owner this one follows (`follow`): a layer's state belongs to the frame loop that
    /// draws it, whose owner the layer learns only when it is put on that loop's surface.
    private let leader = Locked<ThreadOwner?>(nil)

    /// A thread owner, not bound yet.
    package init(name: String) {
        self.name = name
        queue = nil
        queueKey = nil
    }

    /// A serial queue as the owner: once bound, code runs there when `key` (set on `queue` by its
    /// maker) is found, or on the main thread when `queue` is the main queue.
    package init(name: String, queue: DispatchQueue, key: DispatchSpecificKey<Void>) {
        self.name = name
        self.queue = queue
        queueKey = key
    }

    /// Binds the owner: the calling thread (a thread owner), or the queue from now on.
    package func bind() {
        assertOwner()
        thread.store(queue == nil ? pthread_self() : Self.onQueue, ordering: .releasing)
    }

    /// The owner lets go (called on the owner).
    package func release() {
        assertOwner()
        thread.store(0, ordering: .releasing)
    }

    /// Makes `leader` the owner from now on: this owner is current wherever `leader` is (a
    /// layer put on a frame loop's surface follows that loop's owner). Called before the
    /// leader's thread touches the state (the layer is added before it is drawn).
    package func follow(_ leader: ThreadOwner) {
        precondition(leader !== self, "\(name) cannot follow itself")
        if self.leader.withLock({ $0 }) === leader { return }
        assertOwner()
        self.leader.withLock { $0 = leader }
    }

    /// Runs `body` with the owner lent out: its thread waits in `body` (for another queue
    /// that runs code of its own meanwhile, e.g. `runAndWait`), so while `body` runs the state
    /// may be touched from anywhere; the owner is bound again when it returns. Called elsewhere
    /// than on the owner, there is nothing to lend: `body` runs as it is. A follower lends its
    /// leader.
    package func lend<T>(_ body: () throws -> T) rethrows -> T {
        if let leader = leader.withLock({ $0 }) { return try leader.lend(body) }
        let held = thread.load(ordering: .acquiring)
        guard held != 0, isCurrent else { return try body() }
        thread.store(0, ordering: .releasing)
        defer { thread.store(held, ordering: .releasing) }
        return try body()
    }

    /// Whether the calling code may touch what it owns now: it runs on the owner, or there is none.
    package var isCurrent: Bool {
        if let leader = leader.withLock({ $0 }) { return leader.isCurrent }
        let t = thread.load(ordering: .acquiring)
        if t == 0 { return true }
        if let queue, let queueKey {
            return DispatchQueue.getSpecific(key: queueKey) != nil || (queue === DispatchQueue.main && Thread.isMainThread)
        }
        return t == pthread_self()
    }

    /// Stops a debug build when the calling code may not touch what it owns.
    @inline(__always) package func assertOwner(_ what: @autoclosure () -> String = "") {
        assert(isCurrent, "\(what().isEmpty ? "state" : what()) of \(name) touched off its owner (on \(Thread.current.name ?? "an unnamed thread"))")
    }
}

/// State that one thread owns, in a box that says so and checks it: every read and change asserts
/// (debug builds) that it happens on the `owner`'s thread, or while no thread owns it. Release
/// builds compile the check out, leaving a plain stored value; a debug build stops at the first
/// access from another thread, naming the state, instead of a data race that a comment ("loop
/// thread only") could not prevent.
package final class LoopBound<Value>: @unchecked Sendable {
    // @unchecked Sendable: only the owner's thread touches `stored` while it owns it, and every
    // access asserts so in debug builds.
    private var stored: Value
    /// The thread that owns the value.
    package let owner: ThreadOwner
    /// What the box holds, for failure messages.
    package let name: String

    /// A box holding `value` for `owner`.
    package init(_ value: Value, owner: ThreadOwner, name: String) {
        stored = value
        self.owner = owner
        self.name = name
    }

    /// The value; asserts the owner on every read and change (debug builds).
    package var value: Value {
        get { owner.assertOwner(name); return stored }
        _modify { owner.assertOwner(name); yield &stored }
    }

    /// Runs `body` on the value in place (asserting the owner once, debug builds) and returns
    /// what it returns.
    package func withValue<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        owner.assertOwner(name)
        return try body(&stored)
    }
}
