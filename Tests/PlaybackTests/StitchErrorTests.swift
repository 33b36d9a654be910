import Foundation
import Interlude
import Testing
import Timing
import TestSupport
@testable import Playback

/// Bad input: a clear error and no partial output for the content and output; ads that cannot be
/// used are left out of their pod and reported, and the stitch goes on.
@Suite struct StitchErrorTests {
    let dir: URL = {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-errors-\(getpid())-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }()

    func leftovers() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
    }

    func request(content: String = TestMedia.Sample.content.url.path, breaks: [AdBreakRequest] = [],
                 output: String? = nil, overwrite: Bool = true) -> StitchRequest {
        StitchRequest(content: content, breaks: breaks, output: output ?? dir.appendingPathComponent("out.mp4").path,
                      overwrite: overwrite)
    }

    @Test func failingAdsAreLeftOutAndReported() async throws {
        let ads = ["/nonexistent/ad.mp4", TestMedia.Sample.badGarbage.url.path, TestMedia.Sample.badTruncated.url.path,
                   TestMedia.Sample.audioOnly.url.path, TestMedia.Sample.adMatching.url.path]
        let req = request(breaks: [AdBreakRequest(id: "mid", position: .time(MediaTime(seconds: 10)), ads: ads)])
        let r = try await offPool { try Stitcher(request: req).run() }
        #expect(r.issues.map(\.code) == [401, 405, 405, 403])
        #expect(r.issues.allSatisfy { $0.breakId == "mid" && $0.mediaFile != nil && !$0.message.contains("\n") })
        #expect(r.breaks.first?.ads.map(\.mediaFile) == [TestMedia.Sample.adMatching.url.path])
        #expect(r.breaks.first?.ads.first?.totalAds == 1)
        #expect(r.videoFrames == 1200 + 180)
        let frames = try await MediaVerifier.videoFrames(dir.appendingPathComponent("out.mp4"))
        #expect(MediaVerifier.segments(frames).map(\.sourceID) == [1, 2, 1])
        // one report type: an app's schedule keeps its keys (mode, media-file errors), no manager's account
        #expect(r.schedule == .app && r.events.isEmpty && r.playedBreaks.isEmpty)
        let report = StitchReport(r)
        #expect(report.events == nil && report.beacons == nil && report.cuePoints == nil && report.companions == nil)
        #expect(report.breaks.first?.mode == "standard" && report.breaks.first?.breakId == nil)
        #expect(report.errors.map(\.mediaFile) == ads.prefix(4).map { Optional($0) })
    }

    @Test func aBreakWhoseAdsAllFailResumesContent() async throws {
        let req = request(breaks: [AdBreakRequest(id: "pre", position: .start, ads: [TestMedia.Sample.badGarbage.url.path])])
        let r = try await offPool { try Stitcher(request: req).run() }
        #expect(r.videoFrames == 1200)
        #expect(r.breaks.first?.duration == .zero)
        #expect(r.issues.count == 1)
    }

    @Test func missingContentFailsWithoutOutput() {
        #expect(throws: StitchFailure.self) { try Stitcher(request: request(content: "/nonexistent/content.mp4")).run() }
        #expect(leftovers().isEmpty)
    }

    @Test func corruptContentFails() {
        do {
            _ = try Stitcher(request: request(content: TestMedia.Sample.badGarbage.url.path)).run()
            Issue.record("expected a failure")
        } catch let e as StitchFailure {
            guard case .contentUnreadable(let m) = e else { Issue.record("wrong failure \(e)"); return }
            #expect(m.contains("bad-garbage.mp4") && !m.contains("\n"))
        } catch { Issue.record("unexpected \(error)") }
        #expect(leftovers().isEmpty)
    }

    @Test func contentWithoutVideoFails() {
        #expect(throws: StitchFailure.contentHasNoVideo(TestMedia.Sample.audioOnly.url.path)) {
            try Stitcher(request: request(content: TestMedia.Sample.audioOnly.url.path)).run()
        }
    }

    @Test func cuePastTheEndFails() {
        let b = AdBreakRequest(id: "x", position: .time(MediaTime(seconds: 40)), ads: [TestMedia.Sample.adMatching.url.path])
        #expect(throws: StitchFailure.cuePastEnd(cue: MediaTime(seconds: 40), duration: MediaTime(seconds: 40))) {
            try Stitcher(request: request(breaks: [b])).run()
        }
        #expect(leftovers().isEmpty)
    }

    @Test func existingOutputNeedsOverwrite() throws {
        let out = dir.appendingPathComponent("exists.mp4")
        try Data("keep me".utf8).write(to: out)
        #expect(throws: StitchFailure.outputExists(out.path)) {
            try Stitcher(request: request(output: out.path, overwrite: false)).run()
        }
        #expect(try Data(contentsOf: out) == Data("keep me".utf8))
    }

    @Test func unwritableOutputFails() {
        #expect(throws: StitchFailure.self) {
            try Stitcher(request: request(output: "/nonexistent-dir/out.mp4")).run()
        }
    }

    @Test func mp4CannotGoToStandardOutput() {
        #expect(throws: StitchFailure.self) { try Stitcher(request: request(output: "-")).run() }
    }
}
