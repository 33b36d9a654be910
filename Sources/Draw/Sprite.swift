import Media

/// Something ready to be blended onto yuv420p frames many times: its pixels converted once to
/// Y, Cb, Cr and alpha planes (chroma and its alpha at half resolution). Built when the drawing
/// changes (a few times a second at most); blending it per frame is then a few integer
/// operations per pixel. Sprites are placed at even coordinates, where chroma samples align.
public final class Sprite: Sendable {
    /// Size in pixels.
    public let width: Int, height: Int
    let y: [UInt8], ya: [UInt8]
    let u: [UInt8], v: [UInt8], ca: [UInt8]
    var chromaWidth: Int { (width + 1) / 2 }
    var chromaHeight: Int { (height + 1) / 2 }

    /// A sprite of an RGBA image, at the image's size.
    public convenience init(image: RGBAImage) {
        self.init(width: image.width, height: image.height) { x, y in image.pixel(x: x, y: y) }
    }

    /// A sprite of a text mask in one colour (the colour's alpha scales the mask's coverage).
    public convenience init(mask: TextMask, color: DrawColor) {
        self.init(width: max(1, mask.width), height: max(1, mask.height)) { x, y in
            guard x < mask.width, y < mask.height else { return (0, 0, 0, 0) }
            let a = Int(mask.alpha[y * mask.width + x]) * Int(color.a) / 255
            return (color.r, color.g, color.b, UInt8(a))
        }
    }

    /// A filled rectangle.
    public convenience init(width: Int, height: Int, color: DrawColor) {
        self.init(width: width, height: height) { _, _ in (color.r, color.g, color.b, color.a) }
    }

    init(width: Int, height: Int, pixel: (Int, Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8)) {
        self.width = max(1, width)
        self.height = max(1, height)
        let w = self.width, h = self.height
        var y = [UInt8](repeating: 0, count: w * h), ya = y
        var us = [Int](repeating: 0, count: ((w + 1) / 2) * ((h + 1) / 2)), vs = us, sa = us, n = us
        let cw = (w + 1) / 2
        for row in 0..<h {
            for col in 0..<w {
                let p = pixel(col, row)
                let c = DrawColor.yuv(p.r, p.g, p.b)
                y[row * w + col] = c.y
                ya[row * w + col] = p.a
                let ci = (row / 2) * cw + col / 2
                us[ci] += Int(c.u) * Int(p.a)
                vs[ci] += Int(c.v) * Int(p.a)
                sa[ci] += Int(p.a)
                n[ci] += 1
            }
        }
        var u = [UInt8](repeating: 128, count: us.count), v = u, ca = [UInt8](repeating: 0, count: us.count)
        for i in 0..<us.count where n[i] > 0 {
            ca[i] = UInt8(sa[i] / n[i])
            if sa[i] > 0 { u[i] = UInt8(us[i] / sa[i]); v[i] = UInt8(vs[i] / sa[i]) }
        }
        self.y = y; self.ya = ya; self.u = u; self.v = v; self.ca = ca
    }
}
