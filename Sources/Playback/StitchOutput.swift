import Media
import Timing

/// What a `StitchFile` writes to, attached to its surface: an output that also takes chapters,
/// finishes the file and says where its time went. `EncodedOutput` (everything encoded) and
/// `SmartOutput` (content copied, a `PacketOutput`) are the two.
protocol StitchOutput: SurfaceOutput {
    /// Adds a chapter (MP4 only).
    func addChapter(title: String, start: MediaTime, end: MediaTime)
    /// Flushes, writes the trailer and closes the file.
    func finish() throws
    /// Seconds spent encoding.
    var encodeSeconds: Double { get }
    /// Seconds spent muxing.
    var muxSeconds: Double { get }
    /// Seconds the frame loop waited for the encoder.
    var waitSeconds: Double { get }
}

extension EncodedOutput: StitchOutput {}
