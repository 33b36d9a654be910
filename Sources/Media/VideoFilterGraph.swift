import CFFmpeg
import Timing

/// A libavfilter graph with one video input and one video output, built from a filter
/// description (e.g. `scale=640:270,pad=640:360:0:45,format=yuv420p`). Owns its AVFilterGraph.
public final class VideoFilterGraph {
    let graph: UnsafeMutablePointer<AVFilterGraph>
    let source: UnsafeMutablePointer<AVFilterContext>
    let sink: UnsafeMutablePointer<AVFilterContext>
    /// The description the graph was built from.
    public let filterDescription: String
    /// Input geometry the graph was built for; a frame that differs needs a new graph.
    public let inputKey: String

    /// Builds the graph for input frames like `frame` in time base `timeBase`.
    public init(like frame: Frame, timeBase: Rational, sampleAspectRatio: Rational, description: String) throws {
        guard let g = avfilter_graph_alloc() else { throw MediaError.allocationFailed("AVFilterGraph") }
        var src: UnsafeMutablePointer<AVFilterContext>?
        var snk: UnsafeMutablePointer<AVFilterContext>?
        let args = "video_size=\(frame.width)x\(frame.height):pix_fmt=\(frame.pointer.pointee.format)" +
            ":time_base=\(timeBase.numerator)/\(timeBase.denominator)" +
            ":pixel_aspect=\(sampleAspectRatio.numerator)/\(sampleAspectRatio.denominator)"
        do {
            try check(avfilter_graph_create_filter(&src, avfilter_get_by_name("buffer"), "in", args, nil, g), "video filter input")
            try check(avfilter_graph_create_filter(&snk, avfilter_get_by_name("buffersink"), "out", nil, nil, g), "video filter output")
            guard let src, let snk else { throw MediaError.allocationFailed("AVFilterContext") }
            var outputs = avfilter_inout_alloc()
            var inputs = avfilter_inout_alloc()
            defer { avfilter_inout_free(&outputs); avfilter_inout_free(&inputs) }
            guard let o = outputs, let i = inputs else { throw MediaError.allocationFailed("AVFilterInOut") }
            o.pointee.name = av_strdup("in"); o.pointee.filter_ctx = src; o.pointee.pad_idx = 0; o.pointee.next = nil
            i.pointee.name = av_strdup("out"); i.pointee.filter_ctx = snk; i.pointee.pad_idx = 0; i.pointee.next = nil
            try check(avfilter_graph_parse_ptr(g, description, &inputs, &outputs, nil), "video filter '\(description)'")
            try check(avfilter_graph_config(g, nil), "configuring video filter '\(description)'")
        } catch {
            // Not yet owned by self (deinit will not run): free here.
            var gg: UnsafeMutablePointer<AVFilterGraph>? = g
            avfilter_graph_free(&gg)
            throw error
        }
        graph = g
        source = src!
        sink = snk!
        filterDescription = description
        inputKey = VideoFilterGraph.key(for: frame)
    }

    deinit { var g: UnsafeMutablePointer<AVFilterGraph>? = graph; avfilter_graph_free(&g) }

    /// A string identifying a frame's geometry and pixel format.
    public static func key(for frame: Frame) -> String {
        "\(frame.width)x\(frame.height):\(frame.pointer.pointee.format)"
    }

    /// Pushes a frame (nil at end of stream). The frame's buffers are referenced, not copied.
    public func push(_ frame: Frame?) throws {
        let flags = Int32(AV_BUFFERSRC_FLAG_KEEP_REF)
        try check(av_buffersrc_add_frame_flags(source, frame?.pointer, frame == nil ? 0 : flags), "filtering video")
    }

    /// Pulls the next filtered frame into `frame`.
    public func pull(into frame: Frame) throws -> CodecState {
        frame.unref()
        let r = av_buffersink_get_frame(sink, frame.pointer)
        if r == averrorEAGAIN { return .needsInput }
        if r == averrorEOF { return .drained }
        try check(r, "filtering video")
        return .produced
    }
}
