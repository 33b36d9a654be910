import Media

/// Drawing on one writable yuv420p frame: sprites (text, images, boxes) blended with their alpha,
/// filled or dimmed rectangles, and another frame scaled into a rectangle. Everything is clipped
/// to the frame. Coordinates of sprites and rectangles are rounded down to even numbers, where
/// the half-resolution chroma lines up.
public struct Canvas {
    /// The frame drawn into.
    public let frame: Frame
    /// The whole picture.
    public var bounds: PixelRect { PixelRect(x: 0, y: 0, width: frame.width, height: frame.height) }

    /// A canvas over `frame`, which must be yuv420p and writable (see `Frame.writableCopy()`).
    public init(frame: Frame) throws {
        guard frame.pixelFormatName == "yuv420p" else { throw DrawError.unsupportedFrame("cannot draw on a \(frame.pixelFormatName) frame") }
        self.frame = frame
    }

    /// Blends `sprite` with its top-left corner at (x, y).
    public func draw(_ sprite: Sprite, x: Int, y: Int) {
        let x0 = x & ~1, y0 = y & ~1
        let area = PixelRect(x: x0, y: y0, width: sprite.width, height: sprite.height).clipped(to: bounds)
        guard !area.isEmpty else { return }
        _ = frame.withMutableYUV420Planes { planes in
            let luma = planes[0]
            for row in area.y..<(area.y + area.height) {
                let sr = row - y0
                let line = luma.base + row * luma.stride
                for col in area.x..<(area.x + area.width) {
                    let i = sr * sprite.width + (col - x0)
                    let a = Int(sprite.ya[i])
                    if a == 0 { continue }
                    line[col] = a == 255 ? sprite.y[i] : Canvas.blend(line[col], sprite.y[i], a)
                }
            }
            let cx0 = area.x / 2, cy0 = area.y / 2
            let cx1 = (area.x + area.width + 1) / 2, cy1 = (area.y + area.height + 1) / 2
            for p in 1...2 {
                let plane = planes[p]
                let src = p == 1 ? sprite.u : sprite.v
                for row in cy0..<min(cy1, plane.height) {
                    let sr = row - y0 / 2
                    let line = plane.base + row * plane.stride
                    for col in cx0..<min(cx1, plane.width) {
                        let i = sr * sprite.chromaWidth + (col - x0 / 2)
                        let a = Int(sprite.ca[i])
                        if a == 0 { continue }
                        line[col] = a == 255 ? src[i] : Canvas.blend(line[col], src[i], a)
                    }
                }
            }
        }
    }

    /// Fills `rect` with `color`, blended by its alpha (a translucent box, or a dimming veil).
    public func fill(_ rect: PixelRect, color: DrawColor) {
        let r = PixelRect(x: rect.x & ~1, y: rect.y & ~1, width: rect.width + (rect.x & 1), height: rect.height + (rect.y & 1)).clipped(to: bounds)
        guard !r.isEmpty, color.a > 0 else { return }
        let c = color.yuv, a = Int(color.a)
        _ = frame.withMutableYUV420Planes { planes in
            let values = [c.y, c.u, c.v]
            for p in 0..<3 {
                let plane = planes[p]
                let s = p == 0 ? 1 : 2
                let x0 = r.x / s, y0 = r.y / s
                let x1 = min(plane.width, (r.x + r.width + s - 1) / s), y1 = min(plane.height, (r.y + r.height + s - 1) / s)
                guard x1 > x0, y1 > y0 else { continue }
                for row in y0..<y1 {
                    let line = plane.base + row * plane.stride
                    if a == 255 {
                        (line + x0).update(repeating: values[p], count: x1 - x0)
                    } else {
                        for col in x0..<x1 { line[col] = Canvas.blend(line[col], values[p], a) }
                    }
                }
            }
        }
    }

    /// Copies `source` (yuv420p) scaled into `rect` with `scaler` (exact copy when the sizes match).
    public func draw(frame source: Frame, in rect: PixelRect, scaler: FrameScaler) throws {
        let target = PixelRect(x: rect.x & ~1, y: rect.y & ~1, width: max(2, rect.width & ~1), height: max(2, rect.height & ~1))
        let scaled = (source.width == target.width && source.height == target.height)
            ? source : try scaler.scale(source, width: target.width, height: target.height)
        let area = target.clipped(to: bounds)
        guard !area.isEmpty else { return }
        _ = scaled.withYUV420Planes { src in
            frame.withMutableYUV420Planes { dst in
                for p in 0..<3 {
                    let s = p == 0 ? 1 : 2
                    let x0 = area.x / s, y0 = area.y / s
                    let w = min(dst[p].width - x0, (area.width + s - 1) / s), h = min(dst[p].height - y0, (area.height + s - 1) / s)
                    let sx = (area.x - target.x) / s, sy = (area.y - target.y) / s
                    guard w > 0, h > 0 else { continue }
                    for row in 0..<h {
                        let from = src[p].base + (sy + row) * src[p].stride + sx
                        let to = dst[p].base + (y0 + row) * dst[p].stride + x0
                        to.update(from: from, count: min(w, src[p].width - sx))
                    }
                }
            }
        }
    }

    static func blend(_ under: UInt8, _ over: UInt8, _ a: Int) -> UInt8 {
        UInt8((Int(over) * a + Int(under) * (255 - a) + 127) / 255)
    }
}
