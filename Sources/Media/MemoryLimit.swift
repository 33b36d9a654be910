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
