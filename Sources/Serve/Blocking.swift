import Foundation

/// A value handed from a task to the thread waiting for it.
private final class Handoff<T>: @unchecked Sendable {
    // @unchecked Sendable: `value` is written once before `done` is signalled and read after.
    var value: T?
    let done = DispatchSemaphore(value: 0)
}

/// Runs `body` on Swift's concurrency pool and waits for it on the calling thread: for
/// libmicrohttpd's pool threads, which are not the concurrency pool's (so waiting cannot starve
/// it) and never the main thread.
func blocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let box = Handoff<T>()
    Task { box.value = await body(); box.done.signal() }
    box.done.wait()
    return box.value!
}
