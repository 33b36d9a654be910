import Foundation
import Interlude
import Testing
import Timing
import TestSupport
@testable import Playback

/// The ad transcode cache: a second smart stitch with the same ads copies their packets from the
/// cache (nothing of them is encoded) and is the same stitch, frame for frame, byte for byte in
/// its video; a skip inside a cached ad still cuts on its exact frame; damaged entries are misses.
@Suite(.serialized) struct TranscodeCacheTests {
    static let dir: URL = {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-tcache-\(getpid())")
        try? FileManager.default.removeItem(at: d)
        try? FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }()

    static func request(_ name: String, cache: URL) -> StitchRequest {
        var r = StitchRequest(
            content: TestMedia.Sample.content.url.path,
            breaks: [AdBreakRequest(id: "pre", position: .start, ads: [TestMedia.Sample.adMismatched.url.path]),
                     AdBreakRequest(id: "mid", position: .time(MediaTime(value: 41, timescale: 2)),
                                    ads: [TestMedia.Sample.adSilent.url.path, TestMedia.Sample.adMismatched.url.path])],
            output: dir.appendingPathComponent(name).path, encoder: EncoderSettings(preset: "ultrafast", crf: 30), overwrite: true)
        r.smart = .on
        r.transcodeCache = cache.path
        return r
    }

    static func videoHashes(_ url: URL) throws -> [String] {
        let out = try Tools.ffprobe(["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts,data_hash",
                                     "-show_data_hash", "MD5", "-of", "csv=p=0", url.path])
        return String(decoding: out.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test func aWarmCacheCopiesEveryAdAndGivesTheSameStitch() async throws {
        let cache = Self.dir.appendingPathComponent("cache")
        let cold = Self.request("cold.mp4", cache: cache), warm = Self.request("warm.mp4", cache: cache)
        let first = try await offPool { try Stitcher(request: cold).run() }
        let second = try await offPool { try Stitcher(request: warm).run() }
        #expect(first.breaks.flatMap(\.ads).map(\.transcodeCache) == [.stored, .stored, .hit], "the pod's second ad is the pre-roll's")
        #expect(second.breaks.flatMap(\.ads).map(\.transcodeCache) == [.hit, .hit, .hit])
        let entries = try FileManager.default.contentsOfDirectory(atPath: cache.path).filter { $0.hasSuffix(".iltc") }
        #expect(entries.filter { !$0.hasPrefix("aac-") }.count == 2, "one video entry per ad")
        #expect(entries.contains { $0.hasPrefix("aac-") }, "encoded audio runs kept too (AudioRunCache)")
        let a = URL(fileURLWithPath: cold.output), b = URL(fileURLWithPath: warm.output)
        #expect(try Self.videoHashes(a) == Self.videoHashes(b), "the same video packets, cached or not")
        #expect(try await MediaVerifier.ffmpegErrors(b) == "")
        let frames = try await MediaVerifier.videoFrames(b)
        let runs = MediaVerifier.segments(frames)
        #expect(runs.map(\.sourceID) == [3, 1, 4, 3, 1], "\(runs)")
        #expect(runs.filter { $0.sourceID == 3 }.allSatisfy { $0.frameCount == 150 && $0.firstFrame == 0 && $0.lastFrame == 124 })
        let audio = try await MediaVerifier.analyzeAudio(b)
        let offsets = MediaVerifier.syncOffsets(flashTimes: MediaVerifier.flashTimes(frames), beepOnsets: audio.onsets)
        let silent = Double(runs.first { $0.sourceID == 4 }!.firstOutputIndex) / 30
        let audible = zip(MediaVerifier.flashTimes(frames), offsets).filter { !($0.0 >= silent && $0.0 < silent + 4) }.map(\.1)
        #expect(audible.count >= 40 && (audible.map { abs($0 ?? 1) }.max() ?? 1) < 0.002)
    }

    @Test func aSkipInsideACachedAdCutsOnItsFrame() async throws {
        let cache = Self.dir.appendingPathComponent("cache-skip")
        let warmUp = Self.request("skip-warm.mp4", cache: cache)
        _ = try await offPool { try Stitcher(request: warmUp).run() }
        // Play the cached mismatched ad (25 fps, 150 output frames) and stop after output frame 70.
        let req = Self.request("skip.mp4", cache: cache)
        // A stitching player: the ad as a pre-roll whose observer sees (and is waited for on)
        // every frame, answering false on the 71st; then content up to 2 s.
        let placed: PlacedAd? = try await offPool {
            let player = try Player(stitching: req)
            let media = try AdMediaProbe.measure(TestMedia.Sample.adMismatched.url.path)
            let queue = DispatchQueue(label: "tcache-skip")
            let n = PlayerTests.Box(0), ad = PlayerTests.Box<PlacedAd?>(nil)
            player.addBoundaryTimeObserver(forTimes: [MediaTime(seconds: 2)], queue: queue) { [player] in player.pause() }
            let everyFrame = AdFrameMarks(duration: media.duration, quartiles: false, period: .zero, waits: true)
            player.playAd(media, position: 1, totalAds: 1, queue: queue, marks: everyFrame, onFrame: { _, _ in
                n.value += 1
                return n.value < 71
            }) { [player] result in
                ad.value = try? result.get().placement
                player.play()
            }
            #expect(player.waitUntilIdle(timeout: 60))
            try player.close()
            return ad.value
        }
        #expect(placed?.transcodeCache == .hit && placed?.frames == 71)
        let runs = MediaVerifier.segments(try await MediaVerifier.videoFrames(URL(fileURLWithPath: req.output)))
        #expect(runs.map(\.sourceID) == [3, 1] && runs.first?.frameCount == 71, "\(runs)")
        #expect(runs.last?.firstFrame == 0 && runs.last?.frameCount == 60)
        #expect(try await MediaVerifier.ffmpegErrors(URL(fileURLWithPath: req.output)) == "")
    }

    @Test func damagedEntriesAreMissesAndTheCacheIsBounded() throws {
        let d = Self.dir.appendingPathComponent("cache-bound")
        let cache = try AdTranscodeCache(directory: d, maxBytes: 3000)
        #expect(AdTranscodeCache.decode(Data("ILTC1\nrubbish".utf8)) == nil)
        var e = AdTranscodeCache.Entry(frames: 1, sourcePTS: [[0, 1]], sourceEnd: [1, 30], origin: [0, 1])
        e.packets = [.init(index: 0, key: true, bytes: Array(repeating: 7, count: 1000))]
        for k in ["a", "b", "c", "d"] { cache.store(e, key: k); Thread.sleep(forTimeInterval: 0.02) }
        let kept = try FileManager.default.contentsOfDirectory(atPath: d.path).filter { $0.hasSuffix(".iltc") }.sorted()
        #expect(kept == ["c.iltc", "d.iltc"], "the oldest entries went: \(kept)")
        #expect(cache.load("d")?.packets.first?.bytes.count == 1000)
        try Data("ILTC1\n\u{0}\u{0}\u{0}\u{9}{\"frames\":".utf8).write(to: d.appendingPathComponent("c.iltc"))
        #expect(cache.load("c") == nil)
    }
}
