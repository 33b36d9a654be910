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
        let args = "video_size=\(frame.width)x\(frame.height):pix_fmt=\(frame.pointer.pointee.format)" +
            ":time_base=\(timeBase.numerator)/\(timeBase.denominator)" +
            ":pixel_aspect=\(sampleAspectRatio.numerator)/\(sampleAspectRatio.denominator)"
        (graph, source, sink) = try FilterGraphWiring.build(source: "buffer", arguments: args, sink: "buffersink",
                                                            description: description, kind: "video")
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
