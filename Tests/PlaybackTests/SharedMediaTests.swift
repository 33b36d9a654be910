import Foundation
import Interlude
import Testing
import Timing
import TestSupport
@testable import Playback

/// Real files from ../shared/media: the androidx ad clips spliced into real content, including
/// rotated, edit-listed, variable-frame-rate and HEVC inputs. Checked with ffprobe/ffmpeg.
@Suite(.enabled(if: TestMedia.sharedMediaDirectory != nil, "../shared/media is not present beside the checkout"))
struct SharedMediaTests {
    func shared(_ name: String) -> String { TestMedia.sharedMediaDirectory!.appendingPathComponent(name).path }

    /// Stitches and checks what holds for every output: clean decode, constant-rate monotonic
    /// timestamps, audio as long as video, each ad as long as its media, content frames counted.
    func stitchAndCheck(content: String, breaks: [AdBreakRequest], name: String) async throws -> StitchResult {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-shared-\(getpid())-\(name).mp4")
        let req = StitchRequest(content: shared(content), breaks: breaks, output: out.path, overwrite: true)
        let r = try await offPool { try Stitcher(request: req).run() }
        #expect(try await MediaVerifier.ffmpegErrors(out) == "", "\(name) decodes cleanly")
        let frames = try await MediaVerifier.videoFrames(out, reader: IdentityReader(output: PixelSize(width: r.format.width, height: r.format.height), sources: []))
        #expect(Int64(frames.count) == r.videoFrames)
        let period = r.format.frameDuration
        #expect(frames.enumerated().allSatisfy { $0.element.pts == period * Int64($0.offset) }, "\(name): constant-rate timestamps")
        let audio = try await MediaVerifier.analyzeAudio(out)
        #expect(abs(audio.decodedDuration - r.output.duration.seconds) < period.seconds, "\(name): audio \(audio.decodedDuration)s vs video \(r.output.duration.seconds)s")
        for b in r.breaks {
            for ad in b.ads {
                let expected = FrameSelection.frameCount(from: .zero, to: ad.mediaDuration, period: period)
                #expect(ad.frames == expected, "\(name): \(ad.mediaFile) shows \(ad.frames) frames for \(ad.mediaDuration.seconds)s")
            }
        }
        let chapters = try await MediaVerifier.probe(out).chapters
        #expect(chapters.count == r.timeline.segments.count + r.breaks.map(\.ads.count).reduce(0, +))
        return r
    }

    @Test func androidxAdsIntoMp4ffContent() async throws {
        let r = try await stitchAndCheck(
            content: "mp4ff__prog_8s.mp4",
            breaks: [AdBreakRequest(id: "pre", position: .start, ads: [shared("androidx__preroll-5s.mp4")]),
                     AdBreakRequest(id: "mid", position: .time(MediaTime(value: 33, timescale: 10)),
                                    ads: [shared("androidx__midroll-5s.mp4"), shared("androidx__sample_rotate_and_reflect.mp4")]),
                     AdBreakRequest(id: "post", position: .end, ads: [shared("androidx__postroll-5s.mp4")])],
            name: "prog8")
        // 30 fps content whose first frame is at 0.0667 s (a composition offset, no edit list: ffprobe's
        // pts_time): cue 3.3 s is frame 97's time, so 99 slots before (the first frame held for the
        // 2 slots before its time, then frames 0…96), frames 97…239 after
        #expect(r.timeline.segments.map { $0.streamEnd - $0.streamStart } == [MediaTime(value: 99, timescale: 30), MediaTime(value: 143, timescale: 30)])
        #expect(r.timeline.segments.map(\.contentStart) == [.zero, MediaTime(value: 33, timescale: 10)])
        #expect(r.breaks[1].ads.count == 2)
        #expect(r.format.width == 640 && r.format.height == 360 && r.format.frameRate == Rational(30, 1))
    }

    @Test func anamorphicContentWithHEVCAndEditListAds() async throws {
        let r = try await stitchAndCheck(
            content: "mp4ff__bbb_prog_10s.mp4",
            breaks: [AdBreakRequest(id: "mid", position: .time(MediaTime(value: 41, timescale: 10)),
                                    ads: [shared("androidx__sample_edit_list.mp4"), shared("mp4ff__ed_hevc.mp4"),
                                          shared("androidx__sample_video_only.mp4")])],
            name: "bbb")
        #expect(r.breaks[0].ads.count == 3 && r.issues.isEmpty)
        // 24 fps content, 4.1 s cue: frames 0…98 before (98/24 = 4.083 < 4.1), 99 is first after
        #expect(r.breaks[0].resumeContentTime == MediaTime(value: 99, timescale: 24))
    }

    @Test func variableFrameRateContent() async throws {
        let r = try await stitchAndCheck(
            content: "androidx__sample_with_increasing_timestamps_360p.mp4",
            breaks: [AdBreakRequest(id: "mid", position: .time(MediaTime(seconds: 5)), ads: [shared("androidx__midroll-5s.mp4")])],
            name: "vfr")
        #expect(r.format.frameRate == Rational(30, 1))
        #expect(r.breaks[0].resumeContentTime! >= MediaTime(seconds: 5))
    }

    @Test func rotatedContent() async throws {
        let r = try await stitchAndCheck(
            content: "androidx__sample_rotate_and_reflect.mp4",
            breaks: [AdBreakRequest(id: "mid", position: .time(MediaTime(value: 1, timescale: 2)), ads: [shared("androidx__midroll-5s.mp4")])],
            name: "rotated")
        #expect(r.format.width == 720 && r.format.height == 1080, "rotation applied to the output size")
    }

    @Test func audioOnlyAndTransportStreamAds() async throws {
        let r = try await stitchAndCheck(
            content: "androidx__edit_list_positive_shift.mp4",
            breaks: [AdBreakRequest(id: "mid", position: .time(MediaTime(seconds: 2)),
                                    ads: [shared("androidx__sample_audio_only_15s.mp4"), shared("androidx__sample_scte35.ts"),
                                          shared("androidx__sample_shorter_audio.mp4")])],
            name: "ts")
        #expect(r.issues.map(\.code) == [403])
        #expect(r.breaks[0].ads.count == 2)
    }
}
