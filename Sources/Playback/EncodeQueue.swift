import Foundation
import Media
import Timing

/// A bounded hand-off from the frame loop to the encoding thread: frames go in order, the producer
/// waits when the encoder is `capacity` items behind, and the first encoder error is kept and
/// raised to the producer on its next call.
final class EncodeQueue: @unchecked Sendable {
    // @unchecked Sendable: every field is read and written under `condition`; the Frames inside
    // items change hands here and are touched by one thread at a time (producer, then encoder).
    enum Item {
        case video(Frame)
        case audio(Frame)
        case finish
        case cancel
    }

    private let condition = NSCondition()
    private var items: [Item] = []
    private let capacity: Int
    private(set) var error: Error?
    private var done = false
    /// Seconds the producer spent waiting for room.
    private(set) var producerWaitSeconds: Double = 0

    init(capacity: Int) { self.capacity = capacity }

    /// Adds an item, waiting while the queue is full; throws the encoder's error if it failed.
    func put(_ item: Item) throws {
        condition.lock()
        defer { condition.unlock() }
        if items.count >= capacity {
            let t0 = monotonicSeconds()
            while items.count >= capacity && error == nil && !done { condition.wait() }
            producerWaitSeconds += monotonicSeconds() - t0
        }
        if let error { throw error }
        items.append(item)
        condition.broadcast()
    }

    /// Tells the encoding thread to stop, whatever state it is in: never waits for room and never
    /// throws (after an encoder error `put` refuses items, and a stop must still get through).
    func cancel() {
        condition.lock()
        items.append(.cancel)
        condition.broadcast()
        condition.unlock()
    }

    /// Takes the next item, waiting for one.
    func take() -> Item {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty { condition.wait() }
        let item = items.removeFirst()   // at most `capacity` items: cheap, and the frame is let go at once
        condition.broadcast()
        return item
    }

    /// The encoder failed: remember why and wake the producer.
    func fail(_ e: Error) {
        condition.lock()
        if error == nil { error = e }
        condition.broadcast()
        condition.unlock()
    }

    /// The encoding thread has stopped.
    func markDone() {
        condition.lock()
        done = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until the encoding thread has stopped; returns its error, if any.
    func waitDone() -> Error? {
        condition.lock()
        defer { condition.unlock() }
        while !done { condition.wait() }
        return error
    }
}
