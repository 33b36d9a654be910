import Foundation
import Interlude
import Testing
import Timing
import TestSupport
@testable import Playback

/// Frame-stream outputs decode back to the same frames and audio as the MP4 path.
@Suite struct FrameStreamTests {
    func stitch(_ container: OutputContainer, _ name: String) async throws -> (URL, StitchResult) {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-stream-\(getpid())-\(name)")
        let request = StitchRequest(
            content: TestMedia.Sample.content.url.path,
            breaks: [AdBreakRequest(id: "mid", position: .time(MediaTime(value: 101, timescale: 10)),
                                    ads: [TestMedia.Sample.adMismatched.url.path, TestMedia.Sample.adSilent.url.path])],
            output: out.path, container: container, overwrite: true)
        return (out, try await offPool { try Stitcher(request: request).run() })
    }

    @Test func nutCarriesRawVideoAndPCMInSync() async throws {
        let (url, r) = try await stitch(.nut, "a.nut")
        let probe = try await MediaVerifier.probe(url)
        #expect(probe.video?.codec == "rawvideo" && probe.audio?.codec == "pcm_s16le")
        let frames = try await MediaVerifier.videoFrames(url)
        #expect(frames.count == 1200 + 150 + 120 && Int64(frames.count) == r.videoFrames)
        let segs = MediaVerifier.segments(frames)
        #expect(segs.map(\.sourceID) == [1, 3, 4, 1])
        #expect(segs.first?.lastFrame == 302 && segs.last?.firstFrame == 303)   // 10.1 s is frame 303 exactly
        let audio = try await MediaVerifier.analyzeAudio(url)
        #expect(audio.sampleCount == Int(r.audioSamples))
        #expect(r.audioSamples == Int64(frames.count) * 48000 / 30)
        let offsets = MediaVerifier.syncOffsets(flashTimes: MediaVerifier.flashTimes(frames).filter { $0 < 10 || $0 > 19.2 }, beepOnsets: audio.onsets)
        #expect((MediaVerifier.maxAbsoluteOffset(offsets) ?? 1) < 0.001)
        #expect(try await MediaVerifier.ffmpegErrors(url) == "")
    }

    @Test func y4mIsVideoOnly() async throws {
        let (url, r) = try await stitch(.y4m, "a.y4m")
        let probe = try await MediaVerifier.probe(url)
        #expect(probe.video?.codec == "rawvideo" && probe.audio == nil)
        let frames = try await MediaVerifier.videoFrames(url)
        #expect(Int64(frames.count) == r.videoFrames)
        #expect(MediaVerifier.segments(frames).map(\.sourceID) == [1, 3, 4, 1])
    }
}
