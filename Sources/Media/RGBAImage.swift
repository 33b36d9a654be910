/// A decoded still picture: 8-bit RGBA, straight (not premultiplied) alpha, rows packed
/// (`width * 4` bytes each). What images from ads (overlays, companions, native assets) become
/// before they are drawn.
public struct RGBAImage: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// `width * height * 4` bytes: R, G, B, A per pixel, row after row.
    public let pixels: [UInt8]

    /// An image from packed RGBA bytes; `pixels.count` must be `width * height * 4`.
    public init(width: Int, height: Int, pixels: [UInt8]) throws {
        guard width > 0, height > 0, pixels.count == width * height * 4 else {
            throw MediaError.unsupported("an RGBA image of \(width)x\(height) with \(pixels.count) bytes")
        }
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// An image of one colour.
    public static func filled(width: Int, height: Int, r: UInt8, g: UInt8, b: UInt8, a: UInt8 = 255) throws -> RGBAImage {
        var p = [UInt8](repeating: 0, count: max(0, width * height * 4))
        var i = 0
        while i < p.count { p[i] = r; p[i + 1] = g; p[i + 2] = b; p[i + 3] = a; i += 4 }
        return try RGBAImage(width: width, height: height, pixels: p)
    }

    /// The pixel at (x, y) as (r, g, b, a).
    public func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        let i = (y * width + x) * 4
        return (pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3])
    }
}
