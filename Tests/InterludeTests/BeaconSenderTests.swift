import Ads
import Foundation
import Testing
import TestSupport
import Timing
@testable import Interlude

/// Live beacons against a loopback tracker that answers in every way a hostile one can: each
/// request is made once, the answer's status is kept, and its body is dropped unread past 1 MB
/// (never held, never decoded), so a tracker cannot fill the player's memory.
@Suite struct BeaconSenderTests {
    @Test func hostileAnswersAreDroppedAndEachBeaconIsSentOnce() async throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        server.route("/ok", .init(body: "fine"))
        server.route("/nc", .init(status: 204, body: ""))
        server.route("/gone", .init(status: 404, body: "no"))
        server.route("/moved", .redirect(to: "/ok?via=moved"))
        server.route("/huge", .generated(1 << 30))
        server.route("/endless", .generated(1 << 30, declaresLength: false))
        let bomb = try await HostileBodies.gzipBomb()
        server.route("/bomb", .init(status: 200, headers: ["Content-Type": "image/gif", "Content-Encoding": "gzip"], body: bomb))
        let sender = BeaconSender(timeout: 60)
        let paths = ["/ok", "/nc", "/gone", "/moved", "/huge", "/endless", "/bomb"]
        for p in paths {
            sender.fire(TrackedBeacon(event: "impression", streamTime: .zero, contentTime: .zero, url: server.url(p), adId: "a", breakId: "b"))
        }
        sender.fire(TrackedBeacon(event: "start", streamTime: .zero, contentTime: .zero, url: "file:///etc/passwd", adId: "a", breakId: "b"))
        let deadline = Date().addingTimeInterval(60)
        while sender.pending > 0, Date() < deadline { try await Task.sleep(nanoseconds: 10_000_000) }
        #expect(sender.pending == 0)
        let byPath = Dictionary(uniqueKeysWithValues: sender.outcomes.map { (URL(string: $0.url)?.path ?? $0.url, $0) })
        #expect(byPath["/ok"]?.status == 200 && byPath["/ok"]?.failure == nil)
        #expect(byPath["/nc"]?.status == 204 && byPath["/nc"]?.failure == nil, "an empty answer is an answer")
        #expect(byPath["/gone"]?.status == 404 && byPath["/gone"]?.failure == nil)
        #expect(byPath["/moved"]?.status == 200, "redirects to http(s) are followed")
        #expect(byPath["/huge"]?.failure?.contains("larger than 1048576 bytes") == true, "\(String(describing: byPath["/huge"]))")
        #expect(byPath["/endless"]?.failure?.contains("larger than 1048576 bytes") == true, "\(String(describing: byPath["/endless"]))")
        #expect(byPath["/bomb"]?.failure?.contains("Content-Encoding 'gzip' refused") == true, "\(String(describing: byPath["/bomb"]))")
        #expect(byPath["/etc/passwd"]?.failure == "not an http(s) URL; not fired")
        for p in paths { #expect(server.requests.filter { $0.target == p }.count == 1, "\(p) requested once") }
        #expect(server.requests.filter { $0.target == "/ok?via=moved" }.count == 1)
        // the endless answer was cut off near the cap, not read to its end
        #expect(server.bodyBytesSent("/endless") < 64 << 20, "\(server.bodyBytesSent("/endless") >> 20) MB sent")
    }
}
