// An app's own surface layer, written with `import Interlude` alone: the frame it is handed
// (`SurfaceFrameInfo.original`, a Media `Frame`), the canvas it draws on (Draw) and the times it is
// told (Timing) all come with that one import (Sources/Interlude/Exports.swift). This file imports
// nothing of Playback, Media, Draw or Timing; GuideTests does not depend on them.
import Foundation
import Interlude
import Testing
import TestSupport

/// Marks a square below the identity band (at the left edge, where the picture is a grey ramp) of every content frame from content time 0.5 s on, and notes the size
/// of the frame as played.
final class CornerMark: SurfaceLayer, @unchecked Sendable {
    // @unchecked Sendable: `sizes` is written on the frame loop's thread, read after it ended.
    let from = MediaTime(value: 1, timescale: 2)
    var sizes: Set<String> = []

    func isVisible(_ frame: SurfaceFrameInfo) -> Bool {
        !frame.isAd && (frame.sourceTime ?? .zero) >= from
    }

    func draw(on canvas: Canvas, _ frame: SurfaceFrameInfo) throws {
        let played: Frame = frame.original
        sizes.insert("\(played.width)x\(played.height)")
        canvas.fill(PixelRect(x: 0, y: 50, width: 32, height: 32), color: DrawColor.white)
    }
}

@Suite struct OneImportLayerTests {
    @Test func aLayerWrittenWithOnlyImportInterludeDrawsOnThePlayersFrames() throws {
        let content = try TestMedia.clip(sourceID: 7, width: 320, height: 180, fps: 30, seconds: 1)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-one-import-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let out = dir.appendingPathComponent("layer.nut")
        try? FileManager.default.removeItem(at: out)
        let player = try Player.open(url: content, clock: .asFastAsPossible)
        player.surface.attach(try EncodedOutput(url: out.path, container: .nut, format: player.surface.format, settings: EncoderSettings()))
        let mark = CornerMark()
        player.surface.addLayer(mark)
        player.play()
        #expect(player.waitUntilIdle(timeout: 60))
        try player.close()
        #expect(mark.sizes == ["320x180"])
        // decoded by the ffmpeg CLI: frames 0-14 untouched (the ramp: grey, never white), 15-29 white in the square
        let pictures = try DecodedPictures.decode(out)
        #expect(pictures.frames.count == 30)
        guard pictures.frames.count == 30 else { return }
        func corner(_ n: Int) -> Int { Int(pictures.frames[n][60 * pictures.width + 8]) }
        #expect((0..<15).allSatisfy { corner($0) < 200 }, "\((0..<15).map(corner))")
        #expect((15..<30).allSatisfy { corner($0) > 230 }, "\((15..<30).map(corner))")
    }
}
