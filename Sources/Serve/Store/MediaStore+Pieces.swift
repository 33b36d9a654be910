import Foundation
import Threads
import Timing

extension MediaStore {
    /// The one way a made piece (a content cut, a live segment's piece, a slate piece) enters the
    /// store: found in the index (and touched), joined while another caller makes it, adopted
    /// when another process sharing the folder put it in place (files reach their names only
    /// whole; a regular file, no link on the way), else made once off the concurrency pool by
    /// `make` into a temporary `.ts`, published under `path` (unless another node published it
    /// meanwhile: `publishFile`) and registered as `kind` (also the encode counter's name).
    func pieceMadeOnce(_ path: String, kind: String, duration: MediaTime,
                       make: @escaping @Sendable (_ output: URL) throws -> Void) async throws -> StoredSegment {
        let done = StoredSegment(path: path, duration: duration)
        let task: Task<StoredSegment, any Error> = state.withLock { s in
            if s.index.unit(holding: path) != nil {
                s.index.touch(path: path, now: Date().timeIntervalSince1970)
                return Task { done }
            }
            if let t = s.pieceTasks[path] { return t }
            // adopted only as a regular file reached through real folders (a link or a FIFO
            // there is replaced by the piece made now: rename(2) replaces the entry itself)
            if StoreFile.regular(path, in: root) != nil {
                register(&s, key: path, kind: kind, files: [path])
                return Task { done }
            }
            s.countEncode(kind)
            let t = Task {
                try await onOwnThread("store piece") {
                    let temp = self.temporaryURL(".ts")
                    defer { try? FileManager.default.removeItem(at: temp) }
                    try make(temp)
                    try self.publishFile(temp, as: path)   // or another node's, made at the same time
                    self.state.withLock { self.register(&$0, key: path, kind: kind, files: [path]) }
                    return done
                }
            }
            s.pieceTasks[path] = t
            return t
        }
        defer { state.withLock { $0.pieceTasks[path] = nil } }
        return try await task.value
    }
}
