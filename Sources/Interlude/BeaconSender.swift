import Foundation
import Playback
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fires tracking beacons over HTTP as they happen, the way a player does: each URL once, never
/// retried, off the frame loop (a request that hangs only ever holds its own task, up to the
/// timeout). Only `http` and `https` URLs are fired; anything else is recorded as refused.
public final class BeaconSender: @unchecked Sendable {
    // @unchecked Sendable: `log` is guarded by `lock`; the session is thread-safe.
    /// What became of one fired beacon.
    public struct Outcome: Sendable, Equatable {
        /// The beacon's URL.
        public var url: String
        /// Monotonic seconds (`monotonicSeconds()`) when the request was sent.
        public var sentAt: Double
        /// HTTP status, or nil when the request failed or was refused.
        public var status: Int?
        /// Why it failed, when it did.
        public var failure: String?
    }

    private let session: URLSession
    private let lock = NSLock()
    private var log: [Outcome] = []
    private var inFlight = 0

    /// A sender whose requests time out after `timeout` seconds.
    public init(timeout: Double = 5) {
        let config = URLSessionConfiguration.ephemeral
        config.timeoutIntervalForRequest = timeout
        config.timeoutIntervalForResource = timeout
        config.httpShouldSetCookies = false
        config.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: config)
    }

    /// Fires `beacon` once, now, without waiting for the answer.
    public func fire(_ beacon: TrackedBeacon) {
        let sent = monotonicSeconds()
        guard let url = URL(string: beacon.url), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            record(Outcome(url: beacon.url, sentAt: sent, status: nil, failure: "not an http(s) URL; not fired"))
            return
        }
        var request = URLRequest(url: url)
        request.httpMethod = "GET"
        lock.lock(); inFlight += 1; lock.unlock()
        session.dataTask(with: request) { [self] _, response, error in
            let status = (response as? HTTPURLResponse)?.statusCode
            record(Outcome(url: beacon.url, sentAt: sent, status: status, failure: error.map { "\($0.localizedDescription)" }))
            lock.lock(); inFlight -= 1; lock.unlock()
        }.resume()
    }

    private func record(_ o: Outcome) { lock.lock(); log.append(o); lock.unlock() }

    /// Beacons fired so far and what became of them (those still in flight are not listed yet).
    public var outcomes: [Outcome] { lock.lock(); defer { lock.unlock() }; return log }
    /// Requests not answered yet.
    public var pending: Int { lock.lock(); defer { lock.unlock() }; return inFlight }
}
