import Foundation
import Media
import Threads

/// The one-slot mailbox between the player's thread, which posts frames, and the window thread,
/// which shows the newest one. A frame posted before the previous one was taken replaces it (the
/// player counts what a live output leaves out). Each side copies into a buffer of its own and
/// only swaps buffers under the lock, so neither waits for the other's copy or render.
final class FrameMailbox: Sendable {
    /// What the two sides share: the posted picture and what became of the posts.
    private struct Shared {
        var slot: [UInt8]
        var full = false
        var stopping = false
        var replaced = 0
    }
    private let shared: LockedCondition<Shared>
    /// The poster's buffer, copied into outside `shared`'s lock; held across the copy and the
    /// swap, so that posts from two threads do not interleave.
    private let spare: Locked<[UInt8]>
    /// Bytes of one yuv420p picture: Y, then U, then V, each plane tightly packed.
    let byteCount: Int
    let width: Int, height: Int

    /// A mailbox for `width`×`height` yuv420p pictures.
    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        byteCount = width * height + 2 * cw * ch
        spare = Locked([UInt8](repeating: 0, count: byteCount))
        shared = LockedCondition(Shared(slot: [UInt8](repeating: 0, count: byteCount)))
    }

    /// A new buffer of the right size for the taking side.
    func makeBuffer() -> [UInt8] { [UInt8](repeating: 0, count: byteCount) }

    /// Copies `planes` (Y, U, V of a `width`×`height` picture) into the mailbox, replacing a frame
    /// that was not taken yet. Returns false after `stop()`.
    @discardableResult
    func post(_ planes: [FramePlane]) -> Bool {
        precondition(planes.reduce(0) { $0 + $1.width * $1.height } == byteCount, "planes of another picture size")
        return spare.withLock { spare in
            spare.withUnsafeMutableBufferPointer { out in
                var offset = 0
                for plane in planes {
                    for row in 0..<plane.height {
                        (out.baseAddress! + offset).update(from: plane.base + row * plane.stride, count: plane.width)
                        offset += plane.width
                    }
                }
            }
            return shared.holding { held in
                if held.value.stopping { return false }
                swap(&spare, &held.value.slot)
                if held.value.full { held.value.replaced += 1 }
                held.value.full = true
                held.signal()
                return true
            }
        }
    }

    /// What `take` found.
    enum Taken: Equatable {
        /// A new frame is now in the caller's buffer.
        case frame
        /// Nothing new before the deadline.
        case nothing
        /// `stop()` was called.
        case stop
    }

    /// Waits until `deadline` for a new frame or `stop()`; a new frame is swapped into `buffer`
    /// (which must have `byteCount` bytes).
    func take(into buffer: inout [UInt8], waitingUntil deadline: Date) -> Taken {
        shared.holding { held in
            _ = held.wait(until: { $0.full || $0.stopping }, before: deadline)
            if held.value.stopping { return .stop }
            guard held.value.full else { return .nothing }
            swap(&buffer, &held.value.slot)
            held.value.full = false
            return .frame
        }
    }

    /// Wakes the taker for good. Returns true the first time only.
    func stop() -> Bool {
        shared.holding { held in
            if held.value.stopping { return false }
            held.value.stopping = true
            held.broadcast()
            return true
        }
    }

    /// Whether `stop()` was called.
    var isStopped: Bool { shared.withLock { $0.stopping } }

    /// Frames replaced by a newer one before the window took them.
    var replacedCount: Int { shared.withLock { $0.replaced } }
}
