import Foundation
import Media

/// The one-slot mailbox between the player's thread, which posts frames, and the window thread,
/// which shows the newest one. A frame posted before the previous one was taken replaces it (the
/// player counts what a live output leaves out). Each side copies into a buffer of its own and
/// only swaps buffers under the lock, so neither waits for the other's copy or render.
final class FrameMailbox: @unchecked Sendable {
    // @unchecked Sendable: `slot`, `full`, `stopping` and `replaced` are touched only while holding
    // `condition`; `spare` only while holding `writer`.
    private let condition = NSCondition()
    private let writer = NSLock()
    /// Bytes of one yuv420p picture: Y, then U, then V, each plane tightly packed.
    let byteCount: Int
    let width: Int, height: Int
    private var spare: [UInt8]
    private var slot: [UInt8]
    private var full = false
    private var stopping = false
    private var replaced = 0

    /// A mailbox for `width`×`height` yuv420p pictures.
    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        byteCount = width * height + 2 * cw * ch
        spare = [UInt8](repeating: 0, count: byteCount)
        slot = [UInt8](repeating: 0, count: byteCount)
    }

    /// A new buffer of the right size for the taking side.
    func makeBuffer() -> [UInt8] { [UInt8](repeating: 0, count: byteCount) }

    /// Copies `planes` (Y, U, V of a `width`×`height` picture) into the mailbox, replacing a frame
    /// that was not taken yet. Returns false after `stop()`.
    @discardableResult
    func post(_ planes: [FramePlane]) -> Bool {
        precondition(planes.reduce(0) { $0 + $1.width * $1.height } == byteCount, "planes of another picture size")
        writer.lock()
        defer { writer.unlock() }
        spare.withUnsafeMutableBufferPointer { out in
            var offset = 0
            for plane in planes {
                for row in 0..<plane.height {
                    (out.baseAddress! + offset).update(from: plane.base + row * plane.stride, count: plane.width)
                    offset += plane.width
                }
            }
        }
        condition.lock()
        defer { condition.unlock() }
        if stopping { return false }
        swap(&spare, &slot)
        if full { replaced += 1 }
        full = true
        condition.signal()
        return true
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
        condition.lock()
        defer { condition.unlock() }
        while !full && !stopping {
            if !condition.wait(until: deadline) { break }
        }
        if stopping { return .stop }
        guard full else { return .nothing }
        swap(&buffer, &slot)
        full = false
        return .frame
    }

    /// Wakes the taker for good. Returns true the first time only.
    func stop() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if stopping { return false }
        stopping = true
        condition.broadcast()
        return true
    }

    /// Whether `stop()` was called.
    var isStopped: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopping
    }

    /// Frames replaced by a newer one before the window took them.
    var replacedCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return replaced
    }
}
