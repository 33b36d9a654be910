import Foundation
import Interlude
import Testing
import Timing
import TestSupport
import Media
@testable import Playback

/// Where content time 0 is (`ContentTimeline`): content whose clock starts far from zero (MP4
/// and MPEG-TS at 100,000 s, a TS whose 33-bit PTS wraps inside it) starts at its first presented
/// sample, an MP4's empty edit stays a leading gap, an edit's positive media time trims. Each is
/// stitched with a mid-roll: the output is the content plus the ad, cut at the first frame at or
/// after the cue measured from the origin, and plays in ffmpeg and GStreamer. Before, the
/// 100,000 s MP4 held its first frame for 27.8 hours of output (the mov muxer writes the offset
/// as an empty edit, and every MP4 counted from the movie's 0).
@Suite(.serialized) struct ContentOriginTests {
    /// The mid-roll, on the content's timeline.
    static let cue = MediaTime(value: 3, timescale: 2)
    /// ad-silent.mp4: 4 s.
    static let adDuration = 4.0

    /// The content files: content.mp4's first 2 s (frames 0…61, audio from 22 ms before the video),
    /// re-timed by stream copies (the trimmed one: frames 30…121).
    enum Case: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case mp4At100000s, tsAt100000s, tsWrapping, mp4EmptyEdit, mp4PositiveMediaTime

        var testDescription: String { rawValue }

        func file() throws -> URL {
            let c = TestMedia.Sample.content.url
            switch self {
            case .mp4At100000s:
                // the mov muxer writes the offset as a 100,000 s empty edit on every track
                return try TestMedia.derived(from: c, name: "content-2s-at-100000s.mp4",
                                             arguments: ["-t", "2", "-c", "copy", "-output_ts_offset", "100000"])
            case .tsAt100000s:
                return try TestMedia.derived(from: c, name: "content-2s-at-100000s.ts",
                                             arguments: ["-t", "2", "-c", "copy", "-output_ts_offset", "100000", "-f", "mpegts"])
            case .tsWrapping:
                // 2^33 ticks at 90 kHz is 95443.718 s; with the muxer's own 1.4 s the clock starts
                // about 1.04 s before the wrap
                return try TestMedia.derived(from: c, name: "content-2s-pts-wrap.ts",
                                             arguments: ["-t", "2", "-c", "copy", "-output_ts_offset", "95441.3", "-f", "mpegts"])
            case .mp4EmptyEdit:
                // every track 1 s late: a 1 s empty edit on each
                return try TestMedia.derived(from: c, name: "content-2s-all-at-1s.mp4",
                                             arguments: ["-itsoffset", "1", "-i", c.path, "-map", "1", "-t", "3", "-c", "copy"])
            case .mp4PositiveMediaTime:
                // copied from the keyframe at 0 with an edit whose media time is 1 s: the movie
                // shows content.mp4 from its frame 30 (3 s of it: at 2 s the copy's last B-frame
                // would be left out, a gap in the source itself)
                return try TestMedia.derived(from: c, name: "content-3s-from-1s-elst.mp4",
                                             arguments: ["-ss", "1", "-i", c.path, "-map", "1", "-t", "3", "-c", "copy"])
            }
        }

        /// The origin's rule; nil: content time 0 is container time 0 (not in the report).
        var rule: ContentOrigin.Rule? {
            switch self {
            case .mp4At100000s: .firstPresented
            case .tsAt100000s, .tsWrapping: .firstTimestamp
            case .mp4EmptyEdit, .mp4PositiveMediaTime: nil
            }
        }

        /// content.mp4's index of the first frame the movie shows.
        var firstIdentity: Int { self == .mp4PositiveMediaTime ? 30 : 0 }
    }

    /// Content time of the first video frame and of the video's end, from ffprobe: the video's
    /// start minus the origin (the earliest stream's start, or 0 for the movie's 0).
    static func expectedTimes(_ c: Case, _ probe: MediaProbe) throws -> (videoStart: Double, videoEnd: Double, origin: Double) {
        let v = try #require(probe.video)
        let origin = c.rule == nil ? 0 : try #require(probe.startTime)
        let start = try #require(v.startTime) - origin, duration = try #require(v.duration)
        return (start, start + duration, origin)
    }

    static func stitch(_ content: URL, smart: SmartRendering, name: String) async throws -> (URL, StitchResult) {
        var r = StitchRequest(content: content.path,
                              breaks: [AdBreakRequest(id: "mid", position: .time(cue), ads: [TestMedia.Sample.adSilent.url.path])],
                              output: SmartRenderTests.dir.appendingPathComponent(name).path,
                              encoder: EncoderSettings(preset: "ultrafast", crf: 30), overwrite: true)
        r.smart = smart
        let fixed = r
        let result = try await offPool { try Stitcher(request: fixed).run() }
        return (URL(fileURLWithPath: r.output), result)
    }

    /// The files are what they claim: the offsets, the wrap inside the TS (raw PTS, libavformat's
    /// unwrapping off), the empty edit, the trimmed start.
    @Test func theFilesAreWhatTheyClaim() async throws {
        let p100k = try await MediaVerifier.probe(Case.mp4At100000s.file())
        #expect(p100k.video?.startTime.map { abs($0 - 100_000) < 0.001 } == true, "\(p100k.streams)")
        let ts = try await MediaVerifier.probe(Case.tsAt100000s.file())
        // the TS clock is 100001.4 s modulo 2^33 ticks
        #expect(ts.startTime.map { abs($0 - (100_001.4 - 95_443.717_688_9)) < 0.1 } == true, "\(String(describing: ts.startTime))")
        let raw = try await Tools.ffprobe(["-v", "error", "-correct_ts_overflow", "0", "-select_streams", "v",
                                           "-show_entries", "packet=pts", "-of", "csv=p=0", try Case.tsWrapping.file().path])
        let pts = String(decoding: raw.stdout, as: UTF8.self).split(whereSeparator: \.isNewline)
            .compactMap { Int64($0.split(separator: ",").first ?? "") }
        let wrap: Int64 = 1 << 33
        #expect(pts.first.map { $0 > wrap - 2 * 90_000 && $0 < wrap } == true, "\(pts.prefix(3))")
        #expect(pts.contains { $0 < 90_000 }, "the clock wraps inside the file: \(pts.suffix(3))")
        let gap = try await MediaVerifier.probe(Case.mp4EmptyEdit.file())
        #expect(gap.video?.startTime == 1.0 && (gap.startTime ?? 0) > 0.9, "\(gap.streams)")
        let trimmed = try await MediaVerifier.probe(Case.mp4PositiveMediaTime.file())
        #expect(trimmed.video?.startTime == 0, "\(trimmed.streams)")
    }

    /// The rule, table-tested: MP4's 0 unless nothing plays for more than 10 s; other containers
    /// their earliest timestamp (a negative one after a wrap too).
    @Test func theOriginRule() {
        let ten = ContentTimeline.longestLeadingGap
        let cases: [(Bool, MediaTime?, MediaTime, ContentOrigin.Rule)] = [
            (true, nil, .zero, .movieStart),
            (true, .zero, .zero, .movieStart),
            (true, MediaTime(value: -1024, timescale: 48000), .zero, .movieStart),
            (true, MediaTime(seconds: 2), .zero, .movieStart),
            (true, ten, .zero, .movieStart),
            (true, ten + MediaTime(value: 1, timescale: 1000), ten + MediaTime(value: 1, timescale: 1000), .firstPresented),
            (true, MediaTime(seconds: 100_000), MediaTime(seconds: 100_000), .firstPresented),
            (false, nil, .zero, .firstTimestamp),
            (false, MediaTime(seconds: 1), MediaTime(seconds: 1), .firstTimestamp),
            (false, MediaTime(value: -1039, timescale: 1000), MediaTime(value: -1039, timescale: 1000), .firstTimestamp),
        ]
        for (zeroBased, earliest, start, rule) in cases {
            let t = ContentTimeline(zeroBased: zeroBased, earliest: earliest)
            #expect(t.start == start && t.rule == rule, "\(zeroBased) \(String(describing: earliest)): \(t)")
            #expect((t.reported == nil) == (start == .zero))
        }
        let t = ContentTimeline(zeroBased: false, earliest: MediaTime(seconds: 5))
        #expect(t.origin(firstFrame: MediaTime(seconds: 4)) == MediaTime(seconds: 4))
        #expect(t.origin(firstFrame: MediaTime(seconds: 6)) == MediaTime(seconds: 5))
    }

    @Test(arguments: [(Case.mp4At100000s, SmartRendering.auto), (.mp4At100000s, .off), (.tsAt100000s, .auto),
                      (.tsWrapping, .auto), (.mp4EmptyEdit, .auto), (.mp4EmptyEdit, .off), (.mp4PositiveMediaTime, .auto)])
    func aMidRollCountsFromTheOrigin(_ c: Case, smart: SmartRendering) async throws {
        let source = try c.file()
        let probe = try await MediaVerifier.probe(source)
        let (videoStart, videoEnd, origin) = try Self.expectedTimes(c, probe)
        let (out, result) = try await Self.stitch(source, smart: smart, name: "origin-\(c.rawValue)-\(smart).mp4")
        // the report: the origin, the break at the cue
        let reported = result.content.timelineOrigin
        #expect(reported?.rule == c.rule, "\(String(describing: reported))")
        if c.rule != nil { #expect(reported.map { abs($0.containerTime.seconds - origin) < 0.001 } == true) }
        let b = try #require(result.breaks.first)
        #expect(b.contentTime == Self.cue, "\(b)")
        // copied where the content allows it (an MP4 without trimmed packets), re-encoded otherwise
        let copies = smart == .auto && (c == .mp4At100000s || c == .mp4EmptyEdit)
        #expect((result.smartRendering?.used ?? false) == copies, "\(String(describing: result.smartRendering))")
        // output duration = content (from the origin) + the ad, to a frame
        let frames = try await MediaVerifier.videoFrames(out)
        let outSeconds = Double(frames.count) / 30
        #expect(abs(outSeconds - (videoEnd + Self.adDuration)) <= 1.0 / 30 + 0.001,
                "\(frames.count) frames, content \(videoEnd) s + ad \(Self.adDuration) s")
        // the cut: after the last frame before the cue, content resumes at the first frame at or after it
        let k = Int(((Self.cue.seconds - videoStart) * 30 - 1e-6).rounded(.up))
        let runs = MediaVerifier.segments(frames)
        #expect(runs.map(\.sourceID) == [1, 4, 1], "\(runs)")
        guard runs.count == 3 else { return }
        #expect(runs[0].firstFrame == c.firstIdentity && runs[0].lastFrame == c.firstIdentity + k - 1 && runs[0].skips == 0, "\(runs[0])")
        #expect(runs[2].firstFrame == c.firstIdentity + k && runs[2].skips == 0 && runs[2].repeats == 0, "\(runs[2])")
        // the ad starts at the cue's stream time: the held first frame's slots (a leading gap)
        // and the frames before the cue
        #expect(runs[1].firstOutputIndex == Int(b.streamTime.count(of: MediaTime(value: 1, timescale: 30))), "\(runs[1]) \(b)")
        #expect(abs(b.streamTime.seconds - Self.cue.seconds) < 1.0 / 30 + 0.001, "\(b)")
        #expect(try await MediaVerifier.ffmpegErrors(out) == "")
        let gst = try await FieldCheck.check(out, with: .gstreamer)
        #expect(gst.clean, "\(gst.report)")
    }

    /// The presenting player counts from the same origin: its clock starts at 0 on the 100,000 s
    /// MP4, not at 27.8 hours (nor does it hold the first frame for them).
    @Test func thePlayerCountsFromTheOrigin() async throws {
        let player = try Player.open(url: Case.mp4At100000s.file(), clock: .asFastAsPossible)
        let times = PlayerTests.Box<[MediaTime]>([])
        player.addPeriodicTimeObserver(forInterval: MediaTime(seconds: 1), queue: PlayerTests.queue) { t in times.value.append(t) }
        player.play()
        #expect(player.waitUntilIdle(timeout: 60))
        let end = player.currentTime()
        try player.close()
        #expect(times.value.first == .zero && times.value.allSatisfy { $0 < MediaTime(seconds: 3) }, "\(times.value)")
        #expect(end > MediaTime(seconds: 2) && end < MediaTime(seconds: 3), "\(end)")
    }
}
