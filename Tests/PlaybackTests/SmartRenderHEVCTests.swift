import Foundation
import Interlude
import Testing
import Timing
import Media
import TestSupport
@testable import Playback

/// Smart rendering of HEVC content: packets outside the GOPs a cue splits are the source's own
/// (every copied keyframe gains the content's parameter sets in front, its slices unchanged, so
/// a decoder that seeks to it out of an ad decodes it); split GOPs and ads are encoded by libx265;
/// content frames appear once and in order in the MP4 and in the HLS package; a warm transcode
/// cache gives the same frames.
@Suite(.serialized) struct SmartRenderHEVCTests {
    /// content.mp4 as HEVC Main: libx265, closed GOPs of 60 frames, B-frames.
    static func content() throws -> URL {
        try TestMedia.derived(from: TestMedia.Sample.content.url, name: "content-hevc.mp4", arguments: [
            "-map", "0", "-c:v", "libx265", "-preset", "ultrafast", "-crf", "30",
            "-x265-params", "keyint=60:min-keyint=60:scenecut=0:open-gop=0:log-level=error", "-c:a", "copy", "-fflags", "+bitexact"])
    }

    static func request(_ name: String, container: OutputContainer = .mp4, cache: String? = nil) throws -> StitchRequest {
        var r = SmartRenderTests.request(name, container: container)
        r.content = try content().path
        r.transcodeCache = cache
        return r
    }

    /// (frame index in the source, size, MD5) of every video packet of `url`, mapped through `timeline`
    /// for an output (nil: `url` is the source).
    static func packets(_ url: URL, timeline: TimelineMap? = nil) throws -> [(frame: Int, size: Int, hash: String)] {
        let out = try Tools.ffprobe(["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts,size,data_hash",
                                     "-show_data_hash", "MD5", "-of", "csv=p=0", url.path])
        let tb = try SmartRenderTests.timeBase(url)
        let frame = MediaTime(value: 1, timescale: 30)
        return String(decoding: out.stdout, as: UTF8.self).split(separator: "\n").compactMap { line in
            let f = line.split(separator: ",")
            guard f.count == 3, let pts = Int64(f[0]), let size = Int(f[1]) else { return nil }
            var t = MediaTime(value: pts * tb.numerator, timescale: tb.denominator)
            if let timeline {
                guard let seg = timeline.segments.first(where: { $0.streamStart <= t && t < $0.streamEnd }) else { return nil }
                t = seg.contentStart + (t - seg.streamStart)
            }
            return (Int(t.count(of: frame)), size, String(f[2]))
        }
    }

    static func checkFrames(_ url: URL) throws {
        let frames = try MediaVerifier.videoFrames(url)
        let runs = MediaVerifier.segments(frames)
        #expect(runs.map(\.sourceID) == [2, 1, 3, 1, 4, 1], "\(runs)")
        let content = runs.filter { $0.sourceID == 1 }
        #expect(content.map(\.firstFrame) == [0, 615, 940] && content.map(\.lastFrame) == [614, 939, 1199])
        #expect(content.allSatisfy { $0.skips == 0 && $0.repeats == 0 })
        #expect(try MediaVerifier.ffmpegErrors(url) == "")
    }

    @Test func hevcContentIsCopiedOutsideTheSplitGOPs() async throws {
        let source = try Self.content()
        let req = try Self.request("hevc.mp4")
        let result = try await offPool { try Stitcher(request: req).run() }
        let out = URL(fileURLWithPath: req.output)
        #expect(try await MediaVerifier.probe(out).video?.codec == "hevc")
        try Self.checkFrames(out)
        var byFrame: [Int: (size: Int, hash: String)] = [:]
        for p in try Self.packets(source) { byFrame[p.frame] = (p.size, p.hash) }
        #expect(byFrame.count == 1200)
        // the content's VPS/SPS/PPS, each with a 4-byte length: what a copied IDR gains in front
        let demuxer = try Demuxer(url: source.path)
        let video = try #require(demuxer.bestStream(.video))
        let config = try #require(HVCConfig(hvcC: demuxer.videoCodecParameters(of: video).extradata))
        let setsSize = config.parameterSets.reduce(0) { $0 + 4 + $1.count }
        #expect(config.parameterSets.count == 3)
        var same = 0, differ = Set<Int>(), grown: [Int: Int] = [:]
        for p in try Self.packets(out, timeline: result.timeline) {
            guard let s = byFrame[p.frame] else { Issue.record("no source frame \(p.frame)"); continue }
            if s.hash == p.hash { same += 1 } else { differ.insert(p.frame); grown[p.frame] = p.size - s.size }
        }
        // split GOPs: the frames from each cue to the next keyframe, and those before the cue (x265's
        // B-frames put later frames first in decode order)
        let split = Set(Array(600..<660) + Array(900..<960))
        // every copied keyframe: all the content's but those of the split GOPs
        let idrs = Set(stride(from: 0, to: 1200, by: 60)).subtracting([600, 900])
        #expect(differ.subtracting(split) == idrs, "\(differ.subtracting(split).sorted())")
        #expect(idrs.allSatisfy { grown[$0] == setsSize }, "IDRs grew by \(idrs.map { grown[$0] ?? -1 }), sets are \(setsSize) bytes")
        #expect(same == 1200 - differ.count && same >= 1200 - 120 - idrs.count)
        #expect(result.smartRendering?.used == true && result.smartRendering?.copiedFrames == 1200 - differ.intersection(split).count)
    }

    /// content.mp4 as HEVC whose parameter sets differ from the stitch's libx265 in ways that
    /// matter to a decoder: 16×16 CTUs and 8×8 CUs (the encoder's ultrafast preset uses 32 and 16),
    /// so slices decoded with the other SPS are garbage.
    static func contentWithOtherSets() throws -> URL {
        try TestMedia.derived(from: TestMedia.Sample.content.url, name: "content-hevc-ctu16.mp4", arguments: [
            "-map", "0", "-c:v", "libx265", "-preset", "ultrafast", "-crf", "30",
            "-x265-params", "keyint=60:min-keyint=60:scenecut=0:open-gop=0:ctu=16:min-cu-size=8:log-level=error",
            "-c:a", "copy", "-fflags", "+bitexact"])
    }

    /// Every packet of the video stream of `url`, in file order, with its demuxer and stream index.
    static func videoPackets(_ url: URL) throws -> (demuxer: Demuxer, stream: Int, packets: [Packet]) {
        let demuxer = try Demuxer(url: url.path)
        let v = try #require(demuxer.bestStream(.video))
        demuxer.keepOnly([v])
        var packets: [Packet] = []
        let scratch = try Packet()
        while try demuxer.read(into: scratch) == .packet {
            if scratch.streamIndex == v { packets.append(try scratch.take()) } else { scratch.unref() }
        }
        return (demuxer, v, packets)
    }

    /// Seeks as a player does, with one libavcodec decoder for the whole file: for every keyframe
    /// of `url`, decodes the file's first GOP (the pre-roll: libx265's sets in band), flushes,
    /// then decodes from that keyframe. Returns the keyframes (packet index) whose first
    /// picture differs from what a fresh decoder (the sample entry's sets only) makes of it, or
    /// that decode to nothing.
    static func keyframesThatFailAfterASeek(_ url: URL) throws -> (keyframes: [Int], bad: [Int]) {
        let (demuxer, v, packets) = try videoPackets(url)
        let keys = packets.indices.filter { packets[$0].isKeyframe }
        #expect(keys.count > 10 && keys.first == 0)
        // the luma plane of the picture of packet `k` (the keyframe), decoding from `k` on
        func picture(_ decoder: Decoder, from k: Int) throws -> [UInt8]? {
            let want = packets[k].ptsTicks
            let frame = try Frame()
            var i = k
            while true {
                switch try decoder.receive(into: frame) {
                case .produced:
                    if frame.bestEffortTicks == want {
                        return frame.withYUV420Planes { planes in
                            let y = planes[0]
                            var out: [UInt8] = []
                            out.reserveCapacity(y.width * y.height)
                            for row in 0..<y.height { out.append(contentsOf: UnsafeBufferPointer(start: y.base + row * y.stride, count: y.width)) }
                            return out
                        } ?? nil
                    }
                case .drained: return nil
                case .needsInput:
                    if i < packets.count { try decoder.send(packets[i]); i += 1 } else { try decoder.send(nil) }
                }
            }
        }
        let player = try Decoder(demuxer: demuxer, streamIndex: v, threads: 1)
        var bad: [Int] = []
        for k in keys.dropFirst() {
            let fresh = try Decoder(demuxer: demuxer, streamIndex: v, threads: 1)
            let reference = try picture(fresh, from: k)
            player.flush()
            _ = try picture(player, from: 0)               // the pre-roll's IDR, with libx265's sets
            player.flush()                                 // the seek
            let seeked = try picture(player, from: k)
            if reference == nil || seeked != reference { bad.append(k) }
        }
        return (keys, bad)
    }

    /// The same jump through GStreamer (`h265parse ! avdec_h265`), which has no seek to script
    /// here: for every keyframe, an Annex B stream of the output's first GOP (the pre-roll, libx265's
    /// sets in band) followed by the GOP from that keyframe, with nothing added: what a decoder sees
    /// when a player jumps. Returns the keyframes (packet index) whose picture differs from a fresh
    /// libavcodec decoder's; nil when gst-launch-1.0 is not installed.
    static func keyframesThatGStreamerGetsWrongAfterAJump(_ url: URL) throws -> [Int]? {
        let gst = "/usr/bin/gst-launch-1.0"
        guard FileManager.default.isExecutableFile(atPath: gst) else { return nil }
        let (demuxer, v, packets) = try videoPackets(url)
        let keys = packets.indices.filter { packets[$0].isKeyframe }
        func annexB(_ range: Range<Int>) -> [UInt8] {
            range.flatMap { NALUnits.annexB(NALUnits.split(lengthPrefixed: packets[$0].bytes, lengthSize: 4) ?? []) }
        }
        let preroll = annexB(0..<keys[1])
        let dir = SmartRenderTests.dir.appendingPathComponent("gst-jump")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let size = 640 * 360, frameBytes = size * 3 / 2
        var bad: [Int] = []
        for (n, k) in keys.enumerated().dropFirst() {
            let end = n + 1 < keys.count ? keys[n + 1] : packets.count
            let es = dir.appendingPathComponent("jump-\(k).hevc"), raw = dir.appendingPathComponent("jump-\(k).yuv")
            try Data(preroll + annexB(k..<end)).write(to: es)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: gst)
            process.arguments = ["-q", "filesrc", "location=\(es.path)", "!", "h265parse", "!", "avdec_h265", "!",
                                 "videoconvert", "!", "video/x-raw,format=I420", "!", "filesink", "location=\(raw.path)"]
            try process.run()
            process.waitUntilExit()
            let frames = (try? Data(contentsOf: raw)) ?? Data()
            // the keyframe's picture comes right after the pre-roll's (closed GOPs, IDR first)
            let at = keys[1] * frameBytes
            let picture = frames.count >= at + size ? [UInt8](frames[at..<at + size]) : nil
            let fresh = try Decoder(demuxer: demuxer, streamIndex: v, threads: 1)
            var reference: [UInt8]?
            let frame = try Frame()
            var i = k
            decoding: while true {
                switch try fresh.receive(into: frame) {
                case .produced:
                    guard frame.bestEffortTicks == packets[k].ptsTicks else { continue }
                    reference = frame.withYUV420Planes { planes in
                        (0..<planes[0].height).flatMap { row in UnsafeBufferPointer(start: planes[0].base + row * planes[0].stride, count: planes[0].width) }
                    } ?? nil
                    break decoding
                case .drained: break decoding
                case .needsInput:
                    if i < end { try fresh.send(packets[i]); i += 1 } else { try fresh.send(nil) }
                }
            }
            if process.terminationStatus != 0 || reference == nil || picture != reference { bad.append(k) }
            try? FileManager.default.removeItem(at: es)
            try? FileManager.default.removeItem(at: raw)
        }
        return bad
    }

    @Test func everyKeyframeDecodesAfterASeekOutOfAnAd() async throws {
        var req = try Self.request("hevc-seek.mp4")
        req.content = try Self.contentWithOtherSets().path
        let fixed = req
        let result = try await offPool { try Stitcher(request: fixed).run() }
        #expect(result.smartRendering?.used == true)
        let out = URL(fileURLWithPath: req.output)
        let (keys, bad) = try Self.keyframesThatFailAfterASeek(out)
        // pre-roll 180 frames, content keyframes, the split GOPs' and ads' IDRs
        #expect(keys.count >= 20, "\(keys)")
        #expect(bad.isEmpty, "keyframes (packet index) that a seeking decoder gets wrong: \(bad) of \(keys)")
        if let gst = try Self.keyframesThatGStreamerGetsWrongAfterAJump(out) {
            #expect(gst.isEmpty, "keyframes (packet index) GStreamer decodes wrong after a jump from the pre-roll: \(gst)")
        }
        #expect(try await MediaVerifier.ffmpegErrors(out) == "")
    }

    @Test func openGOPHEVCIsRefusedWithItsReason() throws {
        // libx265's default: open GOPs with CRA keyframes, whose leading pictures refer across the cut
        let open = try TestMedia.derived(from: TestMedia.Sample.content.url, name: "content-hevc-open-gop.mp4", arguments: [
            "-t", "6", "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "keyint=60:min-keyint=60:scenecut=0:log-level=error", "-an"])
        let format = OutputFormat(width: 640, height: 360, frameRate: Rational(30, 1), sampleRate: 48000, channels: 2)
        guard case .failure(let r) = try SmartContentScan.scan(url: open.path, format: format) else {
            Issue.record("open-GOP HEVC was accepted"); return
        }
        #expect(r.reason.contains("IDR") || r.reason.contains("open GOP"), "\(r.reason)")
        guard case .success(let scan) = try SmartContentScan.scan(url: try Self.content().path, format: format) else {
            Issue.record("closed-GOP HEVC refused"); return
        }
        #expect(scan.keyframes == Array(stride(from: 0, to: 1200, by: 60)) && scan.encoderProfile == "main")
    }

    @Test func hevcHLSPackageAndWarmCacheGiveTheSameFrames() async throws {
        var req = try Self.request("hevc-pkg", container: .hls)
        req.hls.segmentDuration = MediaTime(seconds: 4)
        let fixed = req
        _ = try await offPool { try Stitcher(request: fixed).run() }
        let playlist = URL(fileURLWithPath: req.output).appendingPathComponent("index.m3u8")
        let text = try String(contentsOf: playlist, encoding: .utf8)
        for s in text.split(separator: "\n").filter({ $0.hasSuffix(".ts") }) {
            let out = try await Tools.ffprobe(["-v", "error", "-show_entries", "format=duration",
                                         URL(fileURLWithPath: req.output).appendingPathComponent(String(s)).path])
            #expect(out.stderr.isEmpty, "\(s): \(out.stderr)")
        }
        try Self.checkFrames(playlist)
        // the ads through a transcode cache: stored, then copied from it
        let cache = SmartRenderTests.dir.appendingPathComponent("hevc-cache").path
        try? FileManager.default.removeItem(atPath: cache)
        let first = try Self.request("hevc-cold.mp4", cache: cache), second = try Self.request("hevc-warm.mp4", cache: cache)
        let cold = try await offPool { try Stitcher(request: first).run() }
        let warm = try await offPool { try Stitcher(request: second).run() }
        #expect(cold.breaks.flatMap(\.ads).map(\.transcodeCache) == [.stored, .stored, .stored])
        #expect(warm.breaks.flatMap(\.ads).map(\.transcodeCache) == [.hit, .hit, .hit])
        try Self.checkFrames(URL(fileURLWithPath: second.output))
        #expect(try Self.packets(URL(fileURLWithPath: first.output)).map(\.hash) == Self.packets(URL(fileURLWithPath: second.output)).map(\.hash))
    }
}
