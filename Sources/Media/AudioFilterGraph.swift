import CFFmpeg
import Timing

/// A libavfilter graph with one audio input and one audio output, both planar float at one
/// sample rate and channel count (default layout), built from a filter description such as
/// `volume=-6dB,alimiter=limit=0.8:latency=1` or `ebur128=peak=true:metadata=1`. Owns its
/// AVFilterGraph.
public final class AudioFilterGraph {
    let graph: UnsafeMutablePointer<AVFilterGraph>
    let source: UnsafeMutablePointer<AVFilterContext>
    let sink: UnsafeMutablePointer<AVFilterContext>
    /// Samples per second in and out.
    public let sampleRate: Int
    /// Channels in and out.
    public let channels: Int
    private var nextPTS: Int64 = 0
    private let scratch: Frame

    /// Builds the graph; its output is converted back to planar float at the input's rate and layout.
    public init(sampleRate: Int, channels: Int, description: String) throws {
        var layout = AVChannelLayout()
        av_channel_layout_default(&layout, Int32(channels))
        defer { av_channel_layout_uninit(&layout) }
        var name = [CChar](repeating: 0, count: 64)
        av_channel_layout_describe(&layout, &name, name.count)
        let layoutName = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let args = "sample_rate=\(sampleRate):sample_fmt=fltp:channel_layout=\(layoutName):time_base=1/\(sampleRate)"
        let full = "\(description),aformat=sample_fmts=fltp:sample_rates=\(sampleRate):channel_layouts=\(layoutName)"
        let built = try FilterGraphWiring.build(source: "abuffer", arguments: args, sink: "abuffersink",
                                                description: full, kind: "audio", label: description)
        do {
            scratch = try Frame()
        } catch {
            var gg: UnsafeMutablePointer<AVFilterGraph>? = built.graph
            avfilter_graph_free(&gg)
            throw error
        }
        (graph, source, sink) = built
        self.sampleRate = sampleRate
        self.channels = channels
    }

    deinit { var g: UnsafeMutablePointer<AVFilterGraph>? = graph; avfilter_graph_free(&g) }

    /// Pushes `count` samples per channel from `samples` starting at `offset` (planar float).
    public func push(_ samples: [[Float]], offset: Int = 0, count: Int) throws {
        guard count > 0 else { return }
        let frame = try Frame.audio(from: samples, offset: offset, count: count, sampleRate: sampleRate,
                                    interleavedS16: false, pts: nextPTS)
        nextPTS += Int64(count)
        try check(av_buffersrc_add_frame_flags(source, frame.pointer, 0), "filtering audio")
    }

    /// Signals the end of the input: the graph gives back what it holds.
    public func finishInput() throws {
        try check(av_buffersrc_add_frame_flags(source, nil, 0), "filtering audio")
    }

    /// Pulls every frame the graph has ready, appending its samples to `out` (one array per
    /// channel) and handing each frame's metadata lookup to `metadata`. Returns samples appended.
    @discardableResult
    public func pull(appendingTo out: inout [[Float]], metadata: ((Frame) -> Void)? = nil) throws -> Int {
        var total = 0
        while true {
            scratch.unref()
            let r = av_buffersink_get_frame(sink, scratch.pointer)
            if r == averrorEAGAIN || r == averrorEOF { return total }
            try check(r, "filtering audio")
            metadata?(scratch)
            let n = scratch.sampleCount
            for c in 0..<channels {
                let plane = UnsafeMutableRawPointer(scratch.pointer.pointee.extended_data[c]!).assumingMemoryBound(to: Float.self)
                out[c].append(contentsOf: UnsafeBufferPointer(start: plane, count: n))
            }
            total += n
        }
    }
}

extension Frame {
    /// A value of the frame's metadata dictionary (set by filters such as `ebur128`), if present.
    public func metadataValue(_ key: String) -> String? {
        guard let entry = av_dict_get(pointer.pointee.metadata, key, nil, 0), let value = entry.pointee.value else { return nil }
        return String(cString: value)
    }
}
