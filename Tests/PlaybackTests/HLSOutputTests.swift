import Foundation
import Interlude
import Testing
import Timing
import TestSupport
@testable import Playback

/// `--format hls`: a package whose playlist carries the break markers at the exact ad boundaries,
/// whose every segment ffprobe reads without error, and whose decoded frames keep the stitch's
/// promises (content frames once and in order, cuts at the first frame ≥ cue, audio in sync).
@Suite(.serialized) struct HLSOutputTests {
    struct Packaged: Sendable {
        let dir: URL
        let result: StitchResult
        let playlist: String
    }

    static let packaged = Task { try await offPool { try makePackage(.mpegTS) } }
    static let packagedCMAF = Task { try await offPool { try makePackage(.cmaf) } }

    /// The package of the one schedule in `format`.
    static func package(_ format: HLSSegmentFormat) async throws -> Packaged {
        switch format { case .mpegTS: try await packaged.value; case .cmaf: try await packagedCMAF.value }
    }

    static func makePackage(_ format: HLSSegmentFormat) throws -> Packaged {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-hls-\(format.rawValue)-\(getpid())")
        try? FileManager.default.removeItem(at: root)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let dir = root.appendingPathComponent("pkg")
        var request = StitchRequest(
            content: TestMedia.Sample.content.url.path,
            breaks: [
                AdBreakRequest(id: "pre", position: .start, ads: [TestMedia.Sample.adMatching.url.path]),
                AdBreakRequest(id: "mid", position: .time(MediaTime(value: 41, timescale: 2)),
                               ads: [TestMedia.Sample.adMismatched.url.path, TestMedia.Sample.adSilent.url.path]),
                AdBreakRequest(id: "post", position: .end, ads: [TestMedia.Sample.adRotated.url.path]),
            ],
            output: dir.path, container: .hls, encoder: EncoderSettings(preset: "ultrafast", crf: 30), overwrite: true)
        request.hls.segmentDuration = MediaTime(seconds: 4)
        request.hls.programDate = Date(timeIntervalSince1970: 1_700_000_000)
        request.hls.segmentFormat = format
        let result = try Stitcher(request: request).run()
        // CMAF: index.m3u8 is the multivariant playlist; its video playlist carries the same segments and markers
        let playlist = try String(contentsOf: dir.appendingPathComponent(format == .cmaf ? "video.m3u8" : "index.m3u8"), encoding: .utf8)
        // the MPEG-TS package is HLSStrictClientTests'; the CMAF one goes through the field's players here and in the field check
        if format == .cmaf {
            FieldCheck.keep(dir.appendingPathComponent("index.m3u8"), gstreamer: true)
            FieldCheck.keep(dir.appendingPathComponent("index.mpd"), gstreamer: true)
        }
        return Packaged(dir: dir, result: result, playlist: playlist)
    }

    /// The playlist's media segments with the tags that precede each.
    struct Entry { var tags: [String]; var duration: Double; var uri: String }

    static func entries(_ text: String) -> (header: [String], entries: [Entry], trailer: [String]) {
        var header: [String] = [], entries: [Entry] = [], pending: [String] = []
        var duration: Double?
        for line in text.split(separator: "\n").map(String.init) {
            if line.hasPrefix("#EXTINF:") {
                duration = Double(line.dropFirst(8).split(separator: ",").first ?? "")
            } else if !line.hasPrefix("#") {
                entries.append(Entry(tags: pending, duration: duration ?? -1, uri: line)); pending = []; duration = nil
            } else if entries.isEmpty && !line.hasPrefix("#EXT-X-PROGRAM-DATE-TIME") && !line.hasPrefix("#EXT-X-DATERANGE")
                        && !line.hasPrefix("#EXT-X-CUE") && !line.hasPrefix("#EXT-X-MAP") {
                header.append(line)
            } else {
                pending.append(line)
            }
        }
        return (header, entries, pending)
    }

    @Test(arguments: HLSSegmentFormat.allCases)
    func playlistMarksEveryBreakAtItsExactBoundaries(format: HLSSegmentFormat) async throws {
        let p = try await Self.package(format)
        let (header, entries, trailer) = Self.entries(p.playlist)
        #expect(header.contains("#EXT-X-PLAYLIST-TYPE:VOD") && trailer.last == "#EXT-X-ENDLIST")
        let target = Int(header.first { $0.hasPrefix("#EXT-X-TARGETDURATION:") }!.split(separator: ":")[1])!
        // CMAF: 5, the audio track's longest segment (4.03 s) rounded up, in both playlists
        #expect(target == (format == .cmaf ? 5 : 4))
        #expect(entries.allSatisfy { $0.duration > 0 && Int($0.duration.rounded()) <= target })
        #expect(abs(entries.map(\.duration).reduce(0, +) - 59) < 0.001, "6 + 40 + 5 + 4 + 4 s")
        // Stream time at the start of each entry.
        var starts: [Double] = [], t = 0.0
        for e in entries { starts.append(t); t += e.duration }
        func startTimes(of tag: String) -> [Double] {
            zip(entries, starts).filter { $0.0.tags.contains { $0.hasPrefix(tag) } }.map { ($0.1 * 1000).rounded() / 1000 }
        }
        // Breaks go out at 0, 26.5 (6 + 20.5) and 55; come back in at 6, 35.5 and the end.
        #expect(startTimes(of: "#EXT-X-CUE-OUT:DURATION=") == [0, 26.5, 55])
        #expect(startTimes(of: "#EXT-X-CUE-IN") == [6, 35.5])
        #expect(trailer.contains("#EXT-X-CUE-IN"))
        // Discontinuities at every join but the first segment: 6, 26.5, 31.5 (ad to ad), 35.5, 55;
        // none in CMAF tracks (one clock, one sample entry)
        #expect(startTimes(of: "#EXT-X-DISCONTINUITY") == (format == .cmaf ? [] : [6, 26.5, 31.5, 35.5, 55]))
        // SCTE-35 out with the planned duration, in again under the same ID; one ad range per ad.
        let out = p.playlist.split(separator: "\n").filter { $0.contains("SCTE35-OUT=0xFC") }
        let into = p.playlist.split(separator: "\n").filter { $0.contains("SCTE35-IN=0xFC") }
        #expect(out.count == 3 && into.count == 3)
        #expect(out.first?.contains("ID=\"pre\"") == true && out.first?.contains("PLANNED-DURATION=6.000") == true)
        #expect(out[1].contains("START-DATE=\"2023-11-14T22:13:46.500Z\""), "program date + 26.5 s: \(out[1])")
        let ads = p.playlist.split(separator: "\n").filter { $0.contains("CLASS=\"com.interlude.ad\"") }
        #expect(ads.map { $0.contains("X-AD-ID=\"ad-mismatched.mp4\"") } == [false, true, false, false])
        #expect(startTimes(of: "#EXT-X-DATERANGE:ID=\"mid-ad-2\"") == [31.5])
        // CMAF: its initialization section before the first segment and again after every discontinuity
        let version = Int(header.first { $0.hasPrefix("#EXT-X-VERSION:") }!.split(separator: ":")[1])!
        switch format {
        case .mpegTS:
            #expect(entries.allSatisfy { $0.uri.hasSuffix(".ts") } && !p.playlist.contains("#EXT-X-MAP"))
        case .cmaf:
            #expect(version >= 6, "EXT-X-MAP needs version 6")
            #expect(entries.allSatisfy { $0.uri.hasSuffix(".m4s") })
            #expect(startTimes(of: "#EXT-X-MAP:URI=\"init-video.mp4\"") == [0])
        }
    }

    @Test(arguments: HLSSegmentFormat.allCases)
    func everySegmentReadsCleanlyAndStartsOnAKeyframe(format: HLSSegmentFormat) async throws {
        let p = try await Self.package(format)
        let (_, entries, _) = Self.entries(p.playlist)
        #expect(entries.count >= 15)
        for e in entries {
            let url = try CMAFFiles.readable(p.dir.appendingPathComponent(e.uri))
            defer { if format == .cmaf { try? FileManager.default.removeItem(at: url) } }
            let out = try await Tools.ffprobe(["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", url.path])
            #expect(out.stderr.isEmpty, "\(e.uri): \(out.stderr)")
            var probed = Double(String(decoding: out.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            if format == .cmaf {
                // a fragment read after its initialization section: its frames' span (ffprobe's duration counts from 0)
                let video = try await MediaVerifier.packets(url, kind: .video)
                probed = (video.compactMap { p in p.pts.map { $0 + (p.duration ?? 0) } }.max() ?? 0) - (video.compactMap(\.pts).min() ?? 0)
            }
            #expect(abs(probed - e.duration) < 0.05, "\(e.uri): \(probed) s vs EXTINF \(e.duration)")
            #expect(try await MediaVerifier.packets(url, kind: .video).first?.isKey == true, "\(e.uri)")
        }
        #expect(try await MediaVerifier.ffmpegErrors(p.dir.appendingPathComponent("index.m3u8")) == "")
    }

    @Test(arguments: HLSSegmentFormat.allCases)
    func decodedPackageKeepsTheFrameAndSyncPromises(format: HLSSegmentFormat) async throws {
        let p = try await Self.package(format)
        let url = p.dir.appendingPathComponent("index.m3u8")
        let frames = try await MediaVerifier.videoFrames(url)
        let segments = MediaVerifier.segments(frames)
        #expect(segments.map(\.sourceID) == [2, 1, 3, 4, 1, 6], "\(segments)")
        let content = segments.filter { $0.sourceID == 1 }
        #expect(content.map(\.firstFrame) == [0, 615] && content.map(\.lastFrame) == [614, 1199])
        #expect(content.allSatisfy { $0.skips == 0 && $0.repeats == 0 })
        #expect(frames.count == 1770)
        // constant rate across every segment boundary: the timeline is one
        let t0 = try #require(frames.first?.pts)
        #expect(frames.enumerated().allSatisfy { $0.element.pts.map { $0 - t0 } == MediaTime(value: Int64($0.offset), timescale: 30) })
        let audio = try await MediaVerifier.analyzeAudio(url)
        let flashes = MediaVerifier.flashTimes(frames)
        let offsets = MediaVerifier.syncOffsets(flashTimes: flashes, beepOnsets: audio.onsets)
        // the silent ad's 4 flashes have no beep
        let silent = try #require(frames[segments.first { $0.sourceID == 4 }!.firstOutputIndex].seconds)
        let audible = zip(flashes, offsets).filter { !($0.0 >= silent && $0.0 < silent + 4) }.map(\.1)
        let worst = audible.map { abs($0 ?? 1) }.max() ?? 1
        #expect(audible.count >= 50)
        #expect(worst < 0.002, "worst A/V offset \(worst * 1000) ms")
        print("hls \(format.rawValue): \(audible.count) flashes paired with beeps, worst A/V offset \(String(format: "%.3f", worst * 1000)) ms")
    }

    @Test func nothingIsLeftBehindWhenTheStitchFails() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-hls-fail-\(getpid())")
        try? FileManager.default.removeItem(at: root)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let request = StitchRequest(content: TestMedia.Sample.content.url.path,
                                    breaks: [AdBreakRequest(id: "late", position: .time(MediaTime(seconds: 99)), ads: [])],
                                    output: root.appendingPathComponent("pkg").path, container: .hls)
        #expect(throws: StitchFailure.self) { try Stitcher(request: request).run() }
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path).isEmpty)
    }
}

@Suite struct HLSPlanTests {
    let t = { (s: Double) in MediaTime(seconds: s, timescale: 1000) }

    @Test func segmentsCutAtKeyframesWithinTargetAndNeverMixAdsWithContent() {
        let ad = PackagedAd(id: "a", mediaFile: "a.mp4", start: t(10.5), end: t(15.5))
        let b = PackagedBreak(id: "mid", start: t(10.5), end: t(15.5), ads: [ad])
        let keys = [0, 2, 4, 6, 8, 10, 10.5, 12.5, 14.5, 15.5, 17.5, 19.5].map(t)   // 10: the run ends within 4 s of 8
        let segs = HLSPlan.segments(keyframes: keys, duration: t(20), breaks: [b], target: t(4))
        #expect(segs.map(\.start) == [0, 4, 8, 10.5, 14.5, 15.5, 19.5].map(t))
        #expect(segs.map(\.end) == [4, 8, 10.5, 14.5, 15.5, 19.5, 20].map(t))
        #expect(segs.map(\.adIndex) == [nil, nil, nil, 0, 0, nil, nil])
        // no keyframe within the target: the first one after it
        let long = HLSPlan.segments(keyframes: [0, 7].map(t), duration: t(9), breaks: [], target: t(4))
        #expect(long.map(\.end) == [7, 9].map(t))
    }

    @Test func scte35SpliceInsertIsWellFormed() {
        let s = SCTE35.spliceInsert(eventID: 7, outOfNetwork: true, at: MediaTime(seconds: 10), breakDuration: MediaTime(seconds: 30))
        #expect(s[0] == 0xFC)
        let sectionLength = Int(s[1] & 0x0F) << 8 | Int(s[2])
        #expect(sectionLength == s.count - 3)
        #expect(SCTE35.crc32MPEG2(s) == 0, "a section's CRC over itself is 0")
        #expect(s[13] == 0x05, "splice_insert")
        #expect(Array(s[14..<18]) == [0, 0, 0, 7])
        #expect(s[19] & 0x80 != 0, "out of network")
        // pts_time 10 s = 900000 ticks in the 33 bits after the time_specified flag
        let bits = s[20..<25].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        #expect((bits & ((1 << 33) - 1)) == 900_000)
        #expect(SCTE35.crc32MPEG2(Array("123456789".utf8)) == 0x0376E6E7, "CRC-32/MPEG-2 check value")
        let back = SCTE35.spliceInsert(eventID: 7, outOfNetwork: false, at: MediaTime(seconds: 40), breakDuration: nil)
        #expect(back[19] & 0x80 == 0 && back.count == s.count - 5)
    }
}
