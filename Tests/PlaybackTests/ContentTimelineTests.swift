import Foundation
import Interlude
import Testing
import Timing
import TestSupport
import Media
@testable import Playback

/// Content whose video starts after 0 (a leading empty edit; all tracks delayed, start_time > 0):
/// cues, the report's content times and the output are on the content's presentation timeline
/// (ffprobe's pts_time with the edit list applied), not rebased to the first video frame. The
/// output's stream time 0 is content time 0, the first frame held until its own time, the audio
/// before it kept. Re-encode and smart rendering alike.
@Suite(.serialized) struct ContentTimelineTests {
    static let frame = MediaTime(value: 1, timescale: 30)
    static let cue = MediaTime(seconds: 10)

    /// content.mp4's first 20 s: the audio from 0, the video behind a 2 s empty edit (`-itsoffset`
    /// on the video input: the mp4 muxer writes an edit list).
    static func videoAt2s() throws -> URL {
        let c = TestMedia.Sample.content.url
        return try TestMedia.derived(from: c, name: "content-video-at-2s.mp4", arguments: [
            "-itsoffset", "2", "-i", c.path, "-map", "0:a", "-map", "1:v", "-c", "copy", "-t", "20"])
    }

    /// content.mp4's first 20 s with every track 2 s late (start_time 2 s).
    static func allAt2s() throws -> URL {
        let c = TestMedia.Sample.content.url
        return try TestMedia.derived(from: c, name: "content-all-at-2s.mp4", arguments: [
            "-itsoffset", "2", "-i", c.path, "-map", "1", "-c", "copy", "-t", "22"])
    }

    static func stitch(_ content: URL, smart: Bool, name: String, cue: MediaTime = cue) async throws -> (URL, StitchResult) {
        var r = StitchRequest(content: content.path,
                              breaks: [AdBreakRequest(id: "mid", position: .time(cue), ads: [TestMedia.Sample.adSilent.url.path])],
                              output: SmartRenderTests.dir.appendingPathComponent(name).path,
                              encoder: EncoderSettings(preset: "ultrafast", crf: 30), overwrite: true)
        r.smart = smart ? .on : .off
        let fixed = r
        let result = try await offPool { try Stitcher(request: fixed).run() }
        return (URL(fileURLWithPath: r.output), result)
    }

    /// Beep onsets of the output and where the source's should be: before the cue where they were,
    /// after it 4 s (the ad) later. A beep the cue cuts (it starts 0.6 ms before 10 s) is left out.
    static func onsets(_ out: URL, source: URL) throws -> (got: [Double], expected: [Double]) {
        let src = try MediaVerifier.beepOnsets(source), got = try MediaVerifier.beepOnsets(out)
        return (got.filter { $0 < 9.9 || $0 > 14.1 }, src.filter { $0 < 9.9 } + src.filter { $0 > 10.1 }.map { $0 + 4 })
    }

    @Test func theGeneratedFilesHaveTheirVideoAt2s() throws {
        for url in [try Self.videoAt2s(), try Self.allAt2s()] {
            let p = try MediaVerifier.probe(url)
            #expect(p.video?.startTime == 2.0, "\(url.lastPathComponent): \(p.streams)")
        }
        #expect(try MediaVerifier.probe(Self.videoAt2s()).startTime == 0)
        #expect(try MediaVerifier.probe(Self.allAt2s()).startTime ?? 0 > 1.9)
    }

    /// Where content time 0 is: the movie's 0 for MP4 (whatever its tracks' edit lists), the
    /// earliest timestamp for MPEG-TS (its clock starts at 1.4 s, the muxer's offset).
    @Test func theTimelineStartsAtTheMoviesZeroForMP4AndAtTheFirstTimestampForTS() throws {
        #expect(ContentTimeline(try Demuxer(url: Self.videoAt2s().path)).start == .zero)
        #expect(ContentTimeline(try Demuxer(url: Self.allAt2s().path)).start == .zero)
        let ts = try TestMedia.derived(from: TestMedia.Sample.content.url, name: "content-4s.ts",
                                       arguments: ["-map", "0", "-c", "copy", "-t", "4", "-f", "mpegts"])
        let demuxer = try Demuxer(url: ts.path)
        let start = ContentTimeline(demuxer).start
        #expect(start > MediaTime(seconds: 1) && start == demuxer.startTime, "\(start)")
        let video = try #require(demuxer.bestStream(.video).map { demuxer.streams[$0] })
        #expect(ContentTimeline(demuxer).end(of: video).map { abs($0.seconds - 4) < 0.1 } == true)
    }

    /// Video at 2 s, audio at 0, a mid-roll at 10 s: the break is at content 10 s = stream 10 s,
    /// the ad's first frame follows content frame 239 (content time 2 + 239/30 < 10; frame 240 is at
    /// 10 s), the first frame is held for the 60 slots before its time, and the audio of the first
    /// 2 s is in the output where it was.
    @Test(arguments: [false, true]) func aLeadingEmptyEditKeepsCuesOnTheContentTimeline(smart: Bool) async throws {
        let source = try Self.videoAt2s()
        let (out, result) = try await Self.stitch(source, smart: smart, name: "lead-\(smart).mp4")
        #expect((result.smartRendering?.used ?? false) == smart)
        let b = try #require(result.breaks.first)
        #expect(b.contentTime == Self.cue && b.streamTime == Self.cue && b.resumeContentTime == Self.cue, "\(b)")
        #expect(result.timeline.segments.first?.contentStart == .zero && result.timeline.segments.first?.contentEnd == Self.cue)
        #expect(result.timeline.segments.last?.contentStart == Self.cue)
        let frames = try await MediaVerifier.videoFrames(out)
        let runs = MediaVerifier.segments(frames)
        #expect(runs.map(\.sourceID) == [1, 4, 1], "\(runs)")
        guard runs.count == 3 else { return }
        #expect(runs[0].firstFrame == 0 && runs[0].lastFrame == 239 && runs[0].frameCount == 300, "\(runs[0])")
        #expect(runs[0].repeats == 60 && runs[0].skips == 0, "the first frame held for 2 s, then every frame once: \(runs[0])")
        #expect(frames.prefix(61).allSatisfy { $0.identity?.frameIndex == 0 })
        #expect(runs[1].firstOutputIndex == 300)
        #expect(runs[2].firstFrame == 240 && runs[2].lastFrame == 541 && runs[2].repeats == 0 && runs[2].skips == 0, "\(runs[2])")
        // the audio: where it was in the source before the cue, 4 s later after it
        let (got, expected) = try Self.onsets(out, source: source)
        #expect(expected.contains { $0 < 2 }, "the source has sound before its first video frame: \(expected)")
        #expect(got.count == expected.count && zip(got, expected).allSatisfy { abs($0 - $1) < 0.002 }, "\(got) vs \(expected)")
        #expect(try await MediaVerifier.ffmpegErrors(out) == "")
    }

    /// Every track 2 s late (start_time 2): content time 0 is still the movie's 0; the output
    /// starts with 2 s of the first frame held and silence, the break lands at 10 s.
    @Test(arguments: [false, true]) func aStartTimeAfterZeroKeepsCuesOnTheContentTimeline(smart: Bool) async throws {
        let source = try Self.allAt2s()
        let (out, result) = try await Self.stitch(source, smart: smart, name: "start-\(smart).mp4")
        #expect((result.smartRendering?.used ?? false) == smart)
        let b = try #require(result.breaks.first)
        #expect(b.contentTime == Self.cue && b.streamTime == Self.cue, "\(b)")
        let runs = MediaVerifier.segments(try await MediaVerifier.videoFrames(out))
        #expect(runs.map(\.sourceID) == [1, 4, 1], "\(runs)")
        guard runs.count == 3 else { return }
        #expect(runs[0].firstFrame == 0 && runs[0].lastFrame == 239 && runs[0].repeats == 60 && runs[1].firstOutputIndex == 300, "\(runs)")
        let (got, expected) = try Self.onsets(out, source: source)
        #expect(got.count == expected.count && zip(got, expected).allSatisfy { abs($0 - $1) < 0.002 }, "\(got) vs \(expected)")
        #expect(try await MediaVerifier.ffmpegErrors(out) == "")
    }

    /// A cue inside the leading gap (1 s, video at 2 s): the first frame is held up to the cue, the
    /// break plays, and content resumes with it held from the cue to its own time.
    @Test(arguments: [false, true]) func aCueBeforeTheFirstFrame(smart: Bool) async throws {
        let (out, result) = try await Self.stitch(try Self.videoAt2s(), smart: smart, name: "gapcue-\(smart).mp4",
                                                  cue: MediaTime(seconds: 1))
        let b = try #require(result.breaks.first)
        #expect(b.contentTime == MediaTime(seconds: 1) && b.streamTime == MediaTime(seconds: 1), "\(b)")
        let runs = MediaVerifier.segments(try await MediaVerifier.videoFrames(out))
        #expect(runs.map(\.sourceID) == [1, 4, 1], "\(runs)")
        guard runs.count == 3 else { return }
        #expect(runs[0].firstFrame == 0 && runs[0].lastFrame == 0 && runs[0].frameCount == 30, "\(runs[0])")
        #expect(runs[2].firstFrame == 0 && runs[2].lastFrame == 541 && runs[2].frameCount == 30 + 542, "\(runs[2])")
        #expect(try await MediaVerifier.ffmpegErrors(out) == "")
    }

    /// content.mp4's first 8 s with no video frame from 2 s to 3 s (frames 60 on are 1 s later; the
    /// audio as it was): variable-frame-rate content with a gap.
    static func gapFrom2To3s() throws -> URL {
        try TestMedia.derived(from: TestMedia.Sample.content.url, name: "content-gap-2s-3s.mp4", arguments: [
            "-t", "8", "-vf", "setpts='if(lt(N,60),PTS,PTS+1/TB)'", "-vsync", "vfr", "-c:v", "libx264", "-preset", "ultrafast",
            "-qp", "10", "-threads", "1", "-c:a", "copy"])
    }

    /// A cue inside a gap between two frames takes effect after the frame shown at the cue, as
    /// any cue does: the frame before the gap (59) held up to the next frame's time (3 s), with
    /// the content's sound, then the ad; content resumes at the frame after the gap (docs/STITCH.md).
    /// Unlike a cue before the first frame, which is placed at its own time.
    @Test func aCueInsideAGapBetweenFramesTakesEffectAfterTheFrameShownAtIt() async throws {
        let (out, result) = try await Self.stitch(try Self.gapFrom2To3s(), smart: false, name: "midgapcue.mp4",
                                                  cue: MediaTime(value: 5, timescale: 2))
        let b = try #require(result.breaks.first)
        #expect(b.contentTime == MediaTime(value: 5, timescale: 2) && b.streamTime == MediaTime(seconds: 3), "\(b)")
        #expect(b.resumeContentTime == MediaTime(seconds: 3), "\(b)")
        let runs = MediaVerifier.segments(try await MediaVerifier.videoFrames(out))
        #expect(runs.map(\.sourceID) == [1, 4, 1], "\(runs)")
        guard runs.count == 3 else { return }
        // 0 … 59, then 59 held to 3 s: 90 output frames; after the ad, frame 60 on
        #expect(runs[0].firstFrame == 0 && runs[0].lastFrame == 59 && runs[0].frameCount == 90, "\(runs[0])")
        #expect(runs[2].firstFrame == 60, "\(runs[2])")
        #expect(try await MediaVerifier.ffmpegErrors(out) == "")
    }

    /// The presenting player on the same file: `currentTime()` and the periodic observer read the
    /// content timeline from 0 (the held first frame's slots at their own times), a boundary at
    /// 10 s pauses after content frame 239, the ad follows at stream 10 s.
    @Test func thePlayerReadsTheSameTimeline() async throws {
        let player = try Player.open(url: Self.videoAt2s(), clock: .asFastAsPossible)
        let out = try PlayerTests.outputPath("timeline.nut")
        player.surface.attach(try EncodedOutput(url: out.path, container: .nut, format: player.surface.format, settings: EncoderSettings()))
        let times = PlayerTests.Box<[MediaTime]>([]), atCue = PlayerTests.Box<MediaTime?>(nil)
        let ad = TestMedia.Sample.adSilent.url.path
        player.addPeriodicTimeObserver(forInterval: MediaTime(seconds: 1), queue: PlayerTests.queue) { t in times.value.append(t) }
        player.addBoundaryTimeObserver(forTimes: [Self.cue], queue: PlayerTests.queue) { [player] in
            player.pause()
            atCue.value = player.currentTime()
            player.beginBreak(id: "mid", contentTime: Self.cue)
            player.playAd(url: ad, queue: PlayerTests.queue, onFrame: { _, _ in true }) { _ in
                player.endBreak()
                player.play()
            }
        }
        player.play()
        #expect(player.waitUntilIdle(timeout: 60))
        try player.close()
        #expect(Array(times.value.prefix(4).map(\.seconds)) == [0, 1, 2, 3], "\(times.value)")
        #expect(atCue.value.map { $0 < Self.cue && $0 > Self.cue - MediaTime(value: 1, timescale: 15) } == true, "\(String(describing: atCue.value))")
        let runs = MediaVerifier.segments(try await MediaVerifier.videoFrames(out))
        #expect(runs.map(\.sourceID) == [1, 4, 1], "\(runs)")
        guard runs.count == 3 else { return }
        #expect(runs[0].firstFrame == 0 && runs[0].lastFrame == 239 && runs[0].frameCount == 300 && runs[1].firstOutputIndex == 300, "\(runs)")
        #expect(player.timeline.breaks.first?.streamStart == Self.cue)
    }

    /// The presenting player with a cue inside the leading gap (1 s, video at 2 s) shows what the
    /// stitch writes (`aCueBeforeTheFirstFrame`): the first frame held up to the cue, the ad at
    /// stream 1 s, then the first frame held from the cue to its own time. Both loops step content
    /// through one `SegmentCursor`; the player's used to hold at once, the ad at stream 0.
    @Test func thePlayerHoldsTheFirstFrameUpToACueInsideTheGap() async throws {
        let cue = MediaTime(seconds: 1)
        let player = try Player.open(url: Self.videoAt2s(), clock: .asFastAsPossible)
        let out = try PlayerTests.outputPath("gapcue.nut")
        player.surface.attach(try EncodedOutput(url: out.path, container: .nut, format: player.surface.format, settings: EncoderSettings()))
        let ad = TestMedia.Sample.adSilent.url.path
        player.addBoundaryTimeObserver(forTimes: [cue], queue: PlayerTests.queue) { [player] in
            player.pause()
            player.beginBreak(id: "gap", contentTime: cue)
            player.playAd(url: ad, queue: PlayerTests.queue, onFrame: { _, _ in true }) { _ in
                player.endBreak()
                player.play()
            }
        }
        player.play()
        #expect(player.waitUntilIdle(timeout: 60))
        try player.close()
        #expect(player.timeline.breaks.first?.streamStart == cue, "\(player.timeline.breaks)")
        let runs = MediaVerifier.segments(try await MediaVerifier.videoFrames(out))
        #expect(runs.map(\.sourceID) == [1, 4, 1], "\(runs)")
        guard runs.count == 3 else { return }
        #expect(runs[0].firstFrame == 0 && runs[0].lastFrame == 0 && runs[0].frameCount == 30, "\(runs[0])")
        #expect(runs[1].firstOutputIndex == 30, "\(runs[1])")
        #expect(runs[2].firstFrame == 0 && runs[2].lastFrame == 541 && runs[2].frameCount == 30 + 542, "\(runs[2])")
    }

    /// The bundled phone file whose video starts 1 s after its audio (static picture, silence): a
    /// break at 5 s is at stream 5 s, and the content keeps its 10 s.
    @Test func aBundledFileWithAPositiveEditListShift() async throws {
        guard let dir = TestMedia.sharedMediaDirectory else { return }
        let file = dir.appendingPathComponent("androidx__edit_list_positive_shift.mp4")
        guard FileManager.default.fileExists(atPath: file.path) else { return }
        let (out, result) = try await Self.stitch(file, smart: false, name: "androidx-shift.mp4", cue: MediaTime(seconds: 5))
        let b = try #require(result.breaks.first)
        #expect(b.contentTime == MediaTime(seconds: 5) && b.streamTime == MediaTime(seconds: 5), "\(b)")
        // video 1 s … 10 s on the content timeline (270 frames), audio 0 … 10 s: 10 s of content
        // in the output, the first frame held for 30 slots (it was 9 s, rebased, the first
        // second of audio dropped)
        #expect(result.timeline.segments.first?.contentStart == .zero)
        #expect(result.timeline.segments.last?.contentEnd == MediaTime(seconds: 10))
        let contentSlots = result.timeline.segments.map { ($0.streamEnd - $0.streamStart).count(of: MediaTime(value: 1, timescale: 30)) }
        #expect(contentSlots == [150, 150], "\(contentSlots)")
        let audio = try await MediaVerifier.analyzeAudio(out)
        #expect(abs(audio.decodedDuration - Double(result.audioSamples) / Double(result.format.sampleRate)) < 0.03)
        #expect(try await MediaVerifier.ffmpegErrors(out) == "")
    }
}
