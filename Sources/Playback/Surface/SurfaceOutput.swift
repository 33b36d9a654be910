import Media

/// Something attached to a `RenderSurface` that shows or keeps what the viewer sees: the MP4
/// encoder, a frame stream, a live window, or a null output for tests.
///
/// The surface calls it from the player's frame-loop thread only, in presentation order: each
/// video frame (already composited, at the output size, yuv420p) at consecutive indices, then the
/// audio that plays with it. `finish()` comes once, after the last frame.
public protocol SurfaceOutput: FrameSink {
    /// Whether this is a live view: a frame that is late in real time may be left out of it
    /// (counted by the player); outputs that are not live get every frame.
    var isLive: Bool { get }
    /// Flushes and closes the output. Nothing is presented after it.
    func finish() throws
}

extension EncodedOutput: SurfaceOutput {
    /// An encoded file or frame stream keeps every frame.
    public var isLive: Bool { false }
}

/// A surface output that also takes compressed frames as they are: a smart-rendered stitch's
/// file (`SmartOutput`), to which the surface hands copied content and cached ad packets.
protocol PacketOutput: SurfaceOutput {
    /// Writes a copied packet as output frame `index` (its payload is given to the muxer).
    func writeCopied(_ packet: Packet, index: Int64) throws
    /// Reserves `count` audio packets from stream sample `start` on for packets copied from a
    /// source with AudioSpecificConfig `config` (`writeCopiedAudio`); false when it cannot take them.
    func reserveCopiedAudio(start: Int64, count: Int, config: [UInt8]) -> Bool
    /// The next packets of the run reserved from stream sample `start`, in order.
    func writeCopiedAudio(_ packets: [Packet], run start: Int64) throws
    /// Ends the run reserved from stream sample `start` after the packets written so far.
    func endCopiedAudio(run start: Int64) throws
    /// The audio from stream sample `start` on is `identity`'s samples (nil: not to be reused) at
    /// stream sample = source sample + `shift` (told when the source or its shift changes).
    func audioSource(identity: String?, shift: Int64, from start: Int64) throws
}
