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

    /// A layer's owner follows the loop it is put on: current on that loop's thread while it is
    /// bound, anywhere once it lets go.
    @Test func aFollowerIsItsLeadersThreadOnly() {
        let loop = ThreadOwner(name: "a test loop")
        let layer = ThreadOwner(name: "a layer drawn by it")
        layer.follow(loop)
        loop.bind()
        #expect(layer.isCurrent)
        #expect(Self.onAnotherThread { layer.isCurrent } == false)
        loop.release()
        #expect(Self.onAnotherThread { layer.isCurrent })
    }

    /// While the owner waits for another thread (`lend`), that thread may touch the state; the
    /// owner has it back when the wait returns.
    @Test func whileTheOwnerWaitsItLendsItsState() {
        let owner = ThreadOwner(name: "a test loop")
        let box = LoopBound(1, owner: owner, name: "a counter")
        owner.bind()
        let follower = ThreadOwner(name: "a layer")
        follower.follow(owner)
        let seen = follower.lend { Self.onAnotherThread { box.value += 1; return (owner.isCurrent, follower.isCurrent) } }
        #expect(seen == (true, true))
        #expect(box.value == 2)
        #expect(Self.onAnotherThread { owner.isCurrent } == false)
        // elsewhere than on the owner there is nothing to lend
        #expect(Self.onAnotherThread { owner.lend { owner.isCurrent } } == false)
        owner.release()
    }

    #if DEBUG
    /// A follower's state touched from another thread while its leader runs stops a debug build.
    @Test func aDebugBuildStopsAtALayersStateTouchedOffItsLoop() async {
        await #expect(processExitsWith: .failure) {
            let loop = ThreadOwner(name: "a test loop")
            let layer = ThreadOwner(name: "a layer")
            let box = LoopBound(1, owner: layer, name: "its scaler")
            layer.follow(loop)
            loop.bind()
            _ = LoopBoundTests.onAnotherThread { box.value }
        }
    }

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
