import Foundation
import Media
import Threads
import Timing

/// A bounded hand-off from the frame loop to the encoding thread: items go in order, the producer
/// waits when the encoder is `capacity` video frames behind, and the first encoder error is kept
/// and raised to the producer on its next call.
final class EncodeQueue: Sendable {
    enum Item {
        case video(Frame)
        /// The packets of the next audio frame, from the `AudioEncodeThread`, are muxed here.
        case audio
        case finish
        case cancel

        var isVideo: Bool { if case .video = self { true } else { false } }
    }

    private struct State {
        var items: [Item] = []
        /// Video frames among `items` (what the capacity bounds: audio items are tokens).
        var videoFrames = 0
        var error: Error?
        var done = false
        var producerWaitSeconds: Double = 0
    }

    private let state = LockedCondition(State())
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// The encoder's first error, if it failed.
    var error: Error? { state.withLock { $0.error } }
    /// Seconds the producer spent waiting for room.
    var producerWaitSeconds: Double { state.withLock { $0.producerWaitSeconds } }

    /// Adds an item, waiting while `capacity` video frames are queued; throws the encoder's error if it failed.
    func put(_ item: Item) throws {
        try state.holding { held throws in
            if held.value.videoFrames >= capacity {
                let t0 = monotonicSeconds()
                held.wait { $0.videoFrames < capacity || $0.error != nil || $0.done }
                held.value.producerWaitSeconds += monotonicSeconds() - t0
            }
            if let error = held.value.error { throw error }
            held.value.items.append(item)
            if item.isVideo { held.value.videoFrames += 1 }
            held.broadcast()
        }
    }

    /// Tells the encoding thread to stop, whatever state it is in: never waits for room and never
    /// throws (after an encoder error `put` refuses items, and a stop must still get through).
    func cancel() {
        state.holding { held in
            held.value.items.append(.cancel)
            held.broadcast()
        }
    }

    /// Takes the next item, waiting for one.
    func take() -> Item {
        state.holding { held in
            held.wait { !$0.items.isEmpty }
            let item = held.value.items.removeFirst()   // a few items: cheap, and the frame is let go at once
            if item.isVideo { held.value.videoFrames -= 1 }
            held.broadcast()
            return item
        }
    }

    /// The encoder failed: remember why and wake the producer.
    func fail(_ e: Error) {
        state.holding { held in
            if held.value.error == nil { held.value.error = e }
            held.broadcast()
        }
    }

    /// The encoding thread has stopped.
    func markDone() {
        state.holding { held in
            held.value.done = true
            held.broadcast()
        }
    }

    /// Waits until the encoding thread has stopped; returns its error, if any.
    func waitDone() -> Error? {
        state.holding { held in
            held.wait { $0.done }
            return held.value.error
        }
    }
}
