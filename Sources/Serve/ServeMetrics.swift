import Foundation
import Threads

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
public final class ServeMetrics: Sendable {
    /// Every counter and histogram, under one lock.
    private struct Counters {
        var playlist = Histogram(bounds: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25, 1, 5])
        var ads = Histogram(bounds: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8])
        var adsErrors = 0
        var sessionsCreated = 0
        var sessionsExpired = 0
        var requests: [Int: Int] = [:]
        var beaconsFired = 0
        var liveAvails = 0
        var prefetchDelay = Histogram(bounds: [0, 0.5, 1, 2, 4, 8, 15, 30, 60])
        var liveAdSeconds = 0.0
        var liveSlateSeconds = 0.0
    }
    private let counters = Locked(Counters())

    /// Empty counters.
    public init() {}

    /// A playlist answered in `seconds`.
    public func playlistServed(_ seconds: Double) { counters.withLock { $0.playlist.observe(seconds) } }
    /// An ADS request took `seconds`; `failed` when it gave nothing usable.
    public func adsRequest(_ seconds: Double, failed: Bool) {
        counters.withLock { c in c.ads.observe(seconds); if failed { c.adsErrors += 1 } }
    }
    /// A session was created.
    public func sessionCreated() { counters.withLock { $0.sessionsCreated += 1 } }
    /// `n` sessions expired.
    public func sessionsExpired(_ n: Int) { counters.withLock { $0.sessionsExpired += n } }
    /// A response went out with `status`.
    public func answered(_ status: Int) { counters.withLock { $0.requests[status, default: 0] += 1 } }
    /// `n` server-side beacons were fired.
    public func beacons(_ n: Int) { counters.withLock { $0.beaconsFired += n } }

    /// A live viewer met a break (one ad request).
    public func liveAvail() { counters.withLock { $0.liveAvails += 1 } }
    /// A live break's ad request was held `seconds` after the break was seen (prefetch spreading).
    public func liveRequestDelayed(_ seconds: Double) { counters.withLock { $0.prefetchDelay.observe(seconds) } }
    /// Live break time published to a viewer: seconds of ads and of slate.
    public func liveBreakTime(ad: Double, slate: Double) {
        counters.withLock { c in c.liveAdSeconds += ad; c.liveSlateSeconds += slate }
    }
    /// Live: seconds of ads and slate published so far.
    public var liveSeconds: (ads: Double, slate: Double) { counters.withLock { ($0.liveAdSeconds, $0.liveSlateSeconds) } }

    /// The exposition text, with the live gauges passed in (`breaksSeen`: per live channel, the
    /// breaks it signalled).
    public func text(sessions: Int, queue: Int, storeBytes: Int64, encodes: [String: Int], breaksSeen: [String: Int] = [:]) -> String {
        counters.withLock { c in text(c, sessions: sessions, queue: queue, storeBytes: storeBytes, encodes: encodes, breaksSeen: breaksSeen) }
    }

    /// `text`, from the counters `c` (read under the lock).
    private func text(_ c: Counters, sessions: Int, queue: Int, storeBytes: Int64, encodes: [String: Int], breaksSeen: [String: Int]) -> String {
        var l: [String] = []
        l += ["# HELP interlude_serve_sessions Sessions held now.", "# TYPE interlude_serve_sessions gauge", "interlude_serve_sessions \(sessions)"]
        l += ["# HELP interlude_serve_sessions_created_total Sessions created.", "# TYPE interlude_serve_sessions_created_total counter",
              "interlude_serve_sessions_created_total \(c.sessionsCreated)"]
        l += ["# HELP interlude_serve_sessions_expired_total Sessions dropped after their idle time.",
              "# TYPE interlude_serve_sessions_expired_total counter", "interlude_serve_sessions_expired_total \(c.sessionsExpired)"]
        l += c.playlist.lines("interlude_serve_playlist_seconds", "Time to answer a media or master playlist.")
        l += c.ads.lines("interlude_serve_ads_request_seconds", "Time the ad decision server took (wrappers included).")
        l += ["# HELP interlude_serve_ads_errors_total ADS requests that failed (timeout, dead, not VAST/VMAP).",
              "# TYPE interlude_serve_ads_errors_total counter", "interlude_serve_ads_errors_total \(c.adsErrors)"]
        l += ["# HELP interlude_serve_beacons_fired_total Server-side beacons fired.", "# TYPE interlude_serve_beacons_fired_total counter",
              "interlude_serve_beacons_fired_total \(c.beaconsFired)"]
        l += ["# HELP interlude_serve_transcode_queue Encodes queued or running in the store.", "# TYPE interlude_serve_transcode_queue gauge",
              "interlude_serve_transcode_queue \(queue)"]
        l += ["# HELP interlude_serve_encodes_total Encodes started since launch, by kind.", "# TYPE interlude_serve_encodes_total counter"]
        for (kind, n) in encodes.sorted(by: { $0.key < $1.key }) { l.append("interlude_serve_encodes_total{kind=\"\(kind)\"} \(n)") }
        l += ["# HELP interlude_serve_store_bytes Bytes held in the store.", "# TYPE interlude_serve_store_bytes gauge",
              "interlude_serve_store_bytes \(storeBytes)"]
        if !breaksSeen.isEmpty || c.liveAvails > 0 {
            l += ["# HELP interlude_live_breaks_seen_total Breaks a live channel signalled.", "# TYPE interlude_live_breaks_seen_total counter"]
            for (channel, n) in breaksSeen.sorted(by: { $0.key < $1.key }) { l.append("interlude_live_breaks_seen_total{channel=\"\(channel)\"} \(n)") }
            l += ["# HELP interlude_live_avails_total Breaks met by live viewers (one ad request each).",
                  "# TYPE interlude_live_avails_total counter", "interlude_live_avails_total \(c.liveAvails)"]
            l += c.prefetchDelay.lines("interlude_live_ads_request_delay_seconds",
                                       "How long after a live break was seen each viewer's ad request went out (prefetch spreading).")
            l += ["# HELP interlude_live_ad_seconds_total Seconds of ads published in live viewers' breaks.",
                  "# TYPE interlude_live_ad_seconds_total counter", "interlude_live_ad_seconds_total \(c.liveAdSeconds)"]
            l += ["# HELP interlude_live_slate_seconds_total Seconds of slate published in live viewers' breaks.",
                  "# TYPE interlude_live_slate_seconds_total counter", "interlude_live_slate_seconds_total \(c.liveSlateSeconds)"]
            let total = c.liveAdSeconds + c.liveSlateSeconds
            l += ["# HELP interlude_live_fill_rate Share of live break time filled with ads (ads / (ads + slate)).",
                  "# TYPE interlude_live_fill_rate gauge", "interlude_live_fill_rate \(total > 0 ? c.liveAdSeconds / total : 0)"]
        }
        l += ["# HELP interlude_serve_responses_total Responses by status.", "# TYPE interlude_serve_responses_total counter"]
        for (status, n) in c.requests.sorted(by: { $0.key < $1.key }) { l.append("interlude_serve_responses_total{status=\"\(status)\"} \(n)") }
        return l.joined(separator: "\n") + "\n"
    }
}
