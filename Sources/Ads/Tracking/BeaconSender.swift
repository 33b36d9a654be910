import Foundation
import Threads
import Timing

/// Fires tracking beacons over HTTP as they happen, the way a player does: each URL once, never
/// retried, off the frame loop (a request that hangs only ever holds its own thread, up to the
/// timeout). Only `http` and `https` URLs are fired; anything else is recorded as refused. The
/// answer's body is read and dropped, at most 1 MB of it (a tracker's answer is hostile too:
/// it is never held, never decoded, and a longer one ends the request).
public final class BeaconSender: Sendable {
    /// What became of one fired beacon.
    package struct Outcome: Sendable, Equatable {
        /// The beacon's URL.
        package var url: String
        /// Monotonic seconds (`monotonicSeconds()`) when the request was sent.
        package var sentAt: Double
        /// HTTP status, or nil when the request failed or was refused.
        package var status: Int?
        /// Why it failed, when it did.
        package var failure: String?
    }

    private let timeout: Double
    /// What was fired: outcomes so far, requests not answered yet.
    private struct Log {
        var outcomes: [Outcome] = []
        var inFlight = 0
    }
    private let log = Locked(Log())

    /// A sender whose requests time out after `timeout` seconds.
    package init(timeout: Double = 5) {
        self.timeout = timeout
        HTTPStream.prepare()   // not in the first beacon's time
    }

    /// Fires `beacon` once, now, without waiting for the answer.
    package func fire(_ beacon: TrackedBeacon) {
        let sent = monotonicSeconds()
        guard let url = URL(string: beacon.url), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            record(Outcome(url: beacon.url, sentAt: sent, status: nil, failure: "not an http(s) URL; not fired"))
            return
        }
        log.withLock { $0.inFlight += 1 }
        HTTPStream.send(url, timeout: timeout) { [self] result in
            switch result {
            case .success(let status), .failure(.httpStatus(let status)):
                record(Outcome(url: beacon.url, sentAt: sent, status: status, failure: nil))
            case .failure(let error):
                record(Outcome(url: beacon.url, sentAt: sent, status: nil, failure: error.description))
            }
            log.withLock { $0.inFlight -= 1 }
        }
    }

    private func record(_ o: Outcome) { log.withLock { $0.outcomes.append(o) } }

    /// Beacons fired so far and what became of them (those still in flight are not listed yet).
    package var outcomes: [Outcome] { log.withLock { $0.outcomes } }
    /// Requests not answered yet.
    package var pending: Int { log.withLock { $0.inFlight } }
}
