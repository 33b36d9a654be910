import Foundation
@testable import Serve
import TestSupport
import Testing
import Timing

/// `LiveChannel` following a sliding playlist served from 127.0.0.1 (segments: the shared
/// SCTE-35 sample TS), polled step by step: the window follows the origin, segments are fetched
/// once and removed after the margin, breaks come from the markers and the in-band cues.
@Suite struct ServeLiveSourceTests {
    static func playlist(first: Int, count: Int = 5, ended: Bool = false) -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:2", "#EXT-X-MEDIA-SEQUENCE:\(first)"]
        for n in first..<(first + count) {
            if n == 3 { lines.append("#EXT-X-CUE-OUT:DURATION=4") }
            if n == 5 { lines.append("#EXT-X-CUE-IN") }
            lines += ["#EXTINF:2.000,", "s\(n).ts"]
        }
        if ended { lines.append("#EXT-X-ENDLIST") }
        return lines.joined(separator: "\n") + "\n"
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: ServeLiveSignalTests.sample), "needs the shared sample TS"))
    func followsSlidingPlaylist() async throws {
        let origin = try HTTPTestServer()
        let ts = try Data(contentsOf: URL(fileURLWithPath: ServeLiveSignalTests.sample))
        for n in 0..<20 { origin.route("/s\(n).ts", .init(headers: ["Content-Type": "video/mp2t"], body: ts)) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("live-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let channel = try LiveChannel(name: "ch1", source: origin.url("/live.m3u8"), folder: folder, history: MediaTime(seconds: 4))
        for first in 0...10 {
            origin.route("/live.m3u8", body: Self.playlist(first: first, ended: first == 10))
            try await channel.poll()
            let w = try #require(await channel.window(rendition: "main"))
            #expect(w.segments.map(\.sequence) == Array(max(0, first - 2)..<(first + 5)), "the origin's window and 4 s before it")
            #expect(w.targetDuration == MediaTime(seconds: 2) && w.ended == (first == 10))
            for s in w.segments {
                #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(s.storePath).path))
            }
            if first == 1 {
                // Each segment is the sample, so each carries its in-band splice 100 (one break,
                // deduped by event id); the playlist's CUE-OUT at 3 and CUE-IN at 5 make another.
                #expect(w.breaks.map(\.id) == ["splice-100", "cue-3"])
                #expect(w.breaks.first?.startPTS == 200_000 && w.breaks.first?.endPTS == 300_000)
                #expect(w.breaks.last?.startSequence == 3 && w.breaks.last?.plannedDuration == MediaTime(seconds: 4))
                #expect(w.breaks.last?.endPTS == w.segments.first { $0.sequence == 5 }?.firstPTS)
            }
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("live/ch1/\(channel.intake)/main").path)
                .filter { !$0.hasPrefix(".") && $0 != "init.ts" }
            #expect(files.count == min(first, 2) + 5, "kept \(files.sorted())")
            // the first segment stays as the rendition's initialization source (CMAF playlists' one map)
            let kept = folder.appendingPathComponent(LiveSegment.initializationPath(channel: channel.storeName, rendition: "main"))
            #expect(try Data(contentsOf: kept) == ts, "init.ts is the channel's first segment")
        }
        #expect(await channel.renditionNames == ["main"])
        #expect(await channel.window(rendition: "v9") == nil)
    }
}
