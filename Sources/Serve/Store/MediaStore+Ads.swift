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
    /// 405 not decodable media). Never blocks.
    public func ad(mediaURL: String, rendition: String) -> AdReadiness {
        lock.withLock {
            guard let rung = renditions[rendition] else { return .failed(code: 900, reason: "no rendition named '\(rendition)'") }
            let key = "\(rendition) \(mediaURL)"
            let now = Date().timeIntervalSince1970
            switch adByURL[key] {
            case .waiting?: return .pending
            case .failed(let code, let reason, let at)? where now - at < AdJob.failureMemory:
                return .failed(code: code, reason: reason)
            case .hashed(let sha)? where adBySHA["\(sha)/\(rendition)"] != nil:
                let r = adBySHA["\(sha)/\(rendition)"]!
                if case .ready(let segments, _) = r, let first = segments.first { index.touch(path: first.path, now: now) }
                return r
            default:
                // new, failed a while ago, or its transcode was evicted: (again) on the worker pool
                adByURL[key] = .waiting
                if let queue = options.jobQueue {
                    let job = AdJobRequest(url: mediaURL, rendition: rung, segmentTarget: options.segmentTarget,
                                           allowLocal: options.allowLocalAdMedia)
                    Thread.detachNewThread { self.awaitQueued(job, key: key, queue: queue) }
                    return .pending
                }
                adQueue.append { await self.runAdJob(key: key, url: mediaURL, rung: rung) }
                startAdJobs()
                return .pending
            }
        }
    }

    /// Starts queued ad jobs while fewer than `adWorkers` run (under the lock).
    func startAdJobs() {
        while adRunning < max(1, options.adWorkers), !adQueue.isEmpty {
            let job = adQueue.removeFirst()
            adRunning += 1
            Task.detached {
                await job()
                self.lock.withLock {
                    self.adRunning -= 1
                    self.startAdJobs()
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
            lock.withLock { adByURL[key] = .failed(error.code, error.message, Date().timeIntervalSince1970) }
            return
        }
        let sha = fetched.sha
        let shaKey = "\(sha)/\(rung.name)"
        let prefix = AdTranscodeJob.prefix(sha: sha, rung: rung.name)
        let mustEncode: Bool = lock.withLock {
            adByURL[key] = .hashed(sha)
            if adBySHA[shaKey] != nil { return false }
            if index.units[prefix] != nil, let stored = loadStoredAd(prefix) {
                adBySHA[shaKey] = stored
                return false
            }
            adBySHA[shaKey] = .pending
            countEncode("ad")
            return true
        }
        guard mustEncode else { return }
        let result = await AdTranscodeJob.transcode(fetched.path, url: url, rung: rung, segmentTarget: options.segmentTarget,
                                                    root: root, prefix: prefix)
        lock.withLock {
            if case .ready(let segments, _) = result {
                register(key: prefix, kind: "ad", files: segments.map(\.path) + ["\(prefix)/ad.json"], folder: prefix)
            }
            adBySHA[shaKey] = result
        }
    }

    /// An ad rung the store already holds (its `ad.json`), after a restart.
    func loadStoredAd(_ prefix: String) -> AdReadiness? {
        guard let data = try? Data(contentsOf: root.appendingPathComponent("\(prefix)/ad.json")),
              let s = try? JSONDecoder().decode(StoredAd.self, from: data), s.segments.count == s.durations.count,
              s.duration.count == 2, s.durations.allSatisfy({ $0.count == 2 && $0[1] > 0 }), s.duration[1] > 0 else { return nil }
        let segments = zip(s.segments, s.durations).map { StoredSegment(path: $0, duration: MediaTime(value: $1[0], timescale: $1[1])) }
        return .ready(segments, duration: MediaTime(value: s.duration[0], timescale: s.duration[1]))
    }
}
