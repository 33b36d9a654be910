import Draw
import Foundation
import Interlude
import Media
import Testing
import Timing
import TestSupport
@testable import Playback

/// A layer that draws a white box on ad frames only and adds a constant to the audio of ads.
private final class AdBadge: SurfaceLayer {
    let onContent: Bool
    init(onContent: Bool = false) { self.onContent = onContent }
    func isVisible(_ f: SurfaceFrameInfo) -> Bool { f.isAd || onContent }
    func draw(on canvas: Canvas, _ f: SurfaceFrameInfo) throws {
        canvas.fill(Draw.PixelRect(x: 8, y: 8, width: 32, height: 16), color: .white)
    }
    var drawsOnContent: Bool { onContent }
}

/// The same layers reach the stitch path (`Stitcher`, a stitching `Player`) as the player's surface.
@Suite struct SurfaceLayerTests {
    static func stitch(layers: [SurfaceLayer], container: OutputContainer = .nut, smart: SmartRendering = .auto) throws -> (StitchResult, URL) {
        let content = try TestMedia.clip(sourceID: 1, width: 320, height: 180, fps: 25, seconds: 2)
        let ad = try TestMedia.clip(sourceID: 7, width: 320, height: 180, fps: 25, seconds: 1)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-layer-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let out = dir.appendingPathComponent("o.\(container.rawValue)")
        var req = StitchRequest(content: content.path, breaks: [AdBreakRequest(id: "mid", position: .time(MediaTime(value: 1, timescale: 1)), ads: [ad.path])],
                                output: out.path, container: container)
        req.smart = smart
        return (try Stitcher(request: req, layers: layers).run(), out)
    }

    @Test func aLayerDrawsOnAdFramesOnlyAndContentStaysBitIdentical() throws {
        let (plain, plainURL) = try Self.stitch(layers: [])
        let (drawn, drawnURL) = try Self.stitch(layers: [AdBadge()])
        #expect(plain.videoFrames == drawn.videoFrames && drawn.videoFrames == 75)
        let a = try DecodedPictures.decode(plainURL), b = try DecodedPictures.decode(drawnURL)
        #expect(a.frames.count == 75 && b.frames.count == 75)
        for n in 0..<75 {
            let isAd = (25..<50).contains(n)
            if isAd {
                #expect(b.mean(frame: n, x: 8, y: 8, width: 32, height: 16) > 230, "box on ad frame \(n)")
                #expect(a.mean(frame: n, x: 8, y: 8, width: 32, height: 16) < 200)
                #expect(a.same(n, n, x: 48, y: 32, width: 200, height: 100))
            } else {
                #expect(a.frames[n] == b.frames[n], "content frame \(n) identical")
            }
        }
    }

    @Test func aLayerOnContentTurnsSmartRenderingOffAndSaysWhy() throws {
        let (r, _) = try Self.stitch(layers: [AdBadge(onContent: true)], container: .mp4)
        #expect(r.smartRendering?.used == false)
        #expect(r.smartRendering?.reason?.contains("overlays") == true)
        #expect(throws: StitchFailure.self) { try Self.stitch(layers: [AdBadge(onContent: true)], container: .mp4, smart: .on) }
    }

    /// The output opens when the first frame is written: a layer drawing on content added to a
    /// stitching player's surface after init (as an app adds overlays before starting) decides
    /// smart rendering as one given at init does, with nothing opened twice.
    @Test func aLayerAddedBeforeTheFirstFrameDecidesSmartRendering() throws {
        let content = try TestMedia.clip(sourceID: 1, width: 320, height: 180, fps: 25, seconds: 2)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-layer-late-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        func stitch(_ smart: SmartRendering, _ name: String) throws -> Player {
            var req = StitchRequest(content: content.path, breaks: [], output: dir.appendingPathComponent(name).path, container: .mp4)
            req.smart = smart
            return try Player(stitching: req)
        }
        func playToTheEnd(_ p: Player) { p.play(); #expect(p.waitUntilIdle(timeout: 60)) }
        let auto = try stitch(.auto, "auto.mp4")
        let file = try #require(auto.stitchFile)   // the loop has not touched it yet
        #expect(file.copiesContent)
        auto.surface.addLayer(AdBadge(onContent: true))
        #expect(!file.copiesContent)
        playToTheEnd(auto)
        try auto.close()
        #expect(file.smartRendering?.used == false)
        #expect(file.smartRendering?.reason?.contains("overlays") == true)
        #expect(try DecodedPictures.decode(dir.appendingPathComponent("auto.mp4")).frames.count == 50)
        // `on` refuses at the first frame and leaves nothing behind, not even the temporary file
        let strict = try stitch(.on, "on.mp4")
        strict.surface.addLayer(AdBadge(onContent: true))
        playToTheEnd(strict)
        #expect(throws: StitchFailure.self) { try strict.close() }
        #expect(strict.stitchFile?.videoFrames == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["auto.mp4"])
    }
}
