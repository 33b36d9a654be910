import Foundation
import Interlude
import Media
import Testing
import Timing
import TestSupport
@testable import Playback

/// Ad pictures larger than any player would show (`PictureBudget.ad`: 4096×2304 pixels, no side
/// over 8192) are refused with VAST 403 before a decoder allocates a frame of that size, whether
/// the container says so, or only the bitstream does (a header that lies); the ad is left out of
/// its pod and the content stitched whole.
@Suite struct AdPictureBudgetTests {
    @Test func theBudgetAdmitsWhatPlayersShow() {
        let b = PictureBudget.ad
        for (w, h) in [(3840, 2160), (4096, 2160), (4096, 2304), (2160, 3840), (2304, 4096), (8192, 1152), (1920, 1080), (16, 16)] {
            #expect(b.admits(width: w, height: h), "\(w)x\(h)")
        }
        for (w, h) in [(4098, 2304), (4096, 2306), (8192, 8192), (16000, 16000), (8194, 2), (2, 8194), (5120, 2880)] {
            #expect(!b.admits(width: w, height: h), "\(w)x\(h)")
            #expect(b.refusal("x", width: w, height: h)?.description.contains("over the ad picture budget") == true)
        }
    }

    @Test(arguments: OversizedAd.allCases)
    func aPictureOverTheBudgetIsRefusedWith403(_ file: OversizedAd) throws {
        let url = try file.url.path
        do {
            _ = try AdMediaProbe.measure(url)
            Issue.record("\(file) was accepted")
        } catch let r as AdMediaProbe.Rejection {
            #expect(r.code == 403)
            #expect(r.message.contains("over the ad picture budget"), "\(r.message)")
            #expect(!r.message.contains("\n"))
        }
    }

    @Test func aPictureAtTheBudgetIsMeasured() throws {
        let url = try TestMedia.generated("budget-h264-4096x2304.mp4", arguments: [
            "-f", "lavfi", "-i", "color=c=green:s=4096x2304:r=1", "-t", "2", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"])
        let m = try AdMediaProbe.measure(url.path)
        #expect(m.width == 4096 && m.height == 2304 && m.frames == 2 && m.duration == MediaTime(seconds: 2))
    }

    /// The budget is in the decoder itself: a lying header gets no further than the first slice.
    @Test func aDecoderOfAdMediaRefusesThePictureTheBitstreamDeclares() throws {
        let demuxer = try Demuxer(url: try OversizedAd.mjpegLyingHeader.url.path, policy: .adMedia)
        #expect(demuxer.pictureBudget == .ad)
        let video = try #require(demuxer.bestStream(.video))
        let decoder = try Decoder(demuxer: demuxer, streamIndex: video, threads: 1)
        let packet = try Packet(), frame = try Frame()
        #expect(throws: MediaError.self) {
            while try demuxer.read(into: packet) == .packet {
                guard packet.streamIndex == video else { continue }
                try decoder.send(packet)
                if try decoder.receive(into: frame) == .produced { return }
            }
        }
        // content (trusted) has the content budget, which this picture fits
        #expect(try Demuxer(url: try OversizedAd.h264.url.path).pictureBudget == .content)
    }

    /// A picture over the budget that only appears mid-stream is refused on the frame that shows
    /// it: the probe measures the ad (its first frame fits), the stitch plays it up to there and
    /// reports 405 (it failed while splicing), the content stays whole.
    @Test func aPictureOverTheBudgetMidStreamEndsTheAdThere() async throws {
        let url = try OversizedAd.widerMidStream().path
        let m = try AdMediaProbe.measure(url)
        #expect(m.width == 320 && m.height == 180)
        let demuxer = try Demuxer(url: url, policy: .adMedia)
        let video = try #require(demuxer.bestStream(.video))
        let decoder = try Decoder(demuxer: demuxer, streamIndex: video, threads: 1)
        let packet = try Packet(), frame = try Frame()
        var decoded = 0
        var refusal: MediaError?
        do {
            while try demuxer.read(into: packet) == .packet {
                guard packet.streamIndex == video else { continue }
                try decoder.send(packet)
                while try decoder.receive(into: frame) == .produced { decoded += 1 }
            }
        } catch let e as MediaError { refusal = e }
        #expect(decoded == 50)
        #expect(refusal?.description.contains("a decoded picture is 8320x64, over the ad picture budget") == true, "\(String(describing: refusal))")

        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-budget-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.mp4")
        let req = StitchRequest(content: TestMedia.Sample.content.url.path,
                                breaks: [AdBreakRequest(id: "mid", position: .time(MediaTime(seconds: 10)), ads: [url])],
                                output: out.path, overwrite: true)
        let r = try await offPool { try Stitcher(request: req).run() }
        #expect(r.issues.map(\.code) == [405])
        #expect(r.issues.first?.message.contains("over the ad picture budget") == true)
        let segments = MediaVerifier.segments(try await MediaVerifier.videoFrames(out))
        #expect(segments.first?.sourceID == 1 && segments.first?.frameCount == 300)
        #expect(segments.last?.sourceID == 1 && segments.last?.firstFrame == 300 && segments.last?.frameCount == 900)
    }

    @Test(arguments: OversizedAd.allCases)
    func theAdIsLeftOutOfItsPodAndTheContentStitched(_ file: OversizedAd) async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-budget-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let big = try file.url.path
        let out = dir.appendingPathComponent("out.mp4")
        let req = StitchRequest(content: TestMedia.Sample.content.url.path,
                                breaks: [AdBreakRequest(id: "mid", position: .time(MediaTime(seconds: 10)),
                                                        ads: [big, TestMedia.Sample.adMatching.url.path])],
                                output: out.path, overwrite: true)
        let r = try await offPool { try Stitcher(request: req).run() }
        #expect(r.issues.map(\.code) == [403])
        #expect(r.issues.first?.mediaFile == big && r.issues.first?.breakId == "mid")
        #expect(r.breaks.first?.ads.map(\.mediaFile) == [TestMedia.Sample.adMatching.url.path])
        #expect(r.breaks.first?.ads.first?.totalAds == 1)
        #expect(r.videoFrames == 1200 + 180)
        let frames = try await MediaVerifier.videoFrames(out)
        #expect(frames.count == 1200 + 180)
        // the content whole and in order around the one ad that played: frames 0-299, the ad, 300-1199
        let segments = MediaVerifier.segments(frames)
        #expect(segments.map(\.sourceID) == [1, 2, 1])
        #expect(segments.map(\.frameCount) == [300, 180, 900])
        #expect(segments.map(\.firstFrame) == [0, 0, 300])
    }
}
