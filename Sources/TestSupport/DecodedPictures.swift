import Foundation

/// Every video frame of a file decoded by the ffmpeg CLI (independent of the engine) to raw pixels,
/// for tests that check what was drawn: `gray` (luma only) or `rgb24`. Keep test media small: the
/// frames are held in memory.
public struct DecodedPictures: Sendable {
    /// Picture size.
    public let width: Int, height: Int
    /// Bytes per pixel: 1 for gray, 3 for rgb24.
    public let bytesPerPixel: Int
    /// One buffer per frame, in presentation order, rows packed.
    public let frames: [[UInt8]]

    /// Decodes `url` to `pixelFormat` (`gray` or `rgb24`), at the stream's own size.
    public static func decode(_ url: URL, pixelFormat: String = "gray") throws -> DecodedPictures {
        let probe = try MediaVerifier.probe(url)
        guard let v = probe.streams.first(where: { $0.kind == .video }), let w = v.width, let h = v.height else {
            throw VerifierError.malformedOutput("\(url.lastPathComponent) has no video stream")
        }
        let bpp = pixelFormat == "rgb24" ? 3 : 1
        let out = try Tools.ffmpeg(["-v", "error", "-i", url.path, "-map", "0:v:0", "-f", "rawvideo", "-pix_fmt", pixelFormat, "-"])
        let size = w * h * bpp
        let bytes = [UInt8](out.stdout)
        let frames = stride(from: 0, to: bytes.count - size + 1, by: size).map { Array(bytes[$0..<($0 + size)]) }
        return DecodedPictures(width: w, height: h, bytesPerPixel: bpp, frames: frames)
    }

    /// The value (gray) or the (r, g, b) sum's first channel at (x, y) of frame `n`.
    public func value(frame n: Int, x: Int, y: Int, channel: Int = 0) -> UInt8 {
        frames[n][(y * width + x) * bytesPerPixel + channel]
    }

    /// Mean of channel `channel` over a rectangle of frame `n`.
    public func mean(frame n: Int, x: Int, y: Int, width w: Int, height h: Int, channel: Int = 0) -> Double {
        var sum = 0
        for row in y..<(y + h) { for col in x..<(x + w) { sum += Int(value(frame: n, x: col, y: row, channel: channel)) } }
        return Double(sum) / Double(max(1, w * h))
    }

    /// Whether frames `a` and `b` hold the same bytes inside a rectangle (nil: the whole picture).
    public func same(_ a: Int, _ b: Int, x: Int = 0, y: Int = 0, width w: Int? = nil, height h: Int? = nil) -> Bool {
        let w = w ?? width, h = h ?? height
        for row in y..<(y + h) {
            let start = (row * width + x) * bytesPerPixel, end = start + w * bytesPerPixel
            if frames[a][start..<end] != frames[b][start..<end] { return false }
        }
        return true
    }
}
