import Foundation

extension MediaStore: ServeMediaGauges {
    /// Ad jobs queued or running, and packagings, cuts and slate pieces in progress.
    public func queuedEncodes() -> Int {
        state.withLock { $0.adQueue.count + $0.adRunning + $0.contentTasks.count + $0.pieceTasks.count }
    }

    /// Bytes of every unit the store's index holds.
    public func storeBytes() -> Int64 { state.withLock { $0.index.totalBytes } }
}
