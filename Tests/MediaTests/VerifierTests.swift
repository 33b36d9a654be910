// Self-tests of the independent verifier (Sources/TestSupport) on the committed sample media.
import Foundation
import Testing
import Timing
import TestSupport

/// content.mp4 decoded once and shared by the tests that need its frames.
private let contentFrames = Result { try MediaVerifier.videoFrames(TestMedia.Sample.content.url) }

@Suite("Verifier")
struct VerifierTests {
    // MARK: identity code

    @Test func wordRoundTripsAndRejectsEverySingleBitFlip() {
        for source in 0..<16 {
            for frame in stride(from: 0, to: IdentityCode.frameModulus, by: 37) {
                let id = FrameIdentity(sourceID: source, frameIndex: frame)
                let word = IdentityCode.word(for: id)
                #expect(IdentityCode.identity(fromWord: word) == id)
                let accepted = (0..<24).filter { IdentityCode.identity(fromWord: word ^ (1 << $0)) != nil }
                #expect(accepted.isEmpty, "flipped bits \(accepted) of \(id) still validate")
            }
        }
        #expect(IdentityCode.identity(fromWord: 0) == nil)
        #expect(IdentityCode.identity(fromWord: 0xFFFFFF) == nil)
    }

    @Test func fitRectLetterboxesAndPillarboxes() {
        let out = PixelSize(width: 640, height: 360)
        #expect(IdentityCode.fitRect(source: PixelSize(width: 640, height: 360), into: out) == PixelRect(x: 0, y: 0, width: 640, height: 360))
        #expect(IdentityCode.fitRect(source: PixelSize(width: 1280, height: 720), into: out) == PixelRect(x: 0, y: 0, width: 640, height: 360))
        #expect(IdentityCode.fitRect(source: PixelSize(width: 480, height: 360), into: out) == PixelRect(x: 80, y: 0, width: 480, height: 360))
        #expect(IdentityCode.fitRect(source: PixelSize(width: 320, height: 240), into: out) == PixelRect(x: 80, y: 0, width: 480, height: 360))
        #expect(IdentityCode.fitRect(source: PixelSize(width: 360, height: 640), into: out) == PixelRect(x: 218, y: 0, width: 203, height: 360))
        #expect(IdentityCode.fitRect(source: PixelSize(width: 640, height: 360), into: PixelSize(width: 480, height: 360))
                == PixelRect(x: 0, y: 45, width: 480, height: 270))
    }

    @Test func blackFrameReadsAsNil() {
        let reading = IdentityReader(output: PixelSize(width: 64, height: 36))
            .read([UInt8](repeating: 16, count: 64 * 36), width: 64, height: 36)
        #expect(reading.identity == nil && reading.isBlack && !reading.isFlash)
    }

    // MARK: probing

    @Test func probeReportsTheSampleFormats() throws {
        let content = try MediaVerifier.probe(TestMedia.Sample.content.url)
        #expect(content.video?.codec == "h264" && content.video?.width == 640 && content.video?.height == 360)
        #expect(content.video?.frameRate == Rational(30, 1))
        #expect(content.audio?.codec == "aac" && content.audio?.sampleRate == 48000 && content.audio?.channels == 2)
        #expect(abs((content.duration ?? 0) - 40) < 0.05)
        #expect(content.video?.startTime == 0)
        #expect(content.chapters.isEmpty)

        let mismatched = try MediaVerifier.probe(TestMedia.Sample.adMismatched.url)
        #expect(mismatched.video?.width == 480 && mismatched.video?.height == 360 && mismatched.video?.frameRate == Rational(25, 1))
        #expect(mismatched.audio?.sampleRate == 44100 && mismatched.audio?.channels == 1)

        let silent = try MediaVerifier.probe(TestMedia.Sample.adSilent.url)
        #expect(silent.audio == nil && silent.video?.width == 320 && silent.video?.frameRate == Rational(24, 1))

        let rotated = try MediaVerifier.probe(TestMedia.Sample.adRotated.url)
        #expect(rotated.video?.rotation == 90 && rotated.video?.width == 640)
        #expect(rotated.video?.displayWidth == 360 && rotated.video?.displayHeight == 640)

        let audioOnly = try MediaVerifier.probe(TestMedia.Sample.audioOnly.url)
        #expect(audioOnly.video == nil && audioOnly.audio?.sampleRate == 48000)
    }

    @Test func contentKeyFramesEveryTwoSeconds() throws {
        let keys = try MediaVerifier.packets(TestMedia.Sample.content.url, kind: .video).filter(\.isKey).compactMap(\.pts)
        #expect(keys == (0..<20).map { Double($0 * 2) })
    }

    // MARK: video identity and flashes

    @Test func contentDecodesToEveryFrameInOrderWithFlashesEverySecond() throws {
        let frames = try contentFrames.get()
        #expect(frames.count == 1200)
        let wrong = frames.filter { f in
            f.identity != FrameIdentity(sourceID: 1, frameIndex: f.index)
                || f.pts != MediaTime(value: Int64(f.index), timescale: 30)
                || f.isFlash != (f.index % 30 == 0) || f.isKey != (f.index % 60 == 0)
                || f.rect != PixelRect(x: 0, y: 0, width: 640, height: 360) || f.isBlack
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
        let segments = MediaVerifier.segments(frames)
        #expect(segments.count == 1 && segments[0].skips == 0 && segments[0].repeats == 0 && segments[0].lastFrame == 1199)
    }

    @Test(arguments: [
        (TestMedia.Sample.adMismatched, 640, 360, 125),
        (TestMedia.Sample.adSilent, 640, 360, 96),
        (TestMedia.Sample.adPortrait, 640, 360, 120),
        (TestMedia.Sample.adMatching, 480, 360, 180),
        (TestMedia.Sample.adMatching, 320, 180, 180),
    ])
    func identitySurvivesScalingWithBars(sample: TestMedia.Sample, width: Int, height: Int, count: Int) throws {
        let scaled = try TestMedia.derived(
            from: sample.url, name: "fit-\(sample.rawValue.dropLast(4))-\(width)x\(height).mp4",
            arguments: ["-an", "-vf", TestMedia.fitFilter(width: width, height: height),
                        "-c:v", "libx264", "-preset", "veryfast", "-crf", "28", "-threads", "2"])
        let frames = try MediaVerifier.videoFrames(scaled)
        #expect(frames.count == count)
        let probe = try MediaVerifier.probe(sample.url)
        let expectedRect = IdentityCode.fitRect(
            source: PixelSize(width: probe.video!.displayWidth!, height: probe.video!.displayHeight!),
            into: PixelSize(width: width, height: height))
        let fps = Int(probe.video!.frameRate!.numerator)
        for f in frames {
            #expect(f.identity == FrameIdentity(sourceID: sample.sourceID!, frameIndex: f.index), "frame \(f.index)")
            #expect(f.isFlash == (f.index % fps == 0), "flash at \(f.index)")
            if let r = f.rect {
                #expect(abs(r.x - expectedRect.x) <= 1 && abs(r.width - expectedRect.width) <= 2 && abs(r.y - expectedRect.y) <= 1)
            }
        }
    }

    @Test func rotatedClipReadsUprightAfterAutorotation() throws {
        let frames = try MediaVerifier.videoFrames(TestMedia.Sample.adRotated.url)
        #expect(frames.count == 120)
        #expect(frames.map(\.identity) == (0..<120).map { FrameIdentity(sourceID: 6, frameIndex: $0) })
        #expect(frames.filter(\.isFlash).map(\.index) == [0, 30, 60, 90])
    }

    // MARK: audio and sync

    @Test func contentBeepsLineUpWithFlashesWithinAMillisecond() throws {
        let url = TestMedia.Sample.content.url
        let audio = try MediaVerifier.analyzeAudio(url)
        #expect(audio.sampleRate == 48000 && audio.channels == 2)
        #expect(audio.sampleCount == 40 * 48000)
        #expect(audio.discontinuities.isEmpty)
        #expect(audio.onsets.count == 40)
        for (k, t) in audio.onsets.enumerated() { #expect(abs(t - Double(k)) < 0.001, "onset \(k) at \(t)") }
        let offsets = MediaVerifier.syncOffsets(flashTimes: MediaVerifier.flashTimes(try contentFrames.get()),
                                                beepOnsets: audio.onsets)
        #expect(offsets.count == 40)
        let worst = try #require(MediaVerifier.maxAbsoluteOffset(offsets))
        #expect(worst < 0.001)
    }

    @Test(arguments: [TestMedia.Sample.adMatching, .adMismatched, .adPortrait, .adRotated])
    func adBeepsLineUpWithFlashes(sample: TestMedia.Sample) throws {
        let offsets = try MediaVerifier.syncOffsets(sample.url)
        let seconds = Int((try MediaVerifier.probe(sample.url).duration ?? 0).rounded())
        #expect(offsets.count == seconds)
        let worst = try #require(MediaVerifier.maxAbsoluteOffset(offsets))
        #expect(worst < 0.001)
    }

    @Test func audioOnlyFileHasBeepsAndNoVideo() throws {
        let onsets = try MediaVerifier.beepOnsets(TestMedia.Sample.audioOnly.url)
        #expect(onsets.count == 3)
        for (k, t) in onsets.enumerated() { #expect(abs(t - Double(k)) < 0.001) }
        #expect(throws: VerifierError.self) { try MediaVerifier.videoFrames(TestMedia.Sample.audioOnly.url) }
        #expect(throws: VerifierError.self) { try MediaVerifier.analyzeAudio(TestMedia.Sample.adSilent.url) }
    }

    // MARK: the verifier catches faults

    @Test func droppedFramesAndLateAudioAreDetected() throws {
        let broken = try TestMedia.derived(
            from: TestMedia.Sample.adMatching.url, name: "fault-drop30-39-audio+10ms.mp4",
            arguments: ["-vf", "select='not(between(n,30,39))',setpts=N/30/TB", "-af", "adelay=10:all=1",
                        "-c:v", "libx264", "-preset", "veryfast", "-crf", "28", "-threads", "2", "-c:a", "aac"])
        let frames = try MediaVerifier.videoFrames(broken)
        #expect(frames.count == 170)
        let segments = MediaVerifier.segments(frames)
        #expect(segments.count == 1 && segments[0].skips == 1 && segments[0].repeats == 0)
        #expect(frames[30].identity == FrameIdentity(sourceID: 2, frameIndex: 40))
        #expect(frames.filter(\.isFlash).map(\.index) == [0, 50, 80, 110, 140])
        let onsets = try MediaVerifier.beepOnsets(broken)
        #expect(onsets.count == 6)
        for (k, t) in onsets.enumerated() { #expect(abs(t - (Double(k) + 0.010)) < 0.001, "onset \(k) at \(t)") }
    }

    // MARK: errors

    @Test(arguments: [TestMedia.Sample.content, .adMatching, .adMismatched, .adSilent, .adPortrait, .adRotated, .audioOnly])
    func goodFilesDecodeWithoutErrors(sample: TestMedia.Sample) throws {
        #expect(try MediaVerifier.ffmpegErrors(sample.url) == "")
    }

    @Test(arguments: [TestMedia.Sample.badGarbage, .badTruncated])
    func badFilesReportErrors(sample: TestMedia.Sample) throws {
        #expect(try MediaVerifier.ffmpegErrors(sample.url) != "")
    }

    // MARK: ad-hoc clips

    @Test func adHocClipCarriesTheSameScheme() throws {
        let url = try TestMedia.clip(sourceID: 9, width: 160, height: 120, fps: 10, seconds: 2,
                                     sampleRate: 22050, channels: 1, gop: 5)
        let frames = try MediaVerifier.videoFrames(url)
        #expect(frames.map(\.identity) == (0..<20).map { FrameIdentity(sourceID: 9, frameIndex: $0) })
        #expect(frames.filter(\.isKey).map(\.index) == [0, 5, 10, 15])
        let worst = try #require(MediaVerifier.maxAbsoluteOffset(try MediaVerifier.syncOffsets(url)))
        #expect(worst < 0.001)
        let probe = try MediaVerifier.probe(url)
        #expect(probe.audio?.sampleRate == 22050 && probe.audio?.channels == 1)
        #expect(try TestMedia.clip(sourceID: 9, width: 160, height: 120, fps: 10, seconds: 2,
                                   sampleRate: 22050, channels: 1, gop: 5) == url)
        let silent = try TestMedia.clip(sourceID: 10, width: 96, height: 64, fps: 12, seconds: 1, audio: false)
        #expect(try MediaVerifier.probe(silent).audio == nil)
    }

    @Test func mediaDirectoriesAreFound() {
        #expect(FileManager.default.fileExists(atPath: TestMedia.Sample.content.url.path))
        if let shared = TestMedia.sharedMediaDirectory {
            #expect(shared.lastPathComponent == "media")
        }
    }
}
