import Foundation
import Serve
import TestSupport
import Testing
import Timing

/// What a session's playlist is made of — a content head, an ad, the content's tail — played by
/// strict clients: GStreamer plays the shared bytes as they are (each run on its own clock after
/// `EXT-X-DISCONTINUITY`); with the ad and the tail moved onto the session's stream clock
/// (`TSTimestamps.shifted`), `ffmpeg -xerror` plays it too.
@Suite(.serialized) struct ServeStoreSessionPlayTests {
    @Test func headAdAndTailPlayInStrictClients() async throws {
        let root = StoreFixture.folder("session")
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try HTTPTestServer()
        server.route("/ad.mp4", HTTPTestServer.Response(headers: ["Content-Type": "video/mp4"],
                                                        body: try Data(contentsOf: try ServeStoreAdTests.adClip())))
        let store = try StoreFixture.store(root)
        let cut = try await store.cut("c", rendition: "180p", at: [ServeStoreCutTests.cue])
        guard case .ready(let ad, let adDuration) = try await ServeStoreAdTests.settled(store, server.url("/ad.mp4"), "180p") else {
            Issue.record("the ad did not become ready"); return
        }
        let cue = cut.cues[0]
        let adStart = TSTimestamps.firstVideoPTS(try Data(contentsOf: store.file(forSegment: ad[0].path)!))! - TSTimestamps.muxerOffset
        #expect(adStart >= .zero && adStart < MediaTime(value: 1, timescale: 2), "an ad's clock starts near 0")
        func playlist(_ name: String, retimed: Bool) throws -> URL {
            let folder = root.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            var lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:2", "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:VOD"]
            let runs: [([StoredSegment], MediaTime)] = [(cut.runs[0], .zero), (ad, cue - adStart), (cut.runs[1], adDuration)]
            for (i, (run, offset)) in runs.enumerated() {
                if i > 0 { lines.append("#EXT-X-DISCONTINUITY") }
                for (j, s) in run.enumerated() {
                    let name = "r\(i)s\(j).ts"
                    let data = try Data(contentsOf: store.file(forSegment: s.path)!)
                    try (retimed ? TSTimestamps.shifted(data, by: offset) : data).write(to: folder.appendingPathComponent(name))
                    lines += [String(format: "#EXTINF:%.6f,", s.duration.seconds), name]
                }
            }
            lines.append("#EXT-X-ENDLIST")
            let url = folder.appendingPathComponent("index.m3u8")
            try (lines.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
            return url
        }
        let shared = try playlist("shared", retimed: false)
        #expect(try HLSPackageCheck.continuityProblems(shared) == [])
        let gst = try await FieldCheck.check(shared, with: .gstreamer)
        #expect(gst.clean, "\(gst.report)")
        let retimed = try playlist("retimed", retimed: true)
        #expect(try HLSPackageCheck.continuityProblems(retimed) == [])
        let problems = try await HLSPackageCheck.clientProblems(retimed)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        // the tail's first frame is the cue frame, at the session's stream time cue + ad
        let tail = root.appendingPathComponent("retimed/r2s0.ts")
        #expect(try HLSPackageCheck.firstVideoFramePTS(tail) == (cue + adDuration + TSTimestamps.muxerOffset).rescaled(to: 90_000).value)
        let frames = try await MediaVerifier.videoFrames(tail, reader: IdentityReader(output: PixelSize(width: 320, height: 180), sources: []))
        #expect(frames.first?.identity == FrameIdentity(sourceID: 3, frameIndex: 47))
    }
}
