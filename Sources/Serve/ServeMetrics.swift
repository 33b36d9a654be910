import Foundation

/// A Prometheus histogram: cumulative buckets, sum and count. Not thread-safe on its own
/// (`ServeMetrics` guards it).
struct Histogram {
    let bounds: [Double]
    var counts: [Int]
    var sum = 0.0
    var count = 0

    init(bounds: [Double]) { self.bounds = bounds; counts = Array(repeating: 0, count: bounds.count) }

    mutating func observe(_ v: Double) {
        for (i, b) in bounds.enumerated() where v <= b { counts[i] += 1 }
        sum += v; count += 1
    }

    func lines(_ name: String, _ help: String) -> [String] {
        var out = ["# HELP \(name) \(help)", "# TYPE \(name) histogram"]
        for (i, b) in bounds.enumerated() { out.append("\(name)_bucket{le=\"\(b)\"} \(counts[i])") }
        out += ["\(name)_bucket{le=\"+Inf\"} \(count)", "\(name)_sum \(sum)", "\(name)_count \(count)"]
        return out
    }
}

/// The service's counters, exported as Prometheus text at `/metrics`. Thread-safe.
public final class ServeMetrics: @unchecked Sendable {
    // @unchecked Sendable: every field is touched under `lock`.
    private let lock = NSLock()
    private var playlist = Histogram(bounds: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25, 1, 5])
    private var ads = Histogram(bounds: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8])
    private var adsErrors = 0
    private var sessionsCreated = 0
    private var sessionsExpired = 0
    private var requests: [Int: Int] = [:]
    private var beaconsFired = 0
    private var liveAvails = 0
    private var prefetchDelay = Histogram(bounds: [0, 0.5, 1, 2, 4, 8, 15, 30, 60])
    private var liveAdSeconds = 0.0
    private var liveSlateSeconds = 0.0

    /// Empty counters.
    public init() {}

    /// A playlist answered in `seconds`.
    public func playlistServed(_ seconds: Double) { lock.lock(); playlist.observe(seconds); lock.unlock() }
    /// An ADS request took `seconds`; `failed` when it gave nothing usable.
    public func adsRequest(_ seconds: Double, failed: Bool) {
        lock.lock(); ads.observe(seconds); if failed { adsErrors += 1 }; lock.unlock()
    }
    /// A session was created.
    public func sessionCreated() { lock.lock(); sessionsCreated += 1; lock.unlock() }
    /// `n` sessions expired.
    public func sessionsExpired(_ n: Int) { lock.lock(); sessionsExpired += n; lock.unlock() }
    /// A response went out with `status`.
    public func answered(_ status: Int) { lock.lock(); requests[status, default: 0] += 1; lock.unlock() }
    /// `n` server-side beacons were fired.
    public func beacons(_ n: Int) { lock.lock(); beaconsFired += n; lock.unlock() }

    /// A live viewer met a break (one ad request).
    public func liveAvail() { lock.lock(); liveAvails += 1; lock.unlock() }
    /// A live break's ad request was held `seconds` after the break was seen (prefetch spreading).
    public func liveRequestDelayed(_ seconds: Double) { lock.lock(); prefetchDelay.observe(seconds); lock.unlock() }
    /// Live break time published to a viewer: seconds of ads and of slate.
    public func liveBreakTime(ad: Double, slate: Double) {
        lock.lock(); liveAdSeconds += ad; liveSlateSeconds += slate; lock.unlock()
    }
    /// Live: seconds of ads and slate published so far.
    public var liveSeconds: (ads: Double, slate: Double) { lock.lock(); defer { lock.unlock() }; return (liveAdSeconds, liveSlateSeconds) }

    /// The exposition text, with the live gauges passed in (`breaksSeen`: per live channel, the
    /// breaks it signalled).
    public func text(sessions: Int, queue: Int, storeBytes: Int64, encodes: [String: Int], breaksSeen: [String: Int] = [:]) -> String {
        lock.lock(); defer { lock.unlock() }
        var l: [String] = []
        l += ["# HELP interlude_serve_sessions Sessions held now.", "# TYPE interlude_serve_sessions gauge", "interlude_serve_sessions \(sessions)"]
        l += ["# HELP interlude_serve_sessions_created_total Sessions created.", "# TYPE interlude_serve_sessions_created_total counter",
              "interlude_serve_sessions_created_total \(sessionsCreated)"]
        l += ["# HELP interlude_serve_sessions_expired_total Sessions dropped after their idle time.",
              "# TYPE interlude_serve_sessions_expired_total counter", "interlude_serve_sessions_expired_total \(sessionsExpired)"]
        l += playlist.lines("interlude_serve_playlist_seconds", "Time to answer a media or master playlist.")
        l += ads.lines("interlude_serve_ads_request_seconds", "Time the ad decision server took (wrappers included).")
        l += ["# HELP interlude_serve_ads_errors_total ADS requests that failed (timeout, dead, not VAST/VMAP).",
              "# TYPE interlude_serve_ads_errors_total counter", "interlude_serve_ads_errors_total \(adsErrors)"]
        l += ["# HELP interlude_serve_beacons_fired_total Server-side beacons fired.", "# TYPE interlude_serve_beacons_fired_total counter",
              "interlude_serve_beacons_fired_total \(beaconsFired)"]
        l += ["# HELP interlude_serve_transcode_queue Encodes queued or running in the store.", "# TYPE interlude_serve_transcode_queue gauge",
              "interlude_serve_transcode_queue \(queue)"]
        l += ["# HELP interlude_serve_encodes_total Encodes started since launch, by kind.", "# TYPE interlude_serve_encodes_total counter"]
        for (kind, n) in encodes.sorted(by: { $0.key < $1.key }) { l.append("interlude_serve_encodes_total{kind=\"\(kind)\"} \(n)") }
        l += ["# HELP interlude_serve_store_bytes Bytes held in the store.", "# TYPE interlude_serve_store_bytes gauge",
              "interlude_serve_store_bytes \(storeBytes)"]
        if !breaksSeen.isEmpty || liveAvails > 0 {
            l += ["# HELP interlude_live_breaks_seen_total Breaks a live channel signalled.", "# TYPE interlude_live_breaks_seen_total counter"]
            for (c, n) in breaksSeen.sorted(by: { $0.key < $1.key }) { l.append("interlude_live_breaks_seen_total{channel=\"\(c)\"} \(n)") }
            l += ["# HELP interlude_live_avails_total Breaks met by live viewers (one ad request each).",
                  "# TYPE interlude_live_avails_total counter", "interlude_live_avails_total \(liveAvails)"]
            l += prefetchDelay.lines("interlude_live_ads_request_delay_seconds",
                                     "How long after a live break was seen each viewer's ad request went out (prefetch spreading).")
            l += ["# HELP interlude_live_ad_seconds_total Seconds of ads published in live viewers' breaks.",
                  "# TYPE interlude_live_ad_seconds_total counter", "interlude_live_ad_seconds_total \(liveAdSeconds)"]
            l += ["# HELP interlude_live_slate_seconds_total Seconds of slate published in live viewers' breaks.",
                  "# TYPE interlude_live_slate_seconds_total counter", "interlude_live_slate_seconds_total \(liveSlateSeconds)"]
            let total = liveAdSeconds + liveSlateSeconds
            l += ["# HELP interlude_live_fill_rate Share of live break time filled with ads (ads / (ads + slate)).",
                  "# TYPE interlude_live_fill_rate gauge", "interlude_live_fill_rate \(total > 0 ? liveAdSeconds / total : 0)"]
        }
        l += ["# HELP interlude_serve_responses_total Responses by status.", "# TYPE interlude_serve_responses_total counter"]
        for (status, n) in requests.sorted(by: { $0.key < $1.key }) { l.append("interlude_serve_responses_total{status=\"\(status)\"} \(n)") }
        return l.joined(separator: "\n") + "\n"
    }
}
