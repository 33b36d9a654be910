import Foundation
import Testing
@testable import Threads

/// `LockedCondition`: waits that give the lock up and see other threads' changes, timed waits
/// that end at their deadline, wake-ups for every waiter, errors through with the lock free.
@Suite struct LockedConditionTests {
    /// A bounded queue: the producer waits for room, the consumer for items; nothing is lost or
    /// reordered, and the queue never holds more than its capacity.
    @Test func aBoundedHandOffKeepsEveryItemInOrder() {
        struct Queue { var items: [Int] = []; var most = 0 }
        let queue = LockedCondition(Queue())
        let count = 20_000, capacity = 4
        let consumer = Thread {
            var got: [Int] = []
            while got.count < count {
                got.append(queue.holding { held in
                    held.wait { !$0.items.isEmpty }
                    held.broadcast()
                    return held.value.items.removeFirst()
                })
            }
            queue.holding { held in held.value.items = got; held.broadcast() }
        }
        consumer.start()
        for i in 0..<count {
            queue.holding { held in
                held.wait { $0.items.count < capacity }
                held.value.items.append(i)
                held.value.most = max(held.value.most, held.value.items.count)
                held.broadcast()
            }
        }
        let deadline = Date(timeIntervalSinceNow: 30)
        let done = queue.holding { held in held.wait(until: { $0.items.count == count }, before: deadline) }
        #expect(done)
        queue.withLock { q in
            #expect(q.items == Array(0..<count))
            #expect(q.most <= capacity)
        }
    }

    @Test func aTimedWaitWithNothingChangingEndsAtItsDeadline() {
        let flag = LockedCondition(false)
        let start = Date()
        let ready = flag.holding { held in held.wait(until: { $0 }, before: start.addingTimeInterval(0.05)) }
        #expect(!ready)
        #expect(Date().timeIntervalSince(start) >= 0.05)
        // a single timed wait says the deadline passed
        #expect(!flag.holding { held in held.wait(before: Date(timeIntervalSinceNow: 0.01)) })
    }

    @Test func aTimedWaitSeesAChangeMadeBeforeItsDeadline() {
        let flag = LockedCondition(false)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.02) {
            flag.holding { held in held.value = true; held.signal() }
        }
        let ready = flag.holding { held in held.wait(until: { $0 }, before: Date(timeIntervalSinceNow: 30)) }
        #expect(ready)
    }

    /// Every waiter wakes on one broadcast; each was waiting with the lock given up (else the
    /// others could not have counted themselves in).
    @Test func aBroadcastWakesEveryWaiter() {
        struct Gate { var waiting = 0; var open = false; var through = 0 }
        let gate = LockedCondition(Gate())
        let group = DispatchGroup()
        for _ in 0..<4 {
            DispatchQueue.global().async(group: group) {
                gate.holding { held in
                    held.value.waiting += 1
                    held.broadcast()
                    while !held.value.open { held.wait() }
                    held.value.through += 1
                }
            }
        }
        let all = gate.holding { held in held.wait(until: { $0.waiting == 4 }, before: Date(timeIntervalSinceNow: 30)) }
        #expect(all)
        gate.holding { held in held.value.open = true; held.broadcast() }
        #expect(group.wait(timeout: .now() + 30) == .success)
        #expect(gate.withLock { $0.through } == 4)
    }

    struct Refused: Error, Equatable {}

    @Test func whatTheBodyThrowsComesThroughAndTheLockIsFree() {
        let box = LockedCondition([1])
        #expect(throws: Refused.self) {
            try box.holding { (held: borrowing LockedCondition<[Int]>.Held) throws(Refused) in held.value.append(2); throw Refused() }
        }
        #expect(throws: Refused.self) { try box.withLock { (v: inout [Int]) throws(Refused) in v.append(3); throw Refused() } }
        #expect(box.withLock { $0 } == [1, 2, 3])
    }
}
