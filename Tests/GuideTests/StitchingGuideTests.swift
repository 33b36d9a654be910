import Foundation
import Interlude
import Testing
import TestSupport

/// The Stitching article's code (`Interlude.docc/Stitching.md`): one entry point,
/// `stitch(_:breaks:options:)`, with breaks the app schedules and with an ad tag, from
/// `import Interlude` alone. Each output holds the content once, in order, with the ad before it.
@Suite struct StitchingGuideTests {
    static func folder() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-stitching-guide-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// The sources of the output's frames: content (source 1) once and in order, the ad (source 7) first.
    static func check(_ out: URL, adFrames: Int) async throws {
        let frames = try await MediaVerifier.videoFrames(out, reader: IdentityReader(output: PixelSize(width: 320, height: 180),
                                                                                sources: [PixelSize(width: 320, height: 180)]))
        let segments = MediaVerifier.segments(frames)
        #expect(segments.map(\.sourceID) == [7, 1], "\(segments)")
        #expect(segments.first?.lastFrame == adFrames - 1 && segments.last?.firstFrame == 0 && segments.last?.lastFrame == 49, "\(segments)")
        #expect(segments.allSatisfy { $0.skips == 0 && $0.repeats == 0 }, "\(segments)")
    }

    @Test func breaksTheAppSchedules() async throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let content = try await TestMedia.clip(sourceID: 1, width: 320, height: 180, fps: 25, seconds: 2)
        let ad = try await TestMedia.clip(sourceID: 7, width: 320, height: 180, fps: 25, seconds: 1)
        let out = dir.appendingPathComponent("out.nut")
        var request = StitchRequest(content: content.path, breaks: [], output: out.path, container: .nut)
        request.overwrite = true
        let result = try await stitch(request, breaks: .media([AdBreakRequest(id: "pre", position: .start, ads: [ad.path])]))
        #expect(result.errors.isEmpty, "\(result.errors)")
        try await Self.check(out, adFrames: 25)
    }

    @Test func anAdTag() async throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let content = try await TestMedia.clip(sourceID: 1, width: 320, height: 180, fps: 25, seconds: 2)
        let ad = try await TestMedia.clip(sourceID: 7, width: 320, height: 180, fps: 25, seconds: 1)
        let vast = """
            <VAST version="3.0"><Ad id="pre"><InLine><AdSystem>T</AdSystem><AdTitle>pre</AdTitle>
            <Creatives><Creative><Linear><Duration>00:00:01</Duration>
            <MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="320" height="180"><![CDATA[\(ad.path)]]></MediaFile></MediaFiles>
            </Linear></Creative></Creatives></InLine></Ad></VAST>
            """
        let tag = dir.appendingPathComponent("vast.xml")
        try Data(vast.utf8).write(to: tag)
        let out = dir.appendingPathComponent("out.nut")
        let request = StitchRequest(content: content.path, breaks: [], output: out.path, container: .nut)
        var options = StitchOptions()
        options.cache = AdMediaCache(directory: dir.appendingPathComponent("cache"))
        options.drawsDefaultAdUI = false
        let result = try await stitch(request, breaks: .adTag(tag.path), options: options)
        #expect(result.errors.isEmpty, "\(result.errors)")
        try await Self.check(out, adFrames: 25)
    }
}
