import CFFmpeg

extension Muxer {
    /// Ends the current file and goes on writing the same streams into a new file at `url`, as
    /// FFmpeg's hls and segment muxers do: the interleaving queue and the muxer's own buffers are
    /// flushed into the current file first, then the output is swapped. The muxer's state carries
    /// over, so an MPEG-TS stream continues its continuity counters and clock in the new file;
    /// `privateOptions` (e.g. `mpegts_flags: +resend_headers`, PAT and PMT again before the next
    /// packet) are set on the muxer before it writes there. Packets written after this go to `url`.
    public func continueInNewFile(_ url: String, privateOptions: [String: String] = [:]) throws {
        precondition((context.pointee.oformat.pointee.flags & AVFMT_NOFILE) == 0, "a muxer without a file")
        guard !closed else { throw MediaError.unsupported("continuing \(self.url) after it was closed") }
        try check(av_interleaved_write_frame(context, nil), "flushing \(self.url)")
        try check(av_write_frame(context, nil), "flushing \(self.url)")
        avio_flush(context.pointee.pb)
        let error = context.pointee.pb.pointee.error
        avio_closep(&context.pointee.pb)
        do {
            try check(error, "writing \(self.url)")
            try check(avio_open(&context.pointee.pb, url, AVIO_FLAG_WRITE), "cannot write \(url)")
        } catch {
            closed = true   // no file now: write() refuses, finish() and deinit leave it alone
            throw error
        }
        self.url = url
        for (name, value) in privateOptions {
            try check(av_opt_set(context.pointee.priv_data, name, value, 0), "muxer option \(name)=\(value)")
        }
    }
}
