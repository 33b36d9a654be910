import Foundation
import Testing
@testable import Threads

/// `Locked`: every change under the lock (no increment lost across threads), errors through.
@Suite struct LockedTests {
    @Test func changesFromManyThreadsAreNeverLost() {
        let counter = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 { counter.withLock { $0 += 1 } }
        }
        #expect(counter.withLock { $0 } == 80_000)
    }

    struct Refused: Error, Equatable {}

    @Test func whatTheBodyThrowsComesThroughAndTheLockIsFree() {
        let box = Locked([1, 2])
        #expect(throws: Refused.self) { try box.withLock { (v: inout [Int]) throws(Refused) in v.append(3); throw Refused() } }
        // the change made before the throw stays, and the lock was given back
        #expect(box.withLock { $0 } == [1, 2, 3])
    }
}
