import Foundation
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

    @Test func copiedPacketsAreTheSourcesOwnBytes() async throws {
        let req = Self.request("copy.mp4")
        let result = try await offPool { try Stitcher(request: req).run() }
        let out = URL(fileURLWithPath: req.output)
        let summary = try #require(result.smartRendering)
        #expect(summary.used && summary.copiedFrames == 1080 && summary.encodedContentFrames == 120, "\(summary)")
        // Source: content frame index → hash (constant 512 ticks a frame at 1/15360).
        let source = try Self.packetHashes(TestMedia.Sample.content.url)
        let sourceTB = try Self.timeBase(TestMedia.Sample.content.url)
        var byFrame: [Int: String] = [:]
        for p in source { byFrame[Int(MediaTime(value: p.pts * sourceTB.numerator, timescale: sourceTB.denominator).count(of: MediaTime(value: 1, timescale: 30)))] = p.hash }
        #expect(byFrame.count == 1200)
        // Output: packets of content frames, mapped back through the report's timeline.
        let outTB = try Self.timeBase(out)
        var same = 0, differ: [Int] = []
        for p in try Self.packetHashes(out) {
            let t = MediaTime(value: p.pts * outTB.numerator, timescale: outTB.denominator)
            guard let seg = result.timeline.segments.first(where: { $0.streamStart <= t && t < $0.streamEnd }) else { continue }
            let frame = Int((seg.contentStart + (t - seg.streamStart)).count(of: MediaTime(value: 1, timescale: 30)))
            if byFrame[frame] == p.hash { same += 1 } else { differ.append(frame) }
        }
        #expect(same == 1080)
        #expect(Set(differ) == Set(Array(600..<660) + Array(900..<960)), "only the split GOPs are re-encoded")
        #expect(try MediaVerifier.ffmpegErrors(out) == "")
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
            let out = try Tools.ffprobe(["-v", "error", "-show_entries", "format=duration", URL(fileURLWithPath: req.output).appendingPathComponent(String(s)).path])
            #expect(out.stderr.isEmpty, "\(s): \(out.stderr)")
        }
        #expect(try MediaVerifier.ffmpegErrors(playlist) == "")
        let frames = try MediaVerifier.videoFrames(playlist)
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
