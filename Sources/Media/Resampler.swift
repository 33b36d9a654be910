import CFFmpeg

/// Converts decoded audio frames of any format, rate and layout to planar `Float` samples at an
/// output rate and channel count (libswresample, default channel layout for the count, with
/// remixing). Owns its SwrContext; rebuilds it if the input format changes mid-stream.
public final class Resampler {
    private var context: OpaquePointer?
    private var inputKey = ""
    /// Output samples per second.
    public let outputRate: Int
    /// Output channel count.
    public let outputChannels: Int

    /// A resampler to `rate` Hz and `channels` channels.
    public init(outputRate rate: Int, outputChannels channels: Int) {
        outputRate = rate
        outputChannels = channels
    }

    deinit { swr_free(&context); freeScratch() }

    private func configure(for frame: Frame) throws {
        let f = frame.pointer
        var inLayout = AVChannelLayout()
        if f.pointee.ch_layout.order == AV_CHANNEL_ORDER_UNSPEC || f.pointee.ch_layout.nb_channels == 0 {
            av_channel_layout_default(&inLayout, max(1, f.pointee.ch_layout.nb_channels))
        } else {
            try check(av_channel_layout_copy(&inLayout, &f.pointee.ch_layout), "audio channel layout")
        }
        defer { av_channel_layout_uninit(&inLayout) }
        let key = "\(f.pointee.format):\(f.pointee.sample_rate):\(inLayout.nb_channels):\(inLayout.u.mask)"
        if key == inputKey, context != nil { return }
        swr_free(&context)
        var outLayout = AVChannelLayout()
        av_channel_layout_default(&outLayout, Int32(outputChannels))
        defer { av_channel_layout_uninit(&outLayout) }
        try check(swr_alloc_set_opts2(&context, &outLayout, AV_SAMPLE_FMT_FLTP, Int32(outputRate),
                                      &inLayout, AVSampleFormat(rawValue: f.pointee.format), f.pointee.sample_rate,
                                      0, nil), "configuring audio resampler")
        try check(swr_init(context), "initialising audio resampler")
        inputKey = key
    }

    /// Converts `frame` (nil flushes what the resampler holds back) and appends the output to
    /// `channels` (one array per output channel). Returns the number of samples appended.
    @discardableResult
    public func convert(_ frame: Frame?, appendingTo channels: inout [[Float]]) throws -> Int {
        if let frame { try configure(for: frame) }
        guard let context else { return 0 }
        let inCount = Int32(frame?.sampleCount ?? 0)
        let capacity = Int(swr_get_out_samples(context, inCount)) + 32
        if capacity <= 0 { return 0 }
        reserveScratch(capacity)
        let produced: Int32 = try scratch.withUnsafeMutableBufferPointer { planes in
            let out = UnsafeMutableRawPointer(planes.baseAddress!).assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
            if let frame {
                let input = UnsafeMutableRawPointer(frame.pointer.pointee.extended_data!).assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
                return try check(swr_convert(context, out, Int32(capacity), input, inCount), "resampling audio")
            }
            return try check(swr_convert(context, out, Int32(capacity), nil, 0), "resampling audio")
        }
        for c in 0..<outputChannels {
            let plane = UnsafeMutableRawPointer(scratch[c]!).assumingMemoryBound(to: Float.self)
            channels[c].append(contentsOf: UnsafeBufferPointer(start: plane, count: Int(produced)))
        }
        return Int(produced)
    }

    // One C buffer per output channel, reused across calls.
    private var scratch: [UnsafeMutablePointer<UInt8>?] = []
    private var scratchCapacity = 0

    private func reserveScratch(_ samples: Int) {
        if samples <= scratchCapacity && !scratch.isEmpty { return }
        freeScratch()
        scratchCapacity = max(samples, 4096)
        scratch = (0..<outputChannels).map { _ in
            UnsafeMutableRawPointer.allocate(byteCount: scratchCapacity * 4, alignment: 64).assumingMemoryBound(to: UInt8.self)
        }
    }

    private func freeScratch() {
        for p in scratch { p.map { UnsafeMutableRawPointer($0).deallocate() } }
        scratch = []
    }
}
