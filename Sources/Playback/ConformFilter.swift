import Timing

/// The libavfilter description that turns a source picture into an output frame: rotation and
/// mirroring from the display matrix applied, square pixels, scaled to fit with its aspect ratio
/// preserved, black letterbox/pillarbox bars, yuv420p. nil when the frame already conforms.
/// The one conform of the package: the stitch's frames and the service's slate picture.
package enum ConformFilter {
    /// The filter for a picture of `width`x`height` with sample aspect ratio `sar`, clockwise
    /// `rotation` (0, 90, 180, 270), `mirrored`, in pixel format `pixelFormat`, into `output`.
    package static func description(width: Int, height: Int, sar: Rational, rotation: Int, mirrored: Bool,
                                    pixelFormat: String, output: OutputFormat) -> String? {
        let squarePixels = sar.numerator == sar.denominator
        if width == output.width, height == output.height, squarePixels, rotation == 0, !mirrored,
           pixelFormat == "yuv420p" {
            return nil
        }
        var filters: [String] = []
        if mirrored { filters.append("hflip") }
        switch rotation {
        case 90: filters.append("transpose=clock")
        case 180: filters.append("hflip,vflip")
        case 270: filters.append("transpose=cclock")
        default: break
        }
        let display = displaySize(width: width, height: height, sar: sar, rotation: rotation)
        let rect = FitRect.fitting(source: display, into: (output.width, output.height))
        filters.append("scale=\(rect.width):\(rect.height)")
        filters.append("setsar=1")
        if rect.width != output.width || rect.height != output.height {
            filters.append("pad=\(output.width):\(output.height):\(rect.x):\(rect.y):black")
        }
        filters.append("format=yuv420p")
        return filters.joined(separator: ",")
    }

    /// The size a picture is shown at: the sample aspect ratio applied to the width, then rotated.
    static func displaySize(width: Int, height: Int, sar: Rational, rotation: Int) -> (width: Int, height: Int) {
        var w = width
        if sar.numerator != sar.denominator, sar.numerator > 0 {
            w = Int((Int64(width) * sar.numerator * 2 + sar.denominator) / (sar.denominator * 2))
        }
        return rotation % 180 != 0 ? (height, w) : (w, height)
    }
}
