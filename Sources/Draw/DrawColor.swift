/// A colour with straight alpha (8 bits each), as layouts and styles give it.
public struct DrawColor: Sendable, Equatable, Hashable {
    /// Red, green, blue and alpha, 0–255 each (alpha 255 is opaque; colour not premultiplied).
    public var r: UInt8, g: UInt8, b: UInt8, a: UInt8

    /// A colour from its components; `a` 255 is opaque.
    public init(r: UInt8, g: UInt8, b: UInt8, a: UInt8 = 255) {
        self.r = r; self.g = g; self.b = b; self.a = a
    }

    /// `#RRGGBB` or `#RRGGBBAA` (the `#` optional); nil for anything else.
    public init?(hex: String) {
        var s = Substring(hex)
        if s.hasPrefix("#") { s = s.dropFirst() }
        guard s.count == 6 || s.count == 8, let v = UInt32(s, radix: 16) else { return nil }
        if s.count == 6 {
            self.init(r: UInt8(v >> 16 & 0xFF), g: UInt8(v >> 8 & 0xFF), b: UInt8(v & 0xFF))
        } else {
            self.init(r: UInt8(v >> 24 & 0xFF), g: UInt8(v >> 16 & 0xFF), b: UInt8(v >> 8 & 0xFF), a: UInt8(v & 0xFF))
        }
    }

    /// This colour with another alpha.
    public func withAlpha(_ a: UInt8) -> DrawColor { DrawColor(r: r, g: g, b: b, a: a) }

    /// Opaque white.
    public static let white = DrawColor(r: 255, g: 255, b: 255)
    /// Opaque black.
    public static let black = DrawColor(r: 0, g: 0, b: 0)
    /// Opaque yellow (#FFCC00, the ad UI's accent).
    public static let yellow = DrawColor(r: 255, g: 204, b: 0)

    /// Y, Cb, Cr in limited range (BT.601, what swscale uses for RGB ↔ yuv420p by default).
    public var yuv: (y: UInt8, u: UInt8, v: UInt8) { DrawColor.yuv(r, g, b) }

    static func yuv(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> (y: UInt8, u: UInt8, v: UInt8) {
        let R = Int(r), G = Int(g), B = Int(b)
        // fixed point, 16 fractional bits, rounded
        let y = (16 << 16) + 16_829 * R + 33_039 * G + 6_416 * B + (1 << 15)
        let u = (128 << 16) - 9_714 * R - 19_070 * G + 28_784 * B + (1 << 15)
        let v = (128 << 16) + 28_784 * R - 24_103 * G - 4_681 * B + (1 << 15)
        return (clamp(y >> 16), clamp(u >> 16), clamp(v >> 16))
    }

    static func clamp(_ x: Int) -> UInt8 { UInt8(max(0, min(255, x))) }
}

/// A rectangle in pixels of the picture, origin top-left.
public struct PixelRect: Sendable, Equatable, Hashable, Codable {
    /// The top-left corner and the size, in pixels.
    public var x: Int, y: Int, width: Int, height: Int

    /// A rectangle from its top-left corner and size.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    /// Whether (px, py) lies inside.
    public func contains(x px: Int, y py: Int) -> Bool {
        px >= x && py >= y && px < x + width && py < y + height
    }

    /// The part of this rectangle inside `other` (possibly empty: width or height 0).
    public func clipped(to other: PixelRect) -> PixelRect {
        let x0 = max(x, other.x), y0 = max(y, other.y)
        let x1 = min(x + width, other.x + other.width), y1 = min(y + height, other.y + other.height)
        return PixelRect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
    }

    /// Whether it covers no pixel.
    public var isEmpty: Bool { width <= 0 || height <= 0 }
}
