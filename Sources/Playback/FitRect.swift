/// Where a picture of one display size lands inside an output frame when scaled to fit with its
/// aspect ratio preserved and centred (letterbox or pillarbox bars around it). Sizes and offsets
/// are even so that 4:2:0 chroma stays aligned.
struct FitRect: Sendable, Equatable {
    /// Left edge in the output frame.
    let x: Int
    /// Top edge in the output frame.
    let y: Int
    /// Scaled picture width.
    let width: Int
    /// Scaled picture height.
    let height: Int

    /// Makes a rectangle.
    init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }

    /// The largest centred rectangle of `source`'s aspect ratio inside `output`.
    static func fitting(source: (width: Int, height: Int), into output: (width: Int, height: Int)) -> FitRect {
        precondition(source.width > 0 && source.height > 0 && output.width > 0 && output.height > 0)
        // Compare aspect ratios exactly: source.w/source.h vs output.w/output.h.
        let sw = Int64(source.width), sh = Int64(source.height), ow = Int64(output.width), oh = Int64(output.height)
        var w: Int64, h: Int64
        if sw * oh >= sh * ow {          // wider than the output: full width, letterbox
            w = ow
            h = (ow * sh * 2 + sw) / (sw * 2)   // round(ow * sh / sw)
        } else {                          // taller: full height, pillarbox
            h = oh
            w = (oh * sw * 2 + sh) / (sh * 2)   // round(oh * sw / sh)
        }
        w = max(2, min(ow, w & ~1))
        h = max(2, min(oh, h & ~1))
        let x = ((ow - w) / 2) & ~1
        let y = ((oh - h) / 2) & ~1
        return FitRect(x: Int(x), y: Int(y), width: Int(w), height: Int(h))
    }
}
