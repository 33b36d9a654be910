import Foundation
import Testing
import Draw
import Media
import TestSupport

/// Drawing primitives: images decoded by FFmpeg from bytes, text by FreeType, blending on yuv420p.
@Suite struct DrawTests {
    /// A PNG written by the ffmpeg CLI (an independent encoder): red left half, blue right half.
    static func twoColourPNG(width: Int = 64, height: Int = 32) throws -> Data {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("draw-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: out) }
        let half = width / 2
        let r = try Tools.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "color=c=red:s=\(half)x\(height)", "-f", "lavfi",
                                  "-i", "color=c=blue:s=\(half)x\(height)", "-filter_complex", "[0][1]hstack", "-frames:v", "1",
                                  "-pix_fmt", "rgba", out.path])
        #expect(r.status == 0, "\(r.stderr)")
        return try Data(contentsOf: out)
    }

    @Test func decodesAPNGFromBytesToRGBA() throws {
        let image = try ImageDecoder.decode(Self.twoColourPNG())
        #expect(image.width == 64 && image.height == 32)
        let left = image.pixel(x: 5, y: 5), right = image.pixel(x: 60, y: 20)
        #expect(left.r > 240 && left.g < 15 && left.b < 15 && left.a == 255)
        #expect(right.b > 240 && right.r < 15)
    }

    @Test func refusesNonImagesAndOversizedPictures() throws {
        #expect(throws: MediaError.self) { try ImageDecoder.decode(Data("<html>not an image</html>".utf8)) }
        #expect(throws: MediaError.self) { try ImageDecoder.decode(Self.twoColourPNG(), maxPixels: 1000) }
        var truncated = try Self.twoColourPNG()
        truncated = truncated.prefix(40)
        #expect(throws: MediaError.self) { try ImageDecoder.decode(truncated) }
    }

    @Test func rendersTextWithFreeType() throws {
        let font = try Font.dejaVuSans(bold: true)
        let short = try font.render("Ad", pixelHeight: 24), long = try font.render("Ad 1 of 2 · 0:12", pixelHeight: 24)
        #expect(long.width > short.width * 3)
        #expect(short.height >= 24 && short.height < 40)
        let inked = short.alpha.filter { $0 > 128 }.count
        #expect(inked > 40, "glyph pixels drawn: \(inked)")
        #expect(try font.render("Ad", pixelHeight: 24) == short)
        #expect(throws: DrawError.self) { try Font(path: "/nonexistent/font.ttf") }
    }

    @Test func blendsSpritesAndBoxesOnlyInsideTheirRectangles() throws {
        let frame = try Frame.solidYUV420(width: 64, height: 48, y: 16, u: 128, v: 128)   // black
        let canvas = try Canvas(frame: frame)
        canvas.fill(PixelRect(x: 10, y: 10, width: 20, height: 10), color: .white)
        canvas.draw(Sprite(width: 8, height: 8, color: DrawColor(r: 255, g: 255, b: 255, a: 128)), x: 40, y: 30)
        let luma = frame.withYUV420Planes { p in (0..<48).map { y in (0..<64).map { x in p[0].base[y * p[0].stride + x] } } }!
        #expect(luma[12][12] == 235)             // opaque white box
        #expect(luma[5][5] == 16 && luma[25][12] == 16)   // outside untouched
        #expect(luma[32][42] > 110 && luma[32][42] < 140)  // half-transparent: half way
        #expect(luma[32][50] == 16)
    }

    @Test func drawsAScaledFrameIntoARectangle() throws {
        let target = try Frame.solidYUV420(width: 64, height: 48, y: 16, u: 128, v: 128)
        let source = try Frame.solidYUV420(width: 320, height: 240, y: 200, u: 90, v: 160)
        try Canvas(frame: target).draw(frame: source, in: PixelRect(x: 32, y: 24, width: 32, height: 24), scaler: FrameScaler())
        let (inside, outside, chroma) = target.withYUV420Planes { p in
            (p[0].base[30 * p[0].stride + 40], p[0].base[10 * p[0].stride + 10], p[1].base[15 * p[1].stride + 20])
        }!
        #expect(abs(Int(inside) - 200) <= 1 && outside == 16 && abs(Int(chroma) - 90) <= 1, "\(inside) \(outside) \(chroma)")
    }
}
