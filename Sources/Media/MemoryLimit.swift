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
/// decoded frame. And the largest picture a stitch or a player composes and encodes (`output`).
///
/// Ad media carries `PictureBudget.ad`, content `PictureBudget.content` (the `Demuxer`'s open
/// policy decides). The memory a decoder needs grows with the picture: an 8192×8192 H.264 ad of
/// 199 KB took a stitch from 88 MB to 878 MB; refused here, it costs nothing. Content is the
/// user's own and is decoded up to a far larger picture, but never composed or encoded above
/// `output`: an 8192×8192 content took 7.8 GB to stitch at its own size (libx264's frames in
/// flight), 1.7 GB written at the budget's 3072×3072.
public struct PictureBudget: Sendable, Equatable, CustomStringConvertible {
    /// What it is the budget of, in its refusals ("ad", "content", "output").
    public var name: String
    /// Most pixels (width × height) of one picture.
    public var maxPixels: Int
    /// Longest side, in pixels.
    public var maxSide: Int

    /// Makes a budget.
    public init(name: String, maxPixels: Int, maxSide: Int) {
        self.name = name; self.maxPixels = maxPixels; self.maxSide = maxSide
    }

    /// The ad picture budget: 4096×2304 pixels (9,437,184: DCI 4K, UHD 3840×2160 and their
    /// portrait forms fit), no side over 8192. Larger is nothing a player would show as an ad.
    public static let ad = PictureBudget(name: "ad", maxPixels: 4096 * 2304, maxSide: 8192)

    /// The content picture budget: 8192×8192 pixels (67,108,864: 8K UHD and DCI fit, and a
    /// 16384×4096 panorama), no side over 16384. What a stitch or a player will decode; larger
    /// content is refused in one line when it is opened, before a frame is decoded (at 10-bit
    /// 4:4:4, a picture of this size is 400 MB).
    public static let content = PictureBudget(name: "content", maxPixels: 8192 * 8192, maxSide: 16384)

    /// The output picture budget: what a stitch encodes and a player composes, the ad budget's
    /// 4096×2304 pixels, no side over 8192. Content larger than that is written downscaled to fit
    /// (`fitted`, its shape kept) unless a size is asked for; a size asked for above it is
    /// refused.
    public static let output = PictureBudget(name: "output", maxPixels: 4096 * 2304, maxSide: 8192)

    /// Whether a `width`×`height` picture fits.
    public func admits(width: Int, height: Int) -> Bool {
        width <= maxSide && height <= maxSide && width * height <= maxPixels
    }

    /// The refusal for a `width`×`height` picture (nil when it fits), naming `what`.
    public func refusal(_ what: String, width: Int, height: Int) -> MediaError? {
        admits(width: width, height: height) ? nil
            : .unsupported("\(what) is \(width)x\(height), over the \(name) picture budget (\(self))")
    }

    /// The largest picture of a `width`×`height` picture's shape that fits, with even sides (as
    /// 4:2:0 video needs); the picture itself (its sides made even) when it fits already.
    public func fitted(width: Int, height: Int) -> (width: Int, height: Int) {
        guard width > 0, height > 0 else { return (width, height) }
        if admits(width: width, height: height) { return (width & ~1, height & ~1) }
        // the scale is found in floating point, then the longer side stepped (by 2, exactly)
        // down until both sides and the area fit and up while the next still does; the shorter
        // side follows it, rounded to even
        let (long, short) = width >= height ? (width, height) : (height, width)
        let scale = min((Double(maxPixels) / (Double(width) * Double(height))).squareRoot(), Double(maxSide) / Double(long))
        func other(_ l: Int) -> Int { max(Int((Double(l) * Double(short) / Double(long)).rounded()) & ~1, 2) }
        func fits(_ l: Int) -> Bool { l <= maxSide && other(l) <= maxSide && l * other(l) <= maxPixels }
        var l = max(Int((Double(long) * scale).rounded(.down)) & ~1, 2)
        while l > 2, !fits(l) { l -= 2 }
        while l + 2 <= long, fits(l + 2) { l += 2 }
        return width >= height ? (l, other(l)) : (other(l), l)
    }

    /// "at most 9437184 pixels, no side over 8192".
    public var description: String { "at most \(maxPixels) pixels, no side over \(maxSide)" }

    /// Bytes of decoded pictures the threads of one video decoder may hold at once: frame
    /// threading keeps about two pictures per thread in flight (measured: decoding 8192×8192
    /// H.264 took 358 MB on one thread, 767 MB on three).
    public static let decoderThreadBytes = 512 << 20

    /// The threads a video decoder of `pictureBytes`-byte pictures gets: `requested` (0: FFmpeg's
    /// choice, one per CPU plus one, at most 16) unless two pictures per thread would take more
    /// than `decoderThreadBytes`; then as many as fit (at least one). Pictures up to about 4K
    /// (12 MB at 8-bit 4:2:0) never reach the cap, so their decoding is as before.
    public static func decoderThreads(requested: Int, pictureBytes: Int) -> Int {
        guard pictureBytes > 0 else { return requested }
        let cap = max(1, decoderThreadBytes / (2 * pictureBytes))
        let wanted = requested > 0 ? requested : min(Int(av_cpu_count()) + 1, 16)
        return wanted <= cap ? requested : cap
    }

    /// Bytes of pictures the threads of one video encoder may hold at once: libx264 keeps about
    /// six pictures per frame thread (lookahead, references, the frame in flight; measured at
    /// 3072×3072: 728 MB on one thread, 75 MB more per thread up to twelve).
    public static let encoderThreadBytes = 1 << 30

    /// The threads a video encoder of `pictureBytes`-byte pictures gets: `requested` (0: the
    /// encoder's choice; libx264 takes 1.5 per CPU) unless six pictures per thread would take
    /// more than `encoderThreadBytes`; then as many as fit (at least one). A 1080p picture (3 MB)
    /// reaches the cap only past 36 CPUs, one of the output budget's (14 MB) at 12 threads (more
    /// than 8 CPUs); below it nothing changes (libx264's output depends on its thread count).
    public static func encoderThreads(requested: Int, pictureBytes: Int) -> Int {
        guard pictureBytes > 0 else { return requested }
        let cap = max(1, encoderThreadBytes / (6 * pictureBytes))
        let wanted = requested > 0 ? requested : Int(av_cpu_count()) * 3 / 2
        return wanted <= cap ? requested : cap
    }
}
