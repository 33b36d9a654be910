import Foundation
import Redis
import Timing

/// The ad job queue on Redis, shared by serve nodes (which enqueue and read results) and
/// `interlude worker` processes (which run jobs; `AdWorker`).
///
/// Keys (`<h>` is the hex SHA-256 of `url|rung`, `AdJobRequest.id`):
/// - `interlude:jobs`: the stream of jobs (fields `url`, `rendition`, `width`, `height`, `vbr`,
///   `abr`, `fr` (the rung's frame rate, n/d), `vc` (its video codec), `target` (value/timescale),
///   `local`, `h`), consumed by the group `workers`;
/// - `interlude:job:<h>`: set (NX) by the node that enqueues, so a job enters the stream once;
/// - `interlude:ad:<h>`: the result: `stored <prefix>` or `failed <code> <reason>` (failures
///   expire after `AdJob.failureMemory` seconds, with the job key, so the media is tried again);
/// - `interlude:attempts:<h>`, `interlude:error:<h>`: attempts started, the last attempt's error;
/// - `interlude:jobs:dead`: jobs given up after the most attempts, with their error;
/// - `interlude:stats:transcodes`: transcodes started (counted by workers).
public final class RedisAdQueue: AdJobQueue, Sendable {
    /// The stream of jobs.
    public static let stream = "interlude:jobs"
    /// The consumer group of workers.
    public static let group = "workers"
    /// The dead-letter stream.
    public static let dead = "interlude:jobs:dead"
    /// Transcodes started, across workers.
    public static let transcodes = "interlude:stats:transcodes"

    let client: RedisClient

    /// A queue on the Redis at `url`.
    public init(url: String, timeout: Double = 2) throws {
        client = RedisClient(url: try RedisURL(url), connections: 2, timeout: timeout)
    }

    static func jobKey(_ h: String) -> String { "interlude:job:\(h)" }
    static func resultKey(_ h: String) -> String { "interlude:ad:\(h)" }
    static func attemptsKey(_ h: String) -> String { "interlude:attempts:\(h)" }
    static func errorKey(_ h: String) -> String { "interlude:error:\(h)" }

    /// Sets the job key NX and adds the job to the stream in one step (a script: both or neither).
    private static let enqueueScript = """
        if redis.call('SET', KEYS[1], '1', 'NX') then
          return redis.call('XADD', KEYS[2], '*', unpack(ARGV))
        end
        return false
        """

    /// The stream fields of `job`.
    static func fields(_ job: AdJobRequest) -> [String] {
        let r = job.rendition
        return ["url", job.url, "rendition", r.name, "width", String(r.width), "height", String(r.height),
                "vbr", String(r.videoBitrate), "abr", String(r.audioBitrate),
                "fr", r.frameRate.map { "\($0.numerator)/\($0.denominator)" } ?? "", "vc", r.videoCodec ?? "",
                "dd", String(r.decodeDelayTicks ?? 0), "target", "\(job.segmentTarget.value)/\(job.segmentTarget.timescale)", "local", job.allowLocal ? "1" : "0", "h", job.id]
    }

    /// A job back from its stream fields; nil when they do not make one (`parse`).
    static func job(fields: [String: String]) -> AdJobRequest? {
        if case .success(let job) = parse(fields: fields) { return job }
        return nil
    }

    /// A job back from its stream fields, validated as strictly as a request (an entry in Redis
    /// may be planted): every field present and numeric where it should be, the job acceptable
    /// (`AdJobRequest.problem`: the rung, the segment target, the media URL) and its `h` the id
    /// its fields make; else why not, in one line.
    static func parse(fields: [String: String]) -> Result<AdJobRequest, JobRefusal> {
        func int(_ k: String) -> Int? { fields[k].flatMap { $0.count <= 12 ? Int($0) : nil } }
        guard let url = fields["url"], let name = fields["rendition"], let w = int("width"), let h = int("height"),
              let vbr = int("vbr"), let abr = int("abr"), let t = fields["target"]?.split(separator: "/", omittingEmptySubsequences: false),
              t.count == 2, let tv = Int64(t[0]), let ts = Int64(t[1]), tv > 0, ts > 0, let local = fields["local"], local == "0" || local == "1" else {
            return .failure(JobRefusal(reason: "a field is missing or not a number"))
        }
        var rate: Rational?
        if let f = fields["fr"], !f.isEmpty {
            let p = f.split(separator: "/", omittingEmptySubsequences: false)
            guard p.count == 2, let n = Int64(p[0]), let d = Int64(p[1]), n > 0, d > 0 else { return .failure(JobRefusal(reason: "frame rate '\(f.prefix(40))'")) }
            rate = Rational(n, d)
        }
        let codec = fields["vc"].flatMap { $0.isEmpty ? nil : $0 }
        // the rung's decode delay (90 kHz): at most one second
        guard let delay = int("dd"), (0...90_000).contains(delay) else { return .failure(JobRefusal(reason: "decode delay '\(fields["dd"]?.prefix(20) ?? "")'")) }
        let rung = Rendition(name: name, width: w, height: h, videoBitrate: vbr, audioBitrate: abr, frameRate: rate, videoCodec: codec)
        let job = AdJobRequest(url: url, rendition: rung.serving(frameRate: rate, codecs: codec, decodeDelayTicks: Int64(delay)),
                               segmentTarget: MediaTime(value: tv, timescale: ts), allowLocal: local == "1")
        if let problem = job.problem { return .failure(JobRefusal(reason: problem)) }
        guard fields["h"] == job.id else { return .failure(JobRefusal(reason: "its id is not the one its fields make")) }
        return .success(job)
    }

    /// Why a stream entry is not a job.
    struct JobRefusal: Error { var reason: String }

    /// Enqueues `job` once across the fleet; its result when one is recorded.
    public func submit(_ job: AdJobRequest) throws -> AdJobResult? {
        if let r = try result(job) { return r }
        let h = job.id
        let reply = try client.command(["EVAL", RedisAdQueue.enqueueScript, "2", RedisAdQueue.jobKey(h), RedisAdQueue.stream] + RedisAdQueue.fields(job))
        if case .error(let e) = reply { throw RedisError.server(e) }
        return nil
    }

    /// The recorded result of `job`.
    public func result(_ job: AdJobRequest) throws -> AdJobResult? {
        let reply = try client.command("GET", RedisAdQueue.resultKey(job.id))
        if case .error(let e) = reply { throw RedisError.server(e) }
        return reply.text.flatMap(RedisAdQueue.parseResult)
    }

    /// Forgets `job`'s result and enqueue record.
    public func forget(_ job: AdJobRequest) throws {
        let h = job.id
        _ = try client.command("DEL", RedisAdQueue.resultKey(h), RedisAdQueue.jobKey(h), RedisAdQueue.attemptsKey(h), RedisAdQueue.errorKey(h))
    }

    /// `stored <prefix>` / `failed <code> <reason>`.
    static func parseResult(_ text: String) -> AdJobResult? {
        let parts = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
        if parts.count == 2, parts[0] == "stored" { return .stored(prefix: parts[1]) }
        if parts.count == 3, parts[0] == "failed", let code = Int(parts[1]) { return .failed(code: code, reason: parts[2]) }
        return nil
    }

    /// The text of a result.
    static func text(_ result: AdJobResult) -> String {
        switch result {
        case .stored(let prefix): "stored \(prefix)"
        case .failed(let code, let reason): "failed \(code) \(reason.replacingOccurrences(of: "\n", with: " "))"
        }
    }
}
