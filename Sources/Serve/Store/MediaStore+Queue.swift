import Foundation
import Timing

extension MediaStore {
    /// Seconds between looks at a queued job's result.
    static let queuePollInterval = 0.1
    /// Seconds a queued job is waited for before the store stops looking (the next request asks again).
    static let queueWaitLimit = 900.0

    /// Enqueues `job` (once across the fleet) and waits, on this thread, for its result; records
    /// it under `key` (blocking: runs on a thread of its own, never under the lock). A queue that
    /// cannot be reached leaves the key unrecorded, so a later request tries again.
    func awaitQueued(_ job: AdJobRequest, key: String, queue: any AdJobQueue) {
        let deadline = Date().addingTimeInterval(MediaStore.queueWaitLimit)
        var resubmitted = false
        do {
            var result = try queue.submit(job)
            while Date() < deadline {
                if let r = result {
                    switch r {
                    case .failed(let code, let reason):
                        state.withLock { $0.adByURL[key] = .failed(code, reason, Date().timeIntervalSince1970) }
                        return
                    case .stored(let prefix):
                        if record(stored: prefix, key: key, rung: job.rendition.key) { return }
                        // its files are gone (evicted by a node): run it again, once
                        guard !resubmitted else { state.withLock { $0.adByURL[key] = nil }; return }
                        resubmitted = true
                        try queue.forget(job)
                        result = try queue.submit(job)
                        continue
                    }
                }
                Thread.sleep(forTimeInterval: MediaStore.queuePollInterval)
                result = try queue.result(job)
            }
        } catch {}
        state.withLock { $0.adByURL[key] = nil }
    }

    /// Registers an ad rung a worker committed under `prefix` (`ads/<sha>/<rung>`) and answers it
    /// for `key`; false when it is not in the store whole.
    func record(stored prefix: String, key: String, rung: String) -> Bool {
        let parts = prefix.split(separator: "/")
        guard parts.count == 3, parts[0] == "ads", parts[2] == rung, MediaStore.isSafeRelativePath(prefix),
              let r = AdTranscodeJob.load(prefix, root: root), case .ready(let segments, _) = r else { return false }
        let sha = String(parts[1])
        state.withLock { s in
            if s.index.units[prefix] == nil {
                register(&s, key: prefix, kind: "ad", files: segments.map(\.path) + ["\(prefix)/ad.json"], folder: prefix)
            }
            s.adBySHA["\(sha)/\(rung)"] = r
            s.adByURL[key] = .hashed(sha)
        }
        return true
    }
}
