import Media

/// Cuts spliced audio into the frames an audio encoder takes: samples are appended as they come,
/// each whole frame of `frameSize` samples goes out with its pts (in samples), and `flush` sends
/// what is left at the end. Shared by the encoded outputs (`EncodedOutput`, `SmartOutput`).
struct AudioFramer {
    private var pending: [[Float]]
    /// Samples per frame handed out (all but the last).
    let frameSize: Int
    private let sampleRate: Int
    private let interleavedS16: Bool
    private var pts: Int64 = 0

    /// A framer for `channels` channels at `sampleRate`, frames of `frameSize` samples (1024 when
    /// the encoder does not say); `interleavedS16` for encoders that take packed 16-bit samples.
    init(channels: Int, sampleRate: Int, frameSize: Int, interleavedS16: Bool) {
        pending = Array(repeating: [], count: channels)
        self.frameSize = frameSize > 0 ? frameSize : 1024
        self.sampleRate = sampleRate
        self.interleavedS16 = interleavedS16
    }

    /// Appends `count` samples per channel and hands `emit` every whole frame now available.
    mutating func append(_ channels: [[Float]], count: Int, emit: (Frame) throws -> Void) throws {
        guard count > 0 else { return }
        for c in pending.indices { pending[c].append(contentsOf: channels[c].prefix(count)) }
        var offset = 0
        while pending[0].count - offset >= frameSize {
            try emit(try frame(offset: offset, count: frameSize))
            offset += frameSize
        }
        if offset > 0 { for c in pending.indices { pending[c].removeFirst(offset) } }
    }

    /// Hands `emit` the samples left (a last, shorter frame), if any.
    mutating func flush(emit: (Frame) throws -> Void) throws {
        guard let n = pending.first?.count, n > 0 else { return }
        let last = try frame(offset: 0, count: n)
        for c in pending.indices { pending[c].removeAll() }
        try emit(last)
    }

    private mutating func frame(offset: Int, count: Int) throws -> Frame {
        let f = try Frame.audio(from: pending, offset: offset, count: count, sampleRate: sampleRate,
                                interleavedS16: interleavedS16, pts: pts)
        pts += Int64(count)
        return f
    }
}
