import Foundation

/// Runs `body` on a thread of its own, named `name`, and awaits its result: the package's one way
/// to take synchronous work that blocks — decoding and encoding for seconds, a frame loop's
/// flush, a child process, a file scan — off Swift's concurrency pool, whose threads (one per
/// core) must never wait, and off the caller's actor.
///
/// A new thread per call: the work it is for takes milliseconds to minutes, against the tens of
/// microseconds a thread costs to start. Its stack is `stackSize` bytes (8 MiB by default, as
/// FFmpeg's decoders and encoders want).
package func onOwnThread<T: Sendable>(_ name: String, stackSize: Int = 8 << 20,
                                      _ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.name = name
        thread.stackSize = stackSize
        thread.start()
    }
}
