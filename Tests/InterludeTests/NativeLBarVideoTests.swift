import Ads
import Foundation
import Interlude
import Testing
import TestSupport

/// An L-bar whose ad has a video asset: the video plays in the layout's media window (decoded
/// and conformed like ad media, muted) for the video's measured duration while the content keeps
/// playing in its window. Checked by decoding the output with the ffmpeg CLI.
@MainActor @Suite(.serialized) struct NativeLBarVideoTests {
    /// An L-bar with a content window and a 96x54 media window; its declared duration (1 s) is
    /// for image ads only.
    static let formatFile = """
        {"formatID": "10063170",
         "assets": [{"name": "Headline", "id": 1, "type": "text"}, {"name": "MainImage", "id": 2, "type": "image"},
                    {"name": "MainVideo", "id": 4, "type": "video"}],
         "lbar": {"width": 320, "height": 180, "background": "#203040", "duration": 1,
           "views": [{"name": "Content", "kind": "content", "x": 0, "y": 0, "width": 224, "height": 126},
                     {"name": "Main", "kind": "media", "fallback": "MainImage", "x": 224, "y": 8, "width": 96, "height": 54},
                     {"name": "Headline", "kind": "text", "x": 8, "y": 134, "width": 300, "height": 36, "size": 24, "color": "#FFFFFF", "bold": true}]}}
        """

    @Test func theVideoPlaysInTheMediaWindowForItsDurationBesideTheContent() async throws {
        let clip = try await TestMedia.clip(sourceID: 5, width: 320, height: 180, fps: 25, seconds: 2)
        let f = try NativeAdServer(video: clip)
        let ad = try await NativeRenderTests.ad(f, video: true)
        #expect(ad.videoController.hasVideoContent())
        let template = try #require(try NativeTemplate.parse(formatFile: Data(Self.formatFile.utf8), key: "lbar").get())
        let content = try await TestMedia.clip(sourceID: 1, width: 320, height: 180, fps: 25, seconds: 4)
        let (r, out) = try await NativeRenderTests.stitch([NativeBreak(position: .time(MediaTime(seconds: 1)), ad: ad, layout: .lBar,
                                                                       template: template)], content: content)
        #expect(r.videoFrames == 100, "no break: the content keeps its time")
        let p = try #require(r.natives.first)
        #expect(p.frames == 50 && p.firstFrame == 1.0 && p.lastFrame == 2.96, "the video's 2 s, not the template's 1 s")
        #expect(p.media == f.server.url("/media/native.mp4"))
        #expect(r.warnings.isEmpty, "\(r.warnings)")
        let pictures = try await DecodedPictures.decode(out, pixelFormat: "rgb24")
        let video = try NativeRenderTests.reference(clip, name: "native-video-s5-2s-96x54.nut", filter: "scale=96:54")
        let window = try NativeRenderTests.reference(content, name: "native-content-s1-224x126.nut", filter: "scale=224:126")
        for k in stride(from: 0, to: 50, by: 7) {
            let n = 25 + k
            let here = NativeRenderTests.meanDifference(pictures, frame: n, x: 224, y: 8, video, frame: k)
            let other = NativeRenderTests.meanDifference(pictures, frame: n, x: 224, y: 8, video, frame: (k + 10) % 50)
            #expect(here < 10 && here < other, "video frame \(k) in the media window on output frame \(n): \(here) (another: \(other))")
            let c = NativeRenderTests.meanDifference(pictures, frame: n, x: 0, y: 0, window, frame: n)
            let cNext = NativeRenderTests.meanDifference(pictures, frame: n, x: 0, y: 0, window, frame: n + 1)
            #expect(c < 8 && c < cNext, "content frame \(n) in its window: \(c) vs \(cNext)")
        }
        // before and after the L-bar: content only
        let frames = try await MediaVerifier.videoFrames(out)
        #expect(frames[0..<25].map { $0.identity?.frameIndex } == Array(0..<25))
        #expect(frames[75..<100].map { $0.identity?.frameIndex } == Array(75..<100))
        // muted: the output's sound over the L-bar is the content's (same as a stitch without it)
        let plain = try await NativeRenderTests.stitch([], content: content).1
        #expect(try Self.audioLevels(out) == (try Self.audioLevels(plain)))
    }

    /// RMS level per 0.1 s of the output's audio, in whole dB, by the ffmpeg CLI.
    static func audioLevels(_ url: URL) throws -> [Int] {
        let pcm = try Tools.ffmpeg(["-v", "error", "-i", url.path, "-vn", "-ac", "1", "-ar", "8000", "-f", "s16le", "-"])
        let samples = pcm.stdout.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        return stride(from: 0, to: samples.count, by: 800).map { i in
            let chunk = samples[i..<min(i + 800, samples.count)]
            let rms = (chunk.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, chunk.count))).squareRoot()
            return Int((20 * log10(max(rms, 1) / 32768)).rounded())
        }
    }
}
