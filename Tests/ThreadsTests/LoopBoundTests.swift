import Foundation
import Synchronization
import Testing
@testable import Threads

/// `LoopBound`: state a thread owns, asserted on every access in debug builds.
struct LoopBoundTests {
    /// Runs `body` on a new thread and waits for it.
    static func onAnotherThread<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        let result = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        let t = Thread { result.withLock { $0 = body() }; done.signal() }
        t.name = "another thread"
        t.start()
        done.wait()
        return result.withLock { $0! }
    }

    @Test func unboundStateIsAnyThreads() {
        let owner = ThreadOwner(name: "a test loop")
        let box = LoopBound(1, owner: owner, name: "a counter")
        box.value += 1
        #expect(Self.onAnotherThread { box.value } == 2)
        #expect(owner.isCurrent)
    }

    @Test func boundStateIsItsOwnersOnly() {
        let owner = ThreadOwner(name: "a test loop")
        let box = LoopBound(1, owner: owner, name: "a counter")
        owner.bind()
        box.value += 1
        #expect(owner.isCurrent)
        #expect(Self.onAnotherThread { owner.isCurrent } == false)
        owner.release()
        #expect(Self.onAnotherThread { owner.isCurrent })
        #expect(Self.onAnotherThread { box.value } == 2)
    }

    #if DEBUG
    /// The expected failure: a debug build stops at the first access from another thread.
    @Test func aDebugBuildStopsAtAnAccessFromAnotherThread() async {
        await #expect(processExitsWith: .failure) {
            let owner = ThreadOwner(name: "a test loop")
            let box = LoopBound(1, owner: owner, name: "a counter")
            owner.bind()
            _ = LoopBoundTests.onAnotherThread { box.value }
        }
    }
    #endif
}
