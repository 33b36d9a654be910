import Foundation
import Interlude
import Redis
import Threads
import Timing

/// `interlude worker`: runs ad jobs from the Redis stream (`RedisAdQueue`) as one consumer of the
/// group `workers`, committing each to the shared store folder before it is acknowledged. Jobs
/// left by a dead worker are claimed again after the visibility timeout (`XAUTOCLAIM`); a worker
/// keeps its own job visible by re-claiming it while it runs. Attempts are counted per job; after
/// the most attempts the job goes to the dead-letter stream with its error.
public final class AdWorker: Sendable {
    /// How a worker is set up.
    public struct Options: Sendable {
        /// The Redis URL (`redis://HOST:PORT/DB` or `unix:///PATH`).
        public var redisURL: String
        /// The shared store folder.
        public var storeRoot: URL
        /// This worker's consumer name in the group (unique per worker).
        public var consumer: String
        /// Seconds a job may stay unacknowledged with no sign of its worker before another claims it.
        public var visibilityTimeout: Double = 30
        /// Attempts before a job goes to the dead-letter stream.
        public var maxAttempts: Int = 3
        /// Seconds one ad media download may take.
        public var fetchTimeout: Double = 10
        /// Largest ad media accepted, in bytes.
        public var maxAdBytes: Int64 = 256 << 20
        /// The folder whose files a job may name as its media (a local document's ads, e.g. the
        /// repository's Media folder for the demo VMAP): only a path inside it once links are
        /// resolved. Nil (the default): a job naming a local file fails (VAST 403).
        public var localMediaFolder: URL?

        /// A worker on `redisURL` and the store at `storeRoot`.
        public init(redisURL: String, storeRoot: URL, consumer: String) {
            self.redisURL = redisURL; self.storeRoot = storeRoot; self.consumer = consumer
        }
    }

    /// The setup.
    public let options: Options
    let root: URL
    let client: RedisClient
    let cache: AdMediaCache
    let log: @Sendable (String) -> Void
    /// Whether `stop()` was called.
    let stopping = Locked(false)
    /// Test hook only: seconds slept before each transcode (`INTERLUDE_WORKER_TEST_DELAY`), so a
    /// test can kill a worker mid-job.
    let testDelay: Double

    /// A worker; the store folder is created (0700) or checked as the store does.
    public init(options: Options, log: @escaping @Sendable (String) -> Void) throws {
        self.options = options
        self.log = log
        root = options.storeRoot.standardizedFileURL
        try MediaStore.prepareFolder(root)
        try MediaStore.checkOwnFolder(".worker-\(options.consumer)", in: root)
        client = RedisClient(url: try RedisURL(options.redisURL), connections: 2, timeout: 5, minBackoff: 0.1, maxBackoff: 5)
        // hidden: never a served path, and not a name the store's start-up removes
        cache = AdMediaCache(directory: root.appendingPathComponent(".worker-\(options.consumer)"), maxBytes: 2 << 30,
                             maxFileBytes: options.maxAdBytes)
        testDelay = ProcessInfo.processInfo.environment["INTERLUDE_WORKER_TEST_DELAY"].flatMap(Double.init) ?? 0
    }

    /// Asks `run` to return after the job in hand (if any) is finished.
    public func stop() { stopping.withLock { $0 = true } }
    var isStopping: Bool { stopping.withLock { $0 } }

    /// Runs jobs until `stop()`. Redis unreachable: retried with backoff, one log line per change.
    public func run() async {
        var connected: Bool?
        var pause = 0.1
        var lastClaim = 0.0
        var grouped = false
        while !isStopping {
            do {
                if !grouped { try createGroup(); grouped = true }
                if connected != true { log("redis \(options.redisURL): connected"); connected = true; pause = 0.1 }
                let now = ProcessInfo.processInfo.systemUptime
                if now - lastClaim >= min(1, options.visibilityTimeout / 2) {
                    lastClaim = now
                    if let entry = try claimIdle() { await handle(entry); continue }
                }
                if let entry = try readNew() { await handle(entry) }
            } catch RedisError.server(let e) where e.hasPrefix("NOGROUP") {
                grouped = false   // a Redis restarted without its data: the group is made again
            } catch {
                grouped = false
                if connected != false { log("redis \(options.redisURL): unreachable (\(error)); retrying"); connected = false }
                try? await Task.sleep(nanoseconds: UInt64(pause * 1e9))
                pause = min(5, pause * 2)
            }
        }
    }

    struct Entry { var id: String; var fields: [String: String] }

    private func check(_ reply: RedisReply) throws -> RedisReply {
        if case .error(let e) = reply { throw RedisError.server(e) }
        return reply
    }

    private func createGroup() throws {
        // from the stream's start ("0", not "$"): jobs enqueued before the first worker ran are not skipped
        let reply = try client.command("XGROUP", "CREATE", RedisAdQueue.stream, RedisAdQueue.group, "0", "MKSTREAM")
        if case .error(let e) = reply, !e.hasPrefix("BUSYGROUP") { throw RedisError.server(e) }
    }

    static func entry(_ reply: RedisReply) -> Entry? {
        guard let e = reply.elements, e.count == 2, let id = e[0].text, let kv = e[1].elements else { return nil }
        var fields: [String: String] = [:]
        var i = 0
        while i + 1 < kv.count { if let k = kv[i].text, let v = kv[i + 1].text { fields[k] = v }; i += 2 }
        return Entry(id: id, fields: fields)
    }

    private func readNew() throws -> Entry? {
        let reply = try check(client.command("XREADGROUP", "GROUP", RedisAdQueue.group, options.consumer, "COUNT", "1", "BLOCK", "1000",
                                             "STREAMS", RedisAdQueue.stream, ">"))
        guard let streams = reply.elements, let s = streams.first?.elements, s.count == 2, let first = s[1].elements?.first else { return nil }
        return AdWorker.entry(first)
    }

    private func claimIdle() throws -> Entry? {
        let ms = String(Int(options.visibilityTimeout * 1000))
        let reply = try check(client.command("XAUTOCLAIM", RedisAdQueue.stream, RedisAdQueue.group, options.consumer, ms, "0-0", "COUNT", "1"))
        guard let parts = reply.elements, parts.count >= 2, let first = parts[1].elements?.first else { return nil }
        return AdWorker.entry(first)
    }

    private func ack(_ id: String) throws { _ = try check(client.command("XACK", RedisAdQueue.stream, RedisAdQueue.group, id)) }

    /// One delivery of a job: counted, run, recorded; acknowledged once its outcome is recorded
    /// (a retryable failure is left pending: claimed again after the visibility timeout).
    private func handle(_ entry: Entry) async {
        do {
            let job: AdJobRequest
            switch RedisAdQueue.parse(fields: entry.fields) {
            case .success(let j): job = j
            case .failure(let refusal):
                // as hostile as a request: never run; its node hears a failure (when its id is one)
                let why = "malformed job: \(refusal.reason)"
                _ = try check(client.command(["XADD", RedisAdQueue.dead, "*", "id", entry.id, "error", why, "attempts", "1"]))
                if let h = entry.fields["h"], h.count == 64, h.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) { try recordFailure(h, code: 403, reason: why) }
                try ack(entry.id)
                log("job \(entry.id): \(why); dead-lettered")
                return
            }
            let h = job.id
            if let done = try client.command("GET", RedisAdQueue.resultKey(h)).text.flatMap(RedisAdQueue.parseResult),
               case .stored(let prefix) = done, AdTranscodeJob.load(prefix, root: root) != nil {
                try ack(entry.id)   // done already (a redelivery after a commit): nothing to do
                return
            }
            let attempt = try check(client.command("INCR", RedisAdQueue.attemptsKey(h))).integer ?? 1
            _ = try client.command("EXPIRE", RedisAdQueue.attemptsKey(h), "86400")
            if attempt > Int64(options.maxAttempts) {
                let last = try client.command("GET", RedisAdQueue.errorKey(h)).text ?? "402 worker lost during the attempt"
                try giveUp(entry, job: job, error: last, attempts: attempt - 1)
                return
            }
            log("job \(entry.id): \(job.rendition.name) \(job.url) (attempt \(attempt))")
            let heartbeat = Heartbeat(client: client, consumer: options.consumer, id: entry.id, every: max(0.2, options.visibilityTimeout / 3))
            let outcome = await run(job)
            heartbeat.stop()
            switch outcome {
            case .stored(let prefix):
                _ = try check(client.command("SET", RedisAdQueue.resultKey(h), RedisAdQueue.text(.stored(prefix: prefix))))
                _ = try client.command("DEL", RedisAdQueue.attemptsKey(h), RedisAdQueue.errorKey(h))
                try ack(entry.id)
                log("job \(entry.id): stored \(prefix)")
            case .failed(let code, let reason) where code == 401 || code == 403:
                // the ad server's or the rules' final word: a result, not a retry
                try recordFailure(h, code: code, reason: reason)
                try ack(entry.id)
                log("job \(entry.id): failed \(code) \(reason)")
            case .failed(let code, let reason):
                let error = "\(code) \(reason)"
                _ = try client.command("SET", RedisAdQueue.errorKey(h), error, "EX", "86400")
                if attempt >= Int64(options.maxAttempts) {
                    try giveUp(entry, job: job, error: error, attempts: attempt)
                } else {
                    log("job \(entry.id): attempt \(attempt) failed (\(error)); left for another attempt")
                }
            }
        } catch {
            log("job \(entry.id): \(error)")
        }
    }

    private func recordFailure(_ h: String, code: Int, reason: String) throws {
        let ttl = String(Int(AdJob.failureMemory))
        _ = try check(client.command("SET", RedisAdQueue.resultKey(h), RedisAdQueue.text(.failed(code: code, reason: reason)), "EX", ttl))
        _ = try client.command("EXPIRE", RedisAdQueue.jobKey(h), ttl)
        _ = try client.command("DEL", RedisAdQueue.attemptsKey(h), RedisAdQueue.errorKey(h))
    }

    private func giveUp(_ entry: Entry, job: AdJobRequest, error: String, attempts: Int64) throws {
        let parts = error.split(separator: " ", maxSplits: 1).map(String.init)
        let code = parts.first.flatMap(Int.init) ?? 405
        let reason = parts.count == 2 ? parts[1] : error
        _ = try check(client.command(["XADD", RedisAdQueue.dead, "*", "id", entry.id, "h", job.id, "url", job.url, "rendition", job.rendition.name,
                                      "attempts", String(attempts), "error", error]))
        try recordFailure(job.id, code: code, reason: "\(reason) (gave up after \(attempts) attempts)")
        try ack(entry.id)
        log("job \(entry.id): dead-lettered after \(attempts) attempts: \(error)")
    }

    /// Fetches, probes and transcodes `job` into the store (the store's own `AdTranscodeJob`).
    func run(_ job: AdJobRequest) async -> AdJobResult {
        var source = job.url
        let local = AdJobRequest.localPath(job.url) != nil
        if local {
            switch localMedia(job) {
            case .success(let path): source = path
            case .failure(let refusal): return .failed(code: 403, reason: refusal.reason)
            }
        }
        let fetched: AdTranscodeJob.Fetched
        switch await AdTranscodeJob.fetch(source, cache: cache, timeout: options.fetchTimeout, allowLocal: local) {
        case .success(let f): fetched = f
        case .failure(let f): return .failed(code: f.code, reason: f.message)
        }
        let prefix = AdTranscodeJob.prefix(sha: fetched.sha, rung: job.rendition.key)
        if AdTranscodeJob.load(prefix, root: root) != nil { return .stored(prefix: prefix) }   // the same bytes, committed already
        _ = try? client.command("INCR", RedisAdQueue.transcodes)
        if testDelay > 0 { try? await Task.sleep(nanoseconds: UInt64(testDelay * 1e9)) }
        switch await AdTranscodeJob.transcode(fetched.path, url: job.url, rung: job.rendition, segmentTarget: job.segmentTarget,
                                              root: root, prefix: prefix, tempPrefix: ".job-") {
        case .ready: return .stored(prefix: prefix)
        case .failed(let code, let reason): return .failed(code: code, reason: reason)
        case .pending: return .failed(code: 405, reason: "transcode did not finish")
        }
    }
}

extension AdWorker {
    /// The real path of a job's local media when the worker may read it: the job comes from a
    /// local document (`allowLocal`), the worker was given a folder (`localMediaFolder`), and the
    /// path, links and `..` resolved, lies inside that folder; else why not.
    func localMedia(_ job: AdJobRequest) -> Result<String, RedisAdQueue.JobRefusal> {
        guard let path = AdJobRequest.localPath(job.url), job.allowLocal else {
            return .failure(.init(reason: "media \(job.url) is a local file named by a network document; refused"))
        }
        guard let folder = options.localMediaFolder else {
            return .failure(.init(reason: "media \(job.url) is a local file; this worker reads none (interlude worker --allow-local-media DIR)"))
        }
        guard let base = AdWorker.realPath(folder.path), let real = AdWorker.realPath(path) else {
            return .failure(.init(reason: "media \(job.url) not found"))
        }
        guard real.hasPrefix(base.hasSuffix("/") ? base : base + "/") else {
            return .failure(.init(reason: "media \(job.url) is outside the folder this worker reads local media from"))
        }
        return .success(real)
    }

    /// `realpath(3)`: the path with every link and `..` resolved; nil when it does not exist.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

/// Keeps one pending job visible as its worker's while it runs: re-claims it (`XCLAIM … JUSTID`,
/// which resets its idle time) every few seconds on a thread of its own.
final class Heartbeat: Sendable {
    private let done = Locked(false)

    init(client: RedisClient, consumer: String, id: String, every: Double) {
        let beat = Thread { [self] in
            while true {
                Thread.sleep(forTimeInterval: every)
                if done.withLock({ $0 }) { return }
                _ = try? client.command("XCLAIM", RedisAdQueue.stream, RedisAdQueue.group, consumer, "0", id, "JUSTID")
            }
        }
        beat.name = "job heartbeat"
        beat.start()
    }

    func stop() { done.withLock { $0 = true } }
}
