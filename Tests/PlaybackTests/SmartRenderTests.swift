import Foundation
import Interlude
import Testing
import Timing
import TestSupport
@testable import Playback

/// Smart rendering (`--smart`): content packets outside the GOPs a cue splits are the source's
/// own bytes; only split GOPs and ads are encoded; HLS packages of it play; `auto` falls back
/// with a reason. (Frame exactness and sync of smart output: `StitchFidelityTests`.)
@Suite(.serialized) struct SmartRenderTests {
    static let dir: URL = {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-smart-\(getpid())")
        try? FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }()

    /// content.mp4 (keyframes every 60 frames) with a mid-roll at frame 615 (inside GOP 600–659)
    /// and one at 31.31 s (frame 940, inside GOP 900–959).
    static func request(_ name: String, container: OutputContainer = .mp4, smart: SmartRendering = .on) -> StitchRequest {
        var r = StitchRequest(
            content: TestMedia.Sample.content.url.path,
            breaks: [AdBreakRequest(id: "pre", position: .start, ads: [TestMedia.Sample.adMatching.url.path]),
                     AdBreakRequest(id: "mid1", position: .time(MediaTime(value: 41, timescale: 2)), ads: [TestMedia.Sample.adMismatched.url.path]),
                     AdBreakRequest(id: "mid2", position: .time(MediaTime(value: 3131, timescale: 100)), ads: [TestMedia.Sample.adSilent.url.path])],
            output: dir.appendingPathComponent(name).path, container: container,
            encoder: EncoderSettings(preset: "ultrafast", crf: 30), overwrite: true)
        r.smart = smart
        return r
    }

    /// (pts in stream ticks, MD5 of the payload) of every video packet.
    static func packetHashes(_ url: URL) throws -> [(pts: Int64, hash: String)] {
        let out = try Tools.ffprobe(["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts,data_hash",
                                     "-show_data_hash", "MD5", "-of", "csv=p=0", url.path])
        return String(decoding: out.stdout, as: UTF8.self).split(separator: "\n").compactMap { line in
            let f = line.split(separator: ",")
            guard f.count == 2, let pts = Int64(f[0]) else { return nil }
            return (pts, String(f[1]))
        }
    }

    static func timeBase(_ url: URL) throws -> Rational {
        try #require(try MediaVerifier.probe(url).video?.timeBase)
    }

    /// Stitches `content` (30 fps, GOPs of 60) with mid-rolls at frames 615 and 940, then compares
    /// every output packet of a content frame with the source packet of the same frame.
    /// Returns the content frames whose packets differ (re-encoded).
    static func reencodedFrames(content: URL, name: String) async throws -> (differ: Set<Int>, same: Int, summary: SmartRenderingSummary?) {
        var req = Self.request(name)
        req.content = content.path
        let fixed = req
        let result = try await offPool { try Stitcher(request: fixed).run() }
        let out = URL(fileURLWithPath: req.output)
        let frame = MediaTime(value: 1, timescale: 30)
        let sourceTB = try Self.timeBase(content)
        var byFrame: [Int: String] = [:]
        for p in try Self.packetHashes(content) {
            byFrame[Int(MediaTime(value: p.pts * sourceTB.numerator, timescale: sourceTB.denominator).count(of: frame))] = p.hash
        }
        #expect(byFrame.count == 1200)
        let outTB = try Self.timeBase(out)
        var same = 0, differ = Set<Int>()
        for p in try Self.packetHashes(out) {
            let t = MediaTime(value: p.pts * outTB.numerator, timescale: outTB.denominator)
            guard let seg = result.timeline.segments.first(where: { $0.streamStart <= t && t < $0.streamEnd }) else { continue }
            let f = Int((seg.contentStart + (t - seg.streamStart)).count(of: frame))
            if byFrame[f] == p.hash { same += 1 } else { differ.insert(f) }
        }
        #expect(try await MediaVerifier.ffmpegErrors(out) == "")
        return (differ, same, result.smartRendering)
    }

    /// Whether the source frames `start..<end` of a GOP come first in its decode order.
    static func decodeOrderPrefix(_ content: URL, gop start: Int, before end: Int) throws -> Bool {
        let tb = try Self.timeBase(content)
        let order = try Self.packetHashes(content).map { Int(MediaTime(value: $0.pts * tb.numerator, timescale: tb.denominator).count(of: MediaTime(value: 1, timescale: 30))) }
        let gop = order.filter { $0 >= start && $0 < start + 60 }
        return gop.prefix(end - start).allSatisfy { $0 < end }
    }

    @Test func copiedPacketsAreTheSourcesOwnBytes() async throws {
        // content.mp4 has B-frames: the frames before a cue are copied only when they come first
        // in decode order; the frames from the cue to the next keyframe are always re-encoded.
        let content = TestMedia.Sample.content.url
        let (differ, same, summary) = try await Self.reencodedFrames(content: content, name: "copy.mp4")
        var expected = Set(Array(615..<660) + Array(940..<960))
        if !(try Self.decodeOrderPrefix(content, gop: 600, before: 615)) { expected.formUnion(600..<615) }
        if !(try Self.decodeOrderPrefix(content, gop: 900, before: 940)) { expected.formUnion(900..<940) }
        #expect(differ == expected, "only the split GOPs' re-encoded frames differ")
        #expect(same == 1200 - expected.count)
        #expect(summary?.used == true && summary?.encodedContentFrames == expected.count && summary?.copiedFrames == 1200 - expected.count)
    }

    @Test func withoutBFramesOnlyTheFramesFromACueToTheNextKeyframeAreEncoded() async throws {
        let content = try await TestMedia.derived(from: TestMedia.Sample.content.url, name: "content-no-bframes.mp4", arguments: [
            "-map", "0", "-c:v", "libx264", "-preset", "ultrafast", "-g", "60", "-keyint_min", "60", "-sc_threshold", "0",
            "-c:a", "copy", "-fflags", "+bitexact"])
        let (differ, same, summary) = try await Self.reencodedFrames(content: content, name: "copy-no-b.mp4")
        #expect(differ == Set(Array(615..<660) + Array(940..<960)))
        #expect(same == 1200 - 65 && summary?.copiedFrames == 1135 && summary?.encodedContentFrames == 65)
    }

    @Test func smartHLSPackagePlaysInOrder() async throws {
        var req = Self.request("pkg", container: .hls)
        req.hls.segmentDuration = MediaTime(seconds: 4)
        let fixed = req
        let result = try await offPool { try Stitcher(request: fixed).run() }
        #expect(result.smartRendering?.used == true)
        let playlist = URL(fileURLWithPath: req.output).appendingPathComponent("index.m3u8")
        let text = try String(contentsOf: playlist, encoding: .utf8)
        let segments = text.split(separator: "\n").filter { $0.hasSuffix(".ts") }
        for s in segments {
            let out = try await Tools.ffprobe(["-v", "error", "-show_entries", "format=duration", URL(fileURLWithPath: req.output).appendingPathComponent(String(s)).path])
            #expect(out.stderr.isEmpty, "\(s): \(out.stderr)")
        }
        #expect(try await MediaVerifier.ffmpegErrors(playlist) == "")
        let frames = try await MediaVerifier.videoFrames(playlist)
        let runs = MediaVerifier.segments(frames)
        #expect(runs.map(\.sourceID) == [2, 1, 3, 1, 4, 1], "\(runs)")
        let content = runs.filter { $0.sourceID == 1 }
        #expect(content.map(\.firstFrame) == [0, 615, 940] && content.map(\.lastFrame) == [614, 939, 1199])
        #expect(content.allSatisfy { $0.skips == 0 && $0.repeats == 0 })
        #expect(text.components(separatedBy: "#EXT-X-CUE-OUT").count - 1 == 3)
    }

    @Test func autoFallsBackWithAReason() async throws {
        var req = Self.request("fallback.mp4", smart: .auto)
        req.size = (320, 180)
        let fixed = req
        let result = try await offPool { try Stitcher(request: fixed).run() }
        #expect(result.smartRendering?.used == false)
        #expect(result.smartRendering?.reason?.contains("--size") == true)
        // `on` refuses instead, writing nothing
        var strict = Self.request("refused.mp4", smart: .on)
        strict.size = (320, 180)
        #expect(throws: StitchFailure.self) { try Stitcher(request: strict).run() }
        #expect(!FileManager.default.fileExists(atPath: strict.output))
    }

    @Test func contentThatCannotBeCopiedIsRefusedWithItsReason() throws {
        let format = OutputFormat(width: 640, height: 360, frameRate: Rational(30, 1), sampleRate: 48000, channels: 2)
        // open GOP / non-IDR keyframes: made with x264's open-gop
        let open = try TestMedia.derived(from: TestMedia.Sample.content.url, name: "content-open-gop.mp4", arguments: [
            "-t", "4", "-c:v", "libx264", "-preset", "ultrafast", "-bf", "2", "-x264-params", "open-gop=1:keyint=30:min-keyint=30", "-an"])
        guard case .failure(let r) = try SmartContentScan.scan(url: open.path, format: format) else {
            Issue.record("open-GOP content was accepted"); return
        }
        #expect(r.reason.contains("open GOP") || r.reason.contains("IDR"), "\(r.reason)")
        // a different rate than the output's
        let ok = try SmartContentScan.scan(url: TestMedia.Sample.content.url.path,
                                           format: OutputFormat(width: 640, height: 360, frameRate: Rational(25, 1), sampleRate: 48000, channels: 2))
        guard case .failure(let rate) = ok else { Issue.record("25 fps output accepted for 30 fps content"); return }
        #expect(rate.reason.contains("constant") || rate.reason.contains("frame duration"), "\(rate.reason)")
        // the content itself is accepted: keyframes every 60 frames, B-frames with delay 2
        guard case .success(let scan) = try SmartContentScan.scan(url: TestMedia.Sample.content.url.path, format: format) else {
            Issue.record("content.mp4 refused"); return
        }
        #expect(scan.keyframes == Array(stride(from: 0, to: 1200, by: 60)) && scan.frameCount == 1200 && scan.reorderDelay == 2)
    }
}
