import Foundation

/// Which clip and which of its frames a picture shows, as drawn into the identity band.
public struct FrameIdentity: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The clip's source id, 0...15 (content.mp4 is 1, the ads 2...6).
    public var sourceID: Int
    /// The frame's index in its clip, counted from 0, modulo 4096.
    public var frameIndex: Int

    /// Makes an identity.
    public init(sourceID: Int, frameIndex: Int) {
        self.sourceID = sourceID
        self.frameIndex = frameIndex
    }

    /// `(source, frame)`.
    public var description: String { "(\(sourceID),\(frameIndex))" }

    /// Orders by source, then frame.
    public static func < (a: FrameIdentity, b: FrameIdentity) -> Bool {
        (a.sourceID, a.frameIndex) < (b.sourceID, b.frameIndex)
    }
}

/// A size in pixels.
public struct PixelSize: Sendable, Hashable, CustomStringConvertible {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// Makes a size.
    public init(width: Int, height: Int) { self.width = width; self.height = height }
    /// `WxH`.
    public var description: String { "\(width)x\(height)" }
}

/// A rectangle of pixels: where a clip's picture lies inside an output frame.
public struct PixelRect: Sendable, Hashable, CustomStringConvertible {
    /// Left edge.
    public var x: Int
    /// Top edge.
    public var y: Int
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// Makes a rectangle.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x; self.y = y; self.width = width; self.height = height
    }
    /// The whole of a frame of `size`.
    public init(_ size: PixelSize) { self.init(x: 0, y: 0, width: size.width, height: size.height) }
    /// `WxH+X+Y`.
    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}

/// The identity band's layout and code (see Media/README.md).
///
/// The top quarter of the picture is a grid of 2 rows x 12 columns of equal cells, read row-major;
/// a cell is white (luma 235) for a 1 bit and black (luma 16) for a 0 bit. The 24 bits, most
/// significant first: `1 0` start, source id (4 bits), frame index mod 4096 (12 bits), check nibble
/// `15 - (sum of the four data nibbles mod 16)` (4 bits), `0 1` stop. Sync marks: on frames whose
/// index is a multiple of the integer frame rate the bottom half of the picture is white.
public enum IdentityCode {
    /// Columns of cells in the band.
    public static let columns = 12
    /// Rows of cells in the band.
    public static let rows = 2
    /// Frame indices wrap at this count (12 bits).
    public static let frameModulus = 4096

    /// The 24-bit word drawn for `identity`.
    public static func word(for identity: FrameIdentity) -> Int {
        let s = identity.sourceID & 0xF, f = identity.frameIndex % frameModulus
        let check = 15 - ((s + (f >> 8) + ((f >> 4) & 0xF) + (f & 0xF)) % 16)
        return (1 << 23) | (s << 18) | (f << 6) | (check << 2) | 1
    }

    /// The identity a 24-bit word encodes, or nil when the start/stop pattern or the check fails.
    public static func identity(fromWord w: Int) -> FrameIdentity? {
        guard (w >> 22) & 0b11 == 0b10, w & 0b11 == 0b01 else { return nil }
        let s = (w >> 18) & 0xF, f = (w >> 6) & 0xFFF, check = (w >> 2) & 0xF
        guard check == 15 - ((s + (f >> 8) + ((f >> 4) & 0xF) + (f & 0xF)) % 16) else { return nil }
        return FrameIdentity(sourceID: s, frameIndex: f)
    }

    /// The rectangle a picture of `source` display size occupies when scaled to fit inside `output`,
    /// preserving its display aspect ratio and centred (letterbox or pillarbox bars around it), as
    /// `scale=W:H:force_original_aspect_ratio=decrease,pad=W:H:(ow-iw)/2:(oh-ih)/2` places it (give or
    /// take a pixel of rounding, which the reader tolerates). `sampleAspect` is the source's pixel
    /// aspect ratio (width/height of one pixel), 1 for square pixels.
    public static func fitRect(source: PixelSize, sampleAspect: Double = 1, into output: PixelSize) -> PixelRect {
        let dw = Double(source.width) * sampleAspect, dh = Double(source.height)
        guard dw > 0, dh > 0, output.width > 0, output.height > 0 else { return PixelRect(output) }
        var w = output.width, h = output.height
        if dw * Double(output.height) > dh * Double(output.width) {
            h = min(output.height, max(1, Int((Double(output.width) * dh / dw).rounded())))
        } else {
            w = min(output.width, max(1, Int((Double(output.height) * dw / dh).rounded())))
        }
        return PixelRect(x: (output.width - w) / 2, y: (output.height - h) / 2, width: w, height: h)
    }

    /// The fit rectangles of each source size inside `output` (duplicates removed, order kept).
    public static func candidateRects(output: PixelSize, sources: [PixelSize]) -> [PixelRect] {
        var rects: [PixelRect] = []
        for s in sources {
            let r = fitRect(source: s, into: output)
            if !rects.contains(r) { rects.append(r) }
        }
        return rects.isEmpty ? [PixelRect(output)] : rects
    }
}

/// What the reader saw in one frame.
public struct FrameReading: Sendable, Hashable {
    /// The decoded identity, nil when no candidate rectangle held a valid code.
    public var identity: FrameIdentity?
    /// The candidate rectangle whose code validated (nil with no identity).
    public var rect: PixelRect?
    /// Whether the bottom half of the picture is white (a sync flash).
    public var isFlash: Bool
    /// Whether the whole frame is black (filler); such a frame has no identity.
    public var isBlack: Bool
}

/// Reads identities and flashes out of 8-bit grey pictures, trying candidate placement rectangles.
public struct IdentityReader: Sendable {
    /// Rectangles tried in order; the first whose code validates wins.
    public var candidates: [PixelRect]

    /// A reader trying exactly `candidates` (the whole frame is not added).
    public init(candidates: [PixelRect]) { self.candidates = candidates }

    /// A reader for frames of `output` size that tries the fit rectangle of each source size
    /// (by default every clip size in Media/, plus the full frame first).
    public init(output: PixelSize, sources: [PixelSize] = TestMedia.knownSourceSizes) {
        self.candidates = IdentityCode.candidateRects(output: output, sources: [output] + sources)
    }

    /// Reads one frame of `width` x `height` grey pixels (row-major, stride = width).
    public func read(_ pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int) -> FrameReading {
        precondition(pixels.count >= width * height, "pixel buffer smaller than width x height")
        let image = Gray(pixels: pixels, width: width, height: height)
        if image.isBlack() { return FrameReading(identity: nil, rect: nil, isFlash: false, isBlack: true) }
        for rect in candidates {
            if let id = image.identity(in: rect) {
                return FrameReading(identity: id, rect: rect, isFlash: image.isFlash(in: rect), isBlack: false)
            }
        }
        let flashRect = candidates.first ?? PixelRect(x: 0, y: 0, width: width, height: height)
        return FrameReading(identity: nil, rect: nil, isFlash: image.isFlash(in: flashRect), isBlack: false)
    }

    /// Reads one frame held in an array.
    public func read(_ pixels: [UInt8], width: Int, height: Int) -> FrameReading {
        pixels.withUnsafeBufferPointer { read($0, width: width, height: height) }
    }
}

/// A borrowed grey picture with the sampling the reader needs.
struct Gray {
    let pixels: UnsafeBufferPointer<UInt8>
    let width: Int
    let height: Int

    /// Mean luma of the box [x0, x1) x [y0, y1), clipped to the picture; nil when empty.
    func mean(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int) -> Double? {
        let ax = max(0, x0), ay = max(0, y0), bx = min(width, x1), by = min(height, y1)
        guard bx > ax, by > ay else { return nil }
        var sum = 0
        for y in ay..<by {
            let row = y * width
            for x in ax..<bx { sum += Int(pixels[row + x]) }
        }
        return Double(sum) / Double((bx - ax) * (by - ay))
    }

    /// True when a 16x9 grid of samples over the whole frame is all below luma 40.
    func isBlack() -> Bool {
        for j in 0..<9 {
            let y = (2 * j + 1) * height / 18
            for i in 0..<16 where pixels[y * width + (2 * i + 1) * width / 32] >= 40 { return false }
        }
        return true
    }

    /// The code in the band of `rect`, nil unless every cell is clearly black or white and the word
    /// validates.
    func identity(in rect: PixelRect) -> FrameIdentity? {
        let cw = Double(rect.width) / Double(IdentityCode.columns)
        let ch = Double(rect.height) / 4 / Double(IdentityCode.rows)
        guard cw >= 2, ch >= 2 else { return nil }
        let hx = max(0, Int(cw * 0.25)), hy = max(0, Int(ch * 0.25))
        var word = 0
        for r in 0..<IdentityCode.rows {
            for c in 0..<IdentityCode.columns {
                let cx = rect.x + Int((Double(c) + 0.5) * cw), cy = rect.y + Int((Double(r) + 0.5) * ch)
                guard let m = mean(cx - hx, cy - hy, cx + hx + 1, cy + hy + 1) else { return nil }
                if m > 70 && m < 180 { return nil }  // neither black nor white: wrong rectangle
                word = (word << 1) | (m >= 126 ? 1 : 0)
            }
        }
        return IdentityCode.identity(fromWord: word)
    }

    /// True when the lower part of `rect` (rows 60-95 %, columns 10-90 %) averages above luma 190.
    func isFlash(in rect: PixelRect) -> Bool {
        let x0 = rect.x + rect.width / 10, x1 = rect.x + rect.width * 9 / 10
        let y0 = rect.y + rect.height * 6 / 10, y1 = rect.y + rect.height * 19 / 20
        // Sample every 4th row and column: the region is large and flat.
        let ax = max(0, x0), ay = max(0, y0), bx = min(width, x1), by = min(height, y1)
        guard bx > ax, by > ay else { return false }
        var sum = 0, count = 0
        var y = ay
        while y < by {
            var x = ax
            while x < bx { sum += Int(pixels[y * width + x]); count += 1; x += 4 }
            y += 4
        }
        return count > 0 && Double(sum) / Double(count) > 190
    }
}
