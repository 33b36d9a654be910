import CFFmpeg

/// A process-wide cap on any single allocation FFmpeg makes (`av_max_alloc`).
///
/// A hostile file can declare tables far larger than itself: a 3 KB MP4 from an ad server whose
/// sample table claims tens of millions of entries makes the MOV demuxer allocate 2.7 GB while
/// opening it. No legitimate single allocation comes near this cap (an 8192×8192 frame is about
/// 100 MB; a two-hour index a few MB), so such a file now fails to open with ENOMEM instead.
public enum MemoryLimit {
    /// Bytes any one FFmpeg allocation may take.
    public static let maxAllocation = 256 << 20

    /// Installs the cap (idempotent; every `Demuxer` does this before opening anything).
    public static func install() { _ = installed }

    private static let installed: Void = { av_max_alloc(maxAllocation) }()
}

/// The largest picture a decoder may make: checked against a stream's declared size when it is
/// opened, handed to FFmpeg as the decoder's `max_pixels` (so a bitstream that declares more than
/// its container fails before any frame of that size is allocated) and checked again on every
/// decoded frame.
///
/// Ad media carries `PictureBudget.ad`. The memory a decoder needs grows with the picture: an
/// 8192×8192 H.264 ad of 199 KB took a stitch from 88 MB to 878 MB; refused here, it costs nothing.
public struct PictureBudget: Sendable, Equatable, CustomStringConvertible {
    /// Most pixels (width × height) of one picture.
    public var maxPixels: Int
    /// Longest side, in pixels.
    public var maxSide: Int

    /// Makes a budget.
    public init(maxPixels: Int, maxSide: Int) {
        self.maxPixels = maxPixels; self.maxSide = maxSide
    }

    /// The ad picture budget: 4096×2304 pixels (9,437,184: DCI 4K, UHD 3840×2160 and their
    /// portrait forms fit), no side over 8192. Larger is nothing a player would show as an ad.
    public static let ad = PictureBudget(maxPixels: 4096 * 2304, maxSide: 8192)

    /// Whether a `width`×`height` picture fits.
    public func admits(width: Int, height: Int) -> Bool {
        width <= maxSide && height <= maxSide && width * height <= maxPixels
    }

    /// The refusal for a `width`×`height` picture (nil when it fits), naming `what`.
    public func refusal(_ what: String, width: Int, height: Int) -> MediaError? {
        admits(width: width, height: height) ? nil
            : .unsupported("\(what) is \(width)x\(height), over the ad picture budget (\(self))")
    }

    /// "at most 9437184 pixels, no side over 8192".
    public var description: String { "at most \(maxPixels) pixels, no side over \(maxSide)" }
}
