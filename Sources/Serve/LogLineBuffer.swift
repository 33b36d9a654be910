import Foundation
import Threads

/// Log lines on their way to a file descriptor: held and written in batches (one write(2) for
/// many request lines), or at once. Lines are written whole and in the order appended.
///
/// The locks are `Locked` (a plain pthread mutex), not Synchronization's `Mutex`: on Linux
/// `Mutex` spins and then waits on a priority-inheritance futex, and with the service's pool
/// threads (more than cores) appending a line per request it cost the service two thirds of its
/// playlist rate (`scripts/serve-bench.sh`: 30,857 against 94,779 requests/s, 39.5 against
/// 13.2 µs of CPU per request, on this 2-core machine).
final class LogLineBuffer: Sendable {
    /// The most held before a write.
    static let capacity = 64 * 1024
    /// The longest a held line waits.
    static let interval: DispatchTimeInterval = .milliseconds(100)

    /// Lines appended and not yet taken by a writer.
    private let held = Locked<[UInt8]>([])
    /// The descriptor, held by whoever takes `held` and writes it, so that batches reach it in order.
    private let writing: Locked<Int32>

    init(descriptor: Int32) { writing = Locked(descriptor) }

    /// Appends `line` and a newline; writes what is held when `flush` or when over `capacity`,
    /// else within `interval` (a write is scheduled when the first line of a batch comes).
    func append(_ line: [UInt8], flush: Bool) {
        let (first, full) = held.withLock { held in
            let first = held.isEmpty
            held += line
            held.append(UInt8(ascii: "\n"))
            return (first, held.count >= Self.capacity)
        }
        if flush || full {
            self.flush()
        } else if first {
            DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + Self.interval) { self.flush() }
        }
    }

    /// Writes everything held.
    func flush() {
        writing.withLock { descriptor in
            let bytes = held.withLock { held in
                defer { held = [] }
                return held
            }
            bytes.withUnsafeBytes { raw in
                var at = 0
                while at < raw.count {
                    let n = Foundation.write(descriptor, raw.baseAddress! + at, raw.count - at)
                    if n > 0 { at += n } else if n < 0 && errno == EINTR { continue } else { break }   // a closed log loses lines, never a request
                }
            }
        }
    }
}
