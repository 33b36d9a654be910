import Foundation
import Testing
import Timing
import TestSupport
import Playback
@testable import Interlude

/// `stitch --ads … --format hls` against the loopback ad server: the package's per-ad markers
/// carry the VAST `<Ad id>` of each ad played (not its media file's name), in play order, and the
/// failed ad of the second mid-roll has none.
@MainActor @Suite(.serialized) struct TagStitchHLSTests {
    @Test func adMarkersCarryTheVASTAdIDs() async throws {
        let server = try AdServerFixture.start()
        defer { server.stop() }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-tag-hls-\(getpid())")
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let pkg = dir.appendingPathComponent("pkg")
        let stitcher = TagStitcher(output: StitchRequest(content: TestMedia.Sample.content.url.path, breaks: [], output: pkg.path,
                                                         container: .hls, encoder: EncoderSettings(preset: "ultrafast", crf: 30),
                                                         overwrite: true),
                                   adTag: server.url("/vmap.xml"))
        stitcher.cache = AdMediaCache(directory: dir.appendingPathComponent("cache"))
        stitcher.cache.preloadTimeout = 600   // wall time across main-actor hops on a loaded machine; not what this tests
        let result = try await stitcher.run()
        let playlist = try String(contentsOf: pkg.appendingPathComponent("index.m3u8"), encoding: .utf8)
        let ranges = playlist.split(separator: "\n").filter { $0.contains("CLASS=\"com.interlude.ad\"") }
        let ids = ranges.compactMap { line -> String? in
            guard let r = line.range(of: "X-AD-ID=\"") else { return nil }
            return String(line[r.upperBound...].prefix { $0 != "\"" })
        }
        // pre (through two wrappers: the inline's id) | mid1: a, b | mid2: the corrupt one fails, b | post
        #expect(ids == ["pre", "mid1-a", "mid1-b", "mid2-b", "post"], "\(ranges)")
        #expect(ids == result.playedBreaks.flatMap { $0.ads.map(\.ad.adId) })
        #expect(!playlist.contains(".mp4\""), "no media file name in the markers")
    }
    /// The demo (`make demo`'s content and ad rules, Media/demo-vmap.xml) as an HLS package, the
    /// way a user first packages: every segment of a run continues one transport stream,
    /// `ffmpeg -xerror` and GStreamer's playbin play it with no complaint, and each SCTE-35 splice
    /// time (threefive) is the PTS of its splice frame in the segments.
    @Test func demoPackagePlaysInStrictClientsWithSpliceTimesOnTheSegmentsClock() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-demo-hls-\(getpid())")
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let pkg = dir.appendingPathComponent("pkg")
        let stitcher = TagStitcher(output: StitchRequest(content: TestMedia.Sample.content.url.path, breaks: [], output: pkg.path,
                                                         container: .hls, encoder: EncoderSettings(preset: "ultrafast", crf: 30)),
                                   adTag: TestMedia.url("demo-vmap.xml").path)
        stitcher.cache = AdMediaCache(directory: dir.appendingPathComponent("cache"))
        let result = try await stitcher.run()
        #expect(result.playedBreaks.map(\.ads.count) == [1, 2, 1, 1])
        let playlist = pkg.appendingPathComponent("index.m3u8")
        // pre | content | mid-1: two ads | content | mid-2 | content | post
        let (entries, _) = try HLSPackageCheck.entries(playlist)
        #expect(entries.filter(\.discontinuity).count == 7)
        let continuity = try HLSPackageCheck.continuityProblems(playlist)
        #expect(continuity.isEmpty, "\(continuity.prefix(5)) (\(continuity.count) in all)")
        // OUT at each of the 4 breaks, IN before the content after the first 3 (the post-roll's is after the last segment)
        let scte = try HLSPackageCheck.scte35Problems(playlist)
        #expect(scte.checked == 7 && scte.problems.isEmpty, "\(scte)")
        #expect(try await HLSPackageCheck.clientProblems(playlist) == [])
        FieldCheck.keep(playlist, gstreamer: true)
    }
}
