import Foundation
import Interlude
import Testing
import Timing
import TestSupport
@testable import Playback

/// The engine's main promise, checked by decoding its output with the ffmpeg CLI: pre-roll,
/// a mid-roll at a non-keyframe time with a pod of two mismatched ads (one without audio), a
/// second mid-roll between frames, and a post-roll; every content frame exactly once, cuts on the
/// exact frames, audio in sync at every join, durations exact, a clean file. Every check runs on
/// a full re-encode and on a smart-rendered stitch (content packets copied, `--smart on`).
@Suite(.serialized) struct StitchFidelityTests {
    static let cue1 = MediaTime(value: 41, timescale: 2)        // 20.5 s: frame 615 exactly, not a keyframe
    static let cue2 = MediaTime(value: 3131, timescale: 100)    // 31.31 s: between frames 939 and 940

    struct Stitched: Sendable {
        let url: URL
        let result: StitchResult
        let frames: [VerifiedFrame]
        let segments: [IdentitySegment]
    }

    /// One stitch per mode for the whole suite, run off the concurrency pool.
    static let stitched = Task { try await offPool { try makeStitched(smart: .off) } }
    static let smartStitched = Task { try await offPool { try makeStitched(smart: .on) } }

    static func makeStitched(smart: SmartRendering) throws -> Stitched {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-fidelity-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let out = dir.appendingPathComponent("stitched-\(smart.rawValue).mp4")
        var request = StitchRequest(
            content: TestMedia.Sample.content.url.path,
            breaks: [
                AdBreakRequest(id: "post", position: .end, ads: [TestMedia.Sample.adRotated.url.path]),
                AdBreakRequest(id: "mid1", position: .time(cue1),
                               ads: [TestMedia.Sample.adMismatched.url.path, TestMedia.Sample.adSilent.url.path]),
                AdBreakRequest(id: "pre", position: .start, ads: [TestMedia.Sample.adMatching.url.path]),
                AdBreakRequest(id: "mid2", position: .time(cue2), ads: [TestMedia.Sample.adPortrait.url.path]),
            ],
            output: out.path, overwrite: true)
        request.smart = smart
        let result = try Stitcher(request: request).run()
        let frames = try MediaVerifier.videoFrames(out)
        return Stitched(url: out, result: result, frames: frames, segments: MediaVerifier.segments(frames))
    }

    func get(_ smart: Bool) async throws -> Stitched { try await (smart ? Self.smartStitched : Self.stitched).value }

    @Test(arguments: [false, true]) func segmentsAppearInScheduleOrder(smart: Bool) async throws {
        let s = try await get(smart)
        #expect(s.segments.map(\.sourceID) == [2, 1, 3, 4, 1, 5, 1, 6], "\(s.segments)")
        #expect(s.frames.allSatisfy { $0.identity != nil }, "every output frame carries a readable identity")
    }

    @Test(arguments: [false, true]) func everyContentFrameExactlyOnceCutOnTheExactFrames(smart: Bool) async throws {
        let s = try await get(smart)
        let content = s.segments.filter { $0.sourceID == 1 }
        try #require(content.count == 3)
        #expect(content.map(\.firstFrame) == [0, 615, 940])
        #expect(content.map(\.lastFrame) == [614, 939, 1199])
        #expect(content.allSatisfy { $0.skips == 0 && $0.repeats == 0 })
        #expect(content.map(\.frameCount).reduce(0, +) == 1200)
    }

    @Test(arguments: [false, true]) func adsPlayInFullAtTheOutputRate(smart: Bool) async throws {
        let s = try await get(smart)
        let byID = Dictionary(grouping: s.segments.filter { $0.sourceID != 1 }, by: { $0.sourceID! })
        // 6 s matching ad: 180 frames 1:1
        #expect(byID[2]?.first?.frameCount == 180 && byID[2]?.first?.repeats == 0 && byID[2]?.first?.skips == 0)
        // 5 s at 25 fps -> 150 output frames, all 125 source frames shown, none skipped
        #expect(byID[3]?.first?.frameCount == 150)
        #expect(byID[3]?.first?.firstFrame == 0 && byID[3]?.first?.lastFrame == 124 && byID[3]?.first?.skips == 0)
        // 4 s at 24 fps -> 120 output frames, 96 source frames
        #expect(byID[4]?.first?.frameCount == 120)
        #expect(byID[4]?.first?.firstFrame == 0 && byID[4]?.first?.lastFrame == 95 && byID[4]?.first?.skips == 0)
        #expect(byID[5]?.first?.frameCount == 120 && byID[6]?.first?.frameCount == 120)
    }

    @Test(arguments: [false, true]) func mismatchedAdsAreLetterboxedNotStretched(smart: Bool) async throws {
        let s = try await get(smart)
        // The reader finds the identity band only inside the fitted rectangle (its own rounding, ±1 px).
        func near(_ id: Int, _ expected: TestSupport.PixelRect) -> Bool {
            guard let r = s.frames.first(where: { $0.identity?.sourceID == id })?.rect else { return false }
            return abs(r.x - expected.x) <= 1 && abs(r.y - expected.y) <= 1 && abs(r.width - expected.width) <= 1
                && abs(r.height - expected.height) <= 1
        }
        #expect(near(3, PixelRect(x: 80, y: 0, width: 480, height: 360)))        // 4:3 pillarbox
        #expect(near(4, PixelRect(x: 80, y: 0, width: 480, height: 360)))        // 320x240 is 4:3 too
        #expect(near(5, PixelRect(x: 218, y: 0, width: 202, height: 360)))       // portrait
        #expect(near(6, PixelRect(x: 218, y: 0, width: 202, height: 360)))       // rotation applied
        // and nothing is read as a full-frame picture: the bars are really there
        for id in [3, 4, 5, 6] {
            #expect(s.frames.filter { $0.identity?.sourceID == id }.allSatisfy { $0.rect?.width ?? 640 < 640 })
        }
    }

    @Test(arguments: [false, true]) func timestampsAreMonotonicAndConstantRate(smart: Bool) async throws {
        let s = try await get(smart)
        for (i, f) in s.frames.enumerated() {
            #expect(f.pts == MediaTime(value: Int64(i), timescale: 30), "frame \(i) pts \(String(describing: f.pts))")
            if f.pts != MediaTime(value: Int64(i), timescale: 30) { break }
        }
    }

    @Test(arguments: [false, true]) func spliceFramesAreKeyframes(smart: Bool) async throws {
        let s = try await get(smart)
        for seg in s.segments { #expect(s.frames[seg.firstOutputIndex].isKey, "segment \(seg) starts on a keyframe") }
    }

    @Test(arguments: [false, true]) func audioIsInSyncAtEveryJoin(smart: Bool) async throws {
        let s = try await get(smart)
        let flashes = MediaVerifier.flashTimes(s.frames)
        let audio = try await MediaVerifier.analyzeAudio(s.url)
        let offsets = MediaVerifier.syncOffsets(flashTimes: flashes, beepOnsets: audio.onsets)
        // every flash of a source with audio has its beep; the silent ad's flashes (4 of them) have none nearby
        let silentStart = Double(s.segments.first { $0.sourceID == 4 }!.firstOutputIndex) / 30
        let audible = zip(flashes, offsets).filter { !($0.0 >= silentStart && $0.0 < silentStart + 4) }
        #expect(audible.count >= 55)
        let worst = audible.map { abs($0.1 ?? 1) }.max() ?? 1
        #expect(worst < 0.002, "worst A/V offset \(worst * 1000) ms")
        print("fidelity: \(audible.count) flashes paired with beeps, worst A/V offset \(String(format: "%.3f", worst * 1000)) ms")
        // no beep at all inside the silent ad
        #expect(!audio.onsets.contains { $0 > silentStart + 0.01 && $0 < silentStart + 4 })
        #expect(audio.discontinuities.isEmpty)
    }

    @Test(arguments: [false, true]) func durationsAgreeAndMatchTheSchedule(smart: Bool) async throws {
        let s = try await get(smart)
        let probe = try await MediaVerifier.probe(s.url)
        let frames = 180 + 1200 + 150 + 120 + 120 + 120
        #expect(s.frames.count == frames)
        #expect(s.result.videoFrames == Int64(frames))
        let videoDuration = Double(frames) / 30
        let audio = try await MediaVerifier.analyzeAudio(s.url)
        #expect(abs(audio.decodedDuration - videoDuration) < 1.0 / 30, "audio \(audio.decodedDuration) vs video \(videoDuration)")
        #expect(abs((probe.duration ?? 0) - videoDuration) < 1.0 / 30)
        #expect(s.result.audioSamples == Int64(videoDuration * 48000))
    }

    @Test(arguments: [false, true]) func reportAndChaptersDescribeTheOutput(smart: Bool) async throws {
        let s = try await get(smart)
        let r = s.result
        #expect(r.breaks.map(\.id) == ["pre", "mid1", "mid2", "post"])
        #expect(r.breaks.map(\.streamTime) == [.zero, MediaTime(seconds: 6) + MediaTime(value: 615, timescale: 30),
                                               MediaTime(value: 180 + 940 + 270, timescale: 30),
                                               MediaTime(value: 180 + 1200 + 270 + 120, timescale: 30)])
        #expect(r.breaks[1].ads.map(\.podPosition) == [1, 2] && r.breaks[1].ads.map(\.totalAds) == [2, 2])
        #expect(r.breaks[1].ads.map(\.duration) == [MediaTime(seconds: 5), MediaTime(seconds: 4)])
        #expect(r.breaks[1].contentTime == Self.cue1 && r.breaks[1].resumeContentTime == Self.cue1)
        #expect(r.breaks[2].resumeContentTime == MediaTime(value: 940, timescale: 30))
        #expect(r.breaks[3].contentTime == MediaTime(seconds: 40))
        #expect(r.issues.isEmpty)
        // the content↔stream mapping agrees with what the verifier read
        for f in s.frames where f.identity?.sourceID == 1 {
            let c = MediaTime(value: Int64(f.identity!.frameIndex), timescale: 30)
            #expect(r.timeline.streamTime(forContentTime: c) == f.pts)
        }
        let chapters = try await MediaVerifier.probe(s.url).chapters
        #expect(chapters.count == 8)
        #expect(try await MediaVerifier.ffmpegErrors(s.url) == "")
    }
}
