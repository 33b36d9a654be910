import Foundation
import Interlude
import Testing
import Timing
import TestSupport
@testable import Playback

/// Issue 13, item 6: many short ads that each round to whole output frames do not drift — the
/// rounding is carried from ad to ad, as audio carries samples.
@Suite struct AdRoundingTests {
    @Test func sixShortAdsStayWithinHalfAFrameOfTheirSum() async throws {
        // 64 frames at 30 fps = 2.1333 s; at 25 fps that is 53.33 frames: each ad alone rounds
        // to 53 (-13 ms), six of them to 318 frames, 80 ms short of their 12.8 s.
        let ad = try await TestMedia.clip(sourceID: 7, width: 320, height: 180, fps: 30, seconds: 64.0 / 30, audio: true)
        let content = try await TestMedia.clip(sourceID: 1, width: 320, height: 180, fps: 25, seconds: 2)
        let media = try AdMediaProbe.measure(ad.path)
        #expect(media.frames == 64)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-rounding-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let req = StitchRequest(content: content.path, breaks: [AdBreakRequest(id: "pre", position: .start, ads: Array(repeating: ad.path, count: 6))],
                                output: dir.appendingPathComponent("o.nut").path, container: .nut)
        let r = try await offPool { try Stitcher(request: req).run() }
        let period = MediaTime(value: 1, timescale: 25)
        let ideal = media.duration * 6
        let adFrames = r.videoFrames - 50
        let alone = FrameSelection.frameCount(from: .zero, to: media.duration, period: period) * 6
        #expect(alone == 318, "each ad rounded alone")
        #expect(adFrames == 320, "the six ads fill \(adFrames) frames")
        let drift = period * adFrames - ideal
        #expect(drift * 2 <= period && period <= drift * 2 + period * 2, "drift \(drift.seconds) s within half a frame")
        #expect(r.breaks[0].ads.map(\.frames).reduce(0, +) == 320)
        #expect(r.audioSamples == r.format.sampleIndex(at: r.format.time(ofFrame: r.videoFrames)), "audio as long as video")
    }
}
