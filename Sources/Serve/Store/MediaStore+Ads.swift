import Foundation
import Interlude
import Media
import Playback
import Timing

/// Where the job for one (ad media URL, rung) stands.
enum AdJob: Sendable {
    /// Queued or fetching.
    case waiting
    /// Fetched: its bytes hash to this; the rendition is `adBySHA["<sha>/<rung>"]`.
    case hashed(String)
    /// Fetching or probing failed (VAST code, reason, when): answered so for `AdJob.failureMemory`
    /// seconds, then tried again.
    case failed(Int, String, Double)

    /// Seconds a failure is remembered (an ad server's media may come back).
    static let failureMemory: Double = 60
}

/// Ad media longer than the store transcodes (VAST 403).
struct AdTooLong: Error { var message: String }

/// The ad rendition record kept beside its segments (`ad.json`), for a restart.
struct StoredAd: Codable {
    var segments: [String]
    var durations: [[Int64]]
    var duration: [Int64]
}

extension MediaStore {
    /// The longest ad media transcoded (its sound is held in memory while it is encoded).
    static let longestAd = MediaTime(seconds: 600)

    /// The ad at `mediaURL` in `rendition`: `.ready` when its transcode (keyed by the SHA-256 of
    /// the media's bytes) is in the store, else `.pending` with the fetch and transcode queued on
    /// the worker pool; `.failed` with a VAST code when it cannot be had (401 not found, 402
    /// timeout, 403 refused: oversize, not allowed, a local file named by a network document;
    /// 405 not decodable media). Never waits for a transcode; in a fleet (a job queue) an ad not
    /// ready here costs one look at the queue's result first (a Redis `GET`), so that an ad
    /// another node's worker stored plays in this node's next session.
    public func ad(mediaURL: String, rendition rung: Rendition) -> AdReadiness {
        let rendition = rung.key
        let key = "\(rendition) \(mediaURL)"
        // What to look up in a fleet's queue first: an ad not ready here may be stored by
        // another node's worker already (a node's first session with it then plays it).
        let lookup: (AdJobRequest, any AdJobQueue)? = state.withLock { s in
            guard let queue = options.jobQueue else { return nil }
            let now = Date().timeIntervalSince1970
            switch s.adByURL[key] {
            case .failed(_, _, let at)? where now - at < AdJob.failureMemory: return nil
            case .hashed(let sha)? where s.adBySHA["\(sha)/\(rendition)"] != nil: return nil
            default:
                return (AdJobRequest(url: mediaURL, rendition: rung, segmentTarget: options.segmentTarget, allowLocal: options.allowLocalAdMedia), queue)
            }
        }
        if let (job, queue) = lookup, case .stored(let prefix)? = try? queue.result(job),
           record(stored: prefix, key: key, rung: rendition) {
            return answer(mediaURL: mediaURL, rendition: rendition)
        }
        let queued: (AdJobRequest, any AdJobQueue)? = state.withLock { s in
            let now = Date().timeIntervalSince1970
            switch s.adByURL[key] {
            case .waiting?: return nil
            case .failed(_, _, let at)? where now - at < AdJob.failureMemory: return nil
            case .hashed(let sha)? where s.adBySHA["\(sha)/\(rendition)"] != nil: return nil
            default:
                // new, failed a while ago, or its transcode was evicted: (again) on the worker pool
                s.adByURL[key] = .waiting
                if let queue = options.jobQueue {
                    let job = AdJobRequest(url: mediaURL, rendition: rung, segmentTarget: options.segmentTarget, allowLocal: options.allowLocalAdMedia)
                    if let problem = job.problem {
                        // workers refuse what is not a job (`AdJobRequest.problem`): never enqueued
                        s.adByURL[key] = .failed(403, "ad job refused: \(problem)", now)
                        return nil
                    }
                    return (job, queue)
                }
                s.adQueue.append { await self.runAdJob(key: key, url: mediaURL, rung: rung) }
                startAdJobs(&s)
                return nil
            }
        }
        if let (job, queue) = queued {
            // waits on the job queue (Redis round trips, polling) for up to `queueWaitLimit`
            let watcher = Thread { self.awaitQueued(job, key: key, queue: queue) }
            watcher.name = "queued ad watch"
            watcher.start()
        }
        return answer(mediaURL: mediaURL, rendition: rendition)
    }

    /// What the store can say of an ad rung now (under the lock), without starting anything.
    private func answer(mediaURL: String, rendition: String) -> AdReadiness {
        state.withLock { s in
            switch s.adByURL["\(rendition) \(mediaURL)"] {
            case .failed(let code, let reason, _)?: return .failed(code: code, reason: reason)
            case .hashed(let sha)?:
                guard let r = s.adBySHA["\(sha)/\(rendition)"] else { return .pending }
                if case .ready(let segments, _) = r, let first = segments.first { s.index.touch(path: first.path, now: Date().timeIntervalSince1970) }
                return r
            default: return .pending
            }
        }
    }

    /// Starts queued ad jobs while fewer than `adWorkers` run (`s`: the state, its lock held).
    func startAdJobs(_ s: inout State) {
        while s.adRunning < max(1, options.adWorkers), !s.adQueue.isEmpty {
            let job = s.adQueue.removeFirst()
            s.adRunning += 1
            Task.detached {
                await job()
                self.state.withLock { s in
                    s.adRunning -= 1
                    self.startAdJobs(&s)
                }
            }
        }
    }

    /// Fetches (hardened: `AdMediaCache`), hashes, probes and transcodes one ad rung
    /// (`AdTranscodeJob`, the same work `interlude worker` does).
    private func runAdJob(key: String, url: String, rung: Rendition) async {
        let fetched: AdTranscodeJob.Fetched
        switch await AdTranscodeJob.fetch(url, cache: adMedia, timeout: options.adFetchTimeout, allowLocal: options.allowLocalAdMedia) {
        case .success(let f): fetched = f
        case .failure(let error):
            state.withLock { $0.adByURL[key] = .failed(error.code, error.message, Date().timeIntervalSince1970) }
            return
        }
        let sha = fetched.sha
        let shaKey = "\(sha)/\(rung.key)"
        let prefix = AdTranscodeJob.prefix(sha: sha, rung: rung.key)
        let mustEncode: Bool = state.withLock { s in
            s.adByURL[key] = .hashed(sha)
            if s.adBySHA[shaKey] != nil { return false }
            if s.index.units[prefix] != nil, let stored = loadStoredAd(prefix) {
                s.adBySHA[shaKey] = stored
                return false
            }
            s.adBySHA[shaKey] = .pending
            s.countEncode("ad")
            return true
        }
        guard mustEncode else { return }
        let result = await AdTranscodeJob.transcode(fetched.path, url: url, rung: rung, segmentTarget: options.segmentTarget,
                                                    root: root, prefix: prefix)
        state.withLock { s in
            if case .ready(let segments, _) = result {
                register(&s, key: prefix, kind: "ad", files: segments.map(\.path) + ["\(prefix)/ad.json"], folder: prefix)
            }
            s.adBySHA[shaKey] = result
        }
    }

    /// An ad rung the store already holds (its `ad.json`, checked: `AdTranscodeJob.load`), after a restart.
    func loadStoredAd(_ prefix: String) -> AdReadiness? { AdTranscodeJob.load(prefix, root: root) }
}
