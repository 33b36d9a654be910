import Foundation

extension MediaStore: ServeMediaGauges {
    /// Ad jobs queued or running, and packagings, cuts and slate pieces in progress.
    public func queuedEncodes() -> Int {
        lock.withLock { adQueue.count + adRunning + contentTasks.count + pieceTasks.count }
    }

    /// Bytes of every unit the store's index holds.
    public func storeBytes() -> Int64 { lock.withLock { index.totalBytes } }
}
