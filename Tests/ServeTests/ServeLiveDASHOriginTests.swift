import Foundation
@testable import Serve
import TestSupport
import Testing
import Threads
import Timing

/// A live DASH origin that misbehaves, followed by a `LiveChannel`: its MPD served here (the
/// test origin's, changed), its segments from the test origin (`LiveOrigin(dash: true)`).
/// A video segment waits for its sound to be listed; sound never listed is given up after
/// `fetchAttempts` × 2 polls (the segment taken with the sound there is, logged once); an MPD
/// that cannot be had or read fails that poll only (logged), the channel goes on.
@Suite(.serialized) struct ServeLiveDASHOriginTests {
    /// `mpd` with its audio SegmentTimeline cut to its first `keep` segments, and its BaseURL `origin` (absolute).
    static func changed(_ mpd: String, origin: String, audioKept keep: Int? = nil) -> String {
        var lines = mpd.components(separatedBy: "\n")
        lines = lines.map { $0 == "<BaseURL>dash/</BaseURL>" ? "<BaseURL>\(origin)</BaseURL>" : $0 }
        guard let keep, let audio = lines.firstIndex(where: { $0.contains("contentType=\"audio\"") }) else { return lines.joined(separator: "\n") }
        var seen = 0
        lines = lines.enumerated().compactMap { i, line in
            guard i > audio, line.hasPrefix("<S ") else { return line }
            seen += 1
            return seen <= keep ? line : nil
        }
        return lines.joined(separator: "\n")
    }

    @Test func aSegmentWaitsForItsSoundAndABadMPDFailsOnlyItsPoll() async throws {
        let media = try await offPool { try LiveOriginMedia.make(seconds: 30) }
        let origin = try LiveOrigin(media: media, windowSize: 6, initialSegments: 4, dash: true)
        defer { origin.stop() }
        let base = origin.url("/dash/")
        let server = try HTTPTestServer()
        defer { server.stop() }
        let mode = Locked("whole")
        server.setHandler { _ in
            let m = mode.withLock { $0 }
            switch m {
            case "gone": return HTTPTestServer.Response(status: 404, body: "gone", contentType: "text/plain")
            case "garbage": return HTTPTestServer.Response(body: "<MPD type=\"dynamic\"><Period><AdaptationSet", contentType: "application/dash+xml")
            case "behind": return HTTPTestServer.Response(headers: ["Content-Type": "application/dash+xml"],
                                                          body: Data(Self.changed(origin.mpd(), origin: base, audioKept: 2).utf8))
            default: return HTTPTestServer.Response(headers: ["Content-Type": "application/dash+xml"], body: Data(Self.changed(origin.mpd(), origin: base).utf8))
            }
        }
        let folder = StoreFixture.folder("live-dash-origin")
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = LineBox()
        let channel = try LiveChannel(name: "d", source: server.url("/live.mpd"), folder: folder, log: ServeLog { log.append($0) })
        func taken() async -> Int { await channel.window(rendition: "v0")?.segments.count ?? 0 }
        func faults(_ kind: String) -> Int { log.all.filter { $0.contains("\"live_origin_fault\"") && $0.contains("\"kind\":\"\(kind)\"") }.count }

        // a segment's sound ends a little past its last picture, in the next audio segment, which the
        // origin publishes with the next video segment: the newest video segment always waits a poll.
        // The sound of only the first two segments listed: the first taken, the others wait, no fault
        mode.withLock { $0 = "behind" }
        try await channel.poll()
        do { let n = await taken(); #expect(n == 1, "\(n) \(log.all)") }
        #expect(faults("segment_unavailable") == 0)
        // the sound comes: all but the newest taken
        mode.withLock { $0 = "whole" }
        try await channel.poll()
        do { let n = await taken(); #expect(n == 3, "\(n)") }
        // an MPD that is gone, then one that is not XML: that poll fails, logged, nothing lost
        for bad in ["gone", "garbage"] {
            mode.withLock { $0 = bad }
            origin.advance()
            await #expect(throws: (any Error).self) { try await channel.poll() }
            do { let n = await taken(); #expect(n == 3, "\(bad): \(n)") }
        }
        #expect(faults("playlist_unavailable") == 1, "logged once while it goes on: \(log.all)")
        mode.withLock { $0 = "whole" }
        try await channel.poll()
        do { let n = await taken(); #expect(n == 5, "\(n)") }
        // sound that never comes: the segment is taken with the sound there is after 6 polls, logged
        origin.advance()
        mode.withLock { $0 = "behind" }
        // (it waited once already, as the newest at the poll before)
        for _ in 0..<(LiveChannel.fetchAttempts * 2 - 2) { try await channel.poll() }
        do { let n = await taken(); #expect(n == 5, "still waiting: \(n)") }
        try await channel.poll()
        do { let n = await taken(); #expect(n == 6, "taken at last: \(n)") }
        #expect(faults("segment_unavailable") == 1, "\(log.all)")
        // every segment taken is MPEG-TS with the content's frames in order
        let w = try #require(await channel.window(rendition: "v0"))
        let first = w.segments.map(\.framePTS).flatMap { $0 }
        #expect(first == first.sorted() && first.count == 6 * 60, "\(first.count) frames")
    }
}
