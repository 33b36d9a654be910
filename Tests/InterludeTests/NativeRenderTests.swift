import Ads
import Foundation
import Interlude
import Testing
import TestSupport

/// Native layouts drawn into stitched video, checked by decoding the output with the ffmpeg CLI:
/// a full-frame native break (image format: a still of the declared duration; video format: the
/// video in the media window) and an L-bar around the still-playing content.
@MainActor @Suite(.serialized) struct NativeRenderTests {
    /// The guide's format with a full-frame template and an L-bar template, at a 320x180 design.
    static let formatFile = """
        {"formatID": "10063170", "name": "Simple",
         "assets": [{"name": "Headline", "id": 1, "type": "text"}, {"name": "MainImage", "id": 2, "type": "image"},
                    {"name": "Caption", "id": 3, "type": "text"}, {"name": "MainVideo", "id": 4, "type": "video"}],
         "template": {"width": 320, "height": 180, "background": "#203040", "duration": 2,
           "views": [{"name": "Main", "kind": "media", "fallback": "MainImage", "x": 16, "y": 36, "width": 192, "height": 108},
                     {"name": "Headline", "kind": "text", "x": 216, "y": 40, "width": 100, "height": 30, "size": 18, "color": "#FFFFFF", "bold": true},
                     {"name": "Caption", "kind": "text", "x": 216, "y": 80, "width": 100, "height": 20, "size": 11, "color": "#C0C0C0"},
                     {"name": "3011", "kind": "image", "x": 296, "y": 4, "width": 20, "height": 20}]},
         "lbar": {"width": 320, "height": 180, "background": "#203040", "duration": 2,
           "views": [{"name": "Content", "kind": "content", "x": 0, "y": 0, "width": 224, "height": 126},
                     {"name": "MainImage", "kind": "image", "x": 232, "y": 8, "width": 80, "height": 44},
                     {"name": "Headline", "kind": "text", "x": 8, "y": 134, "width": 300, "height": 36, "size": 24, "color": "#FFFFFF", "bold": true},
                     {"name": "3011", "kind": "image", "x": 296, "y": 156, "width": 20, "height": 20}]}}
        """

    static func template(_ key: String) throws -> NativeTemplate {
        try #require(try NativeTemplate.parse(formatFile: Data(formatFile.utf8), key: key).get())
    }

    static func ad(_ fixture: NativeAdServer, video: Bool = false) async throws -> CustomNativeAd {
        let format = try NativeFormatDefinition.parse(Data(formatFile.utf8)).get()
        let loader = AdLoader(adUnitID: fixture.server.url("/native.json"), adTypes: [.customNative])
        loader.register(format)
        let probe = NativeDelegateProbe()
        await probe.load(loader)
        return try #require(probe.ads.first, "\(probe.errors)")
    }

    static func stitch(_ natives: [NativeBreak], content: URL, breaks: [AdBreakRequest] = []) async throws -> (StitchResult, URL) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-native-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let out = dir.appendingPathComponent("o.nut")
        let request = StitchRequest(content: content.path, breaks: breaks, output: out.path, container: .nut)
        return (try await NativeStitcher(request: request, natives: natives).run(), out)
    }

    /// Mean absolute difference of two rgb24 rectangles (one in `a`'s frame `n` at (x, y), the
    /// other a whole picture `b` of the same size).
    static func meanDifference(_ a: DecodedPictures, frame n: Int, x: Int, y: Int, _ b: DecodedPictures, frame m: Int = 0) -> Double {
        var sum = 0
        for row in 0..<b.height {
            for col in 0..<b.width {
                for c in 0..<3 { sum += abs(Int(a.value(frame: n, x: x + col, y: y + row, channel: c)) - Int(b.value(frame: m, x: col, y: row, channel: c))) }
            }
        }
        return Double(sum) / Double(b.width * b.height * 3)
    }

    /// Pixels of frame `n` in a rectangle brighter than `threshold` in every channel (white ink).
    static func ink(_ p: DecodedPictures, frame n: Int, x: Int, y: Int, width: Int, height: Int, threshold: UInt8 = 200) -> Int {
        var count = 0
        for row in y..<(y + height) { for col in x..<(x + width) where (0..<3).allSatisfy({ p.value(frame: n, x: col, y: row, channel: $0) > threshold }) { count += 1 } }
        return count
    }

    /// `file` decoded by the ffmpeg CLI to rgb24 after scaling with `filter`.
    /// A one-second native video (`clip`, 25 fps) in a full-frame break from output frame 25: on
    /// frames 25, 37 and 49 the template's media window (192x108 at 16, 36) holds the video's
    /// frame k, closer than to another of its frames.
    static func expectVideoInMediaWindow(_ pictures: DecodedPictures, clip: URL) throws {
        let video = try reference(clip, name: "native-video-s5-192x108.nut", filter: "scale=192:108")
        for k in [0, 12, 24] {
            let here = meanDifference(pictures, frame: 25 + k, x: 16, y: 36, video, frame: k)
            let other = meanDifference(pictures, frame: 25 + k, x: 16, y: 36, video, frame: (k + 6) % 25)
            #expect(here < 8 && here < other, "video frame \(k) in the media window: \(here) (another frame: \(other))")
        }
    }

    static func reference(_ file: URL, name: String, filter: String) throws -> DecodedPictures {
        let url = try TestMedia.derived(from: file, name: name, arguments: ["-vf", filter, "-c:v", "rawvideo", "-pix_fmt", "rgb24", "-an", "-f", "nut"])
        return try DecodedPictures.decode(url, pixelFormat: "rgb24")
    }

    @Test func fullFrameImageBreakDrawsTheTemplateForItsDeclaredDuration() async throws {
        let f = try NativeAdServer()
        let ad = try await Self.ad(f)
        #expect(!ad.videoController.hasVideoContent())
        let content = try await TestMedia.clip(sourceID: 1, width: 320, height: 180, fps: 25, seconds: 4)
        let (r, out) = try await Self.stitch([NativeBreak(position: .time(MediaTime(seconds: 1)), ad: ad, layout: .fullFrame,
                                                          template: try Self.template("template"))], content: content)
        // 4 s of content + the 2 s native break
        #expect(r.videoFrames == 150)
        let b = try #require(r.breaks.first)
        #expect(b.id == "native-1" && b.streamTime == MediaTime(seconds: 1) && b.duration == MediaTime(seconds: 2))
        let placement = try #require(r.natives.first)
        #expect(placement.layout == "full" && placement.frames == 50)
        #expect(placement.firstFrame == 1.0 && placement.lastFrame == 2.96)
        #expect(placement.impressionStreamTime == 1.0)
        #expect(placement.impressionURLs == [f.server.url("/imp"), f.server.url("/ev-imp")])
        #expect(await f.waitForHits("/imp", count: 1) == 1)

        let pictures = try await DecodedPictures.decode(out, pixelFormat: "rgb24")
        #expect(pictures.frames.count == 150)
        // the MainImage region (media view with the image fallback) holds the source image scaled to 192x108
        let scaled = try Self.reference(TestMedia.cacheDirectory.appendingPathComponent("native-quadrants-160x90.png"),
                                        name: "native-quadrants-192x108.nut", filter: "scale=192:108")
        for n in [25, 50, 74] {
            let d = Self.meanDifference(pictures, frame: n, x: 16, y: 36, scaled)
            #expect(d < 12, "frame \(n): image region differs from the scaled source by \(d)")
            // background around it, headline ink in its rect, none in an empty band
            #expect(abs(pictures.mean(frame: n, x: 4, y: 160, width: 100, height: 12, channel: 2) - 0x40) < 6)
            #expect(Self.ink(pictures, frame: n, x: 216, y: 40, width: 100, height: 30) > 60, "headline drawn on frame \(n)")
            #expect(Self.ink(pictures, frame: n, x: 216, y: 110, width: 100, height: 30) == 0)
            // the AdChoices icon: blue (0, 170, 210) around its "i"
            #expect(pictures.mean(frame: n, x: 298, y: 6, width: 4, height: 4, channel: 2) > 150)
            #expect(pictures.mean(frame: n, x: 298, y: 6, width: 4, height: 4, channel: 0) < 80)
        }
        // the same image scaled wrong (the source size, unscaled) does not match: the check can fail
        let unscaled = try Self.reference(TestMedia.cacheDirectory.appendingPathComponent("native-quadrants-160x90.png"),
                                          name: "native-quadrants-192x108-shifted.nut", filter: "scale=160:90,pad=192:108:16:9:black")
        #expect(Self.meanDifference(pictures, frame: 50, x: 16, y: 36, unscaled) > 30)
        // content frames around the break: once each, in order
        let frames = try await MediaVerifier.videoFrames(out)
        let ids = frames.map { $0.identity }
        #expect(ids[0..<25].map { $0?.frameIndex } == Array(0..<25))
        #expect(ids[75..<150].map { $0?.frameIndex } == Array(25..<100))
        #expect(ids[0..<25].allSatisfy { $0?.sourceID == 1 })
    }

    @Test func fullFrameVideoBreakPlaysTheVideoInTheMediaWindow() async throws {
        let clip = try await TestMedia.clip(sourceID: 5, width: 320, height: 180, fps: 25, seconds: 1)
        let f = try NativeAdServer(video: clip)
        let ad = try await Self.ad(f, video: true)
        #expect(ad.videoController.hasVideoContent())
        let content = try await TestMedia.clip(sourceID: 1, width: 320, height: 180, fps: 25, seconds: 4)
        let (r, out) = try await Self.stitch([NativeBreak(position: .time(MediaTime(seconds: 1)), ad: ad, layout: .fullFrame,
                                                          template: try Self.template("template"))], content: content)
        // the break lasts the video's measured second, not the template's declared 2 s
        #expect(r.breaks.first?.duration == MediaTime(seconds: 1))
        #expect(r.videoFrames == 125)
        #expect(r.natives.first?.frames == 25)
        let pictures = try await DecodedPictures.decode(out, pixelFormat: "rgb24")
        try Self.expectVideoInMediaWindow(pictures, clip: clip)
        for k in [0, 12, 24] { #expect(Self.ink(pictures, frame: 25 + k, x: 216, y: 40, width: 100, height: 30) > 60) }
    }

    @Test func aNativeAdJoinsThePodOfABreakAtTheSameCue() async throws {
        let f = try NativeAdServer()
        let ad = try await Self.ad(f)
        let content = try await TestMedia.clip(sourceID: 1, width: 320, height: 180, fps: 25, seconds: 4)
        let vast = try await TestMedia.clip(sourceID: 7, width: 320, height: 180, fps: 25, seconds: 1)
        let (r, out) = try await Self.stitch([NativeBreak(position: .time(MediaTime(seconds: 1)), ad: ad, layout: .fullFrame,
                                                          template: try Self.template("template"))], content: content,
                                             breaks: [AdBreakRequest(id: "mid", position: .time(MediaTime(seconds: 1)), ads: [vast.path])])
        // one break: the 1 s ad, then the 2 s native ad
        #expect(r.breaks.count == 1)
        let b = try #require(r.breaks.first)
        #expect(b.id == "mid" && b.ads.count == 2 && b.duration == MediaTime(seconds: 3))
        #expect(r.natives.first?.firstFrame == 2.0 && r.natives.first?.frames == 50 && r.natives.first?.impressionStreamTime == 2.0)
        let frames = try await MediaVerifier.videoFrames(out)
        #expect(frames.count == 175)
        #expect(frames[25..<50].allSatisfy { $0.identity?.sourceID == 7 }, "the VAST ad plays first, undrawn")
        #expect(frames[0..<25].map { $0.identity?.frameIndex } == Array(0..<25))
        #expect(frames[100..<175].map { $0.identity?.frameIndex } == Array(25..<100))
        let pictures = try await DecodedPictures.decode(out, pixelFormat: "rgb24")
        for n in [50, 74] { #expect(Self.ink(pictures, frame: n, x: 216, y: 40, width: 100, height: 30) > 60, "native layout on frame \(n)") }
    }

    @Test func lBarKeepsTheContentPlayingInItsWindowOnceAndInOrder() async throws {
        let f = try NativeAdServer()
        let ad = try await Self.ad(f)
        let content = try await TestMedia.clip(sourceID: 1, width: 320, height: 180, fps: 25, seconds: 4)
        let (r, out) = try await Self.stitch([NativeBreak(position: .time(MediaTime(seconds: 1)), ad: ad, layout: .lBar,
                                                          template: try Self.template("lbar"))], content: content)
        #expect(r.videoFrames == 100)   // no break: the content keeps its time
        #expect(r.breaks.isEmpty)
        let placement = try #require(r.natives.first)
        #expect(placement.layout == "lbar" && placement.frames == 50 && placement.firstFrame == 1.0 && placement.lastFrame == 2.96)
        #expect(placement.impressionStreamTime == 1.0)
        #expect(await f.waitForHits("/imp", count: 1) == 1)
        // outside the L-bar the content frames are read back by identity, once each and in order
        let ids = try await MediaVerifier.videoFrames(out).map { $0.identity?.frameIndex }
        #expect(ids.count == 100)
        #expect(ids[0..<25].map { $0 } == Array(0..<25).map { Optional($0) })
        #expect(ids[75..<100].map { $0 } == Array(75..<100).map { Optional($0) })
        // inside it, the window holds content frame n scaled (and not its neighbours)
        let pictures = try await DecodedPictures.decode(out, pixelFormat: "rgb24")
        let window = try Self.reference(content, name: "native-content-s1-224x126.nut", filter: "scale=224:126")
        for n in stride(from: 25, to: 75, by: 7) {
            let here = Self.meanDifference(pictures, frame: n, x: 0, y: 0, window, frame: n)
            let before = Self.meanDifference(pictures, frame: n, x: 0, y: 0, window, frame: n - 1)
            let after = Self.meanDifference(pictures, frame: n, x: 0, y: 0, window, frame: n + 1)
            #expect(here < 8 && here < before && here < after, "frame \(n): \(here) vs \(before) / \(after)")
            #expect(Self.ink(pictures, frame: n, x: 8, y: 134, width: 220, height: 36) > 100, "headline under the window on frame \(n)")
            #expect(abs(pictures.mean(frame: n, x: 240, y: 70, width: 60, height: 40, channel: 2) - 0x40) < 6, "background in the bar")
        }
        // the frames before and after are untouched content (no bar)
        #expect(Self.ink(pictures, frame: 10, x: 8, y: 134, width: 220, height: 36) < 20)
    }
}
