import Foundation

/// Log lines on their way to a file descriptor: held and written in batches (one write(2) for
/// many request lines), or at once. Lines are written whole and in the order appended.
///
/// The locks are `NSLock` (a plain pthread mutex), not Synchronization's `Mutex`: on Linux
/// `Mutex` spins and then waits on a priority-inheritance futex, and with the service's pool
/// threads (more than cores) appending a line per request it cost the service two thirds of its
/// playlist rate (`scripts/serve-bench.sh`: 30,857 against 94,779 requests/s, 39.5 against
/// 13.2 µs of CPU per request, on this 2-core machine).
final class LogLineBuffer: @unchecked Sendable {
    // @unchecked Sendable: `held` is touched only under `heldLock`; `descriptor` is immutable.
    /// The most held before a write.
    static let capacity = 64 * 1024
    /// The longest a held line waits.
    static let interval: DispatchTimeInterval = .milliseconds(100)

    private let descriptor: Int32
    private let heldLock = NSLock()
    /// Lines appended and not yet taken by a writer.
    private var held: [UInt8] = []
    /// Held by whoever takes `held` and writes it, so that batches reach the descriptor in order.
    private let writing = NSLock()

    init(descriptor: Int32) { self.descriptor = descriptor }

    /// Appends `line` and a newline; writes what is held when `flush` or when over `capacity`,
    /// else within `interval` (a write is scheduled when the first line of a batch comes).
    func append(_ line: [UInt8], flush: Bool) {
        heldLock.lock()
        let first = held.isEmpty
        held += line
        held.append(UInt8(ascii: "\n"))
        let full = held.count >= Self.capacity
        heldLock.unlock()
        if flush || full {
            self.flush()
        } else if first {
            DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + Self.interval) { self.flush() }
        }
    }

    /// Writes everything held.
    func flush() {
        writing.lock(); defer { writing.unlock() }
        heldLock.lock()
        let bytes = held
        held = []
        heldLock.unlock()
        bytes.withUnsafeBytes { raw in
            var at = 0
            while at < raw.count {
                let n = Foundation.write(descriptor, raw.baseAddress! + at, raw.count - at)
                if n > 0 { at += n } else if n < 0 && errno == EINTR { continue } else { break }   // a closed log loses lines, never a request
            }
        }
    }
}
