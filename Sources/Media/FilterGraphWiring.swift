import CFFmpeg

/// The wiring every single-input, single-output libavfilter graph shares: a source filter (`buffer`
/// or `abuffer` with its arguments), a sink, the description parsed between them, the graph
/// configured. On failure the graph is freed and nothing is returned.
enum FilterGraphWiring {
    /// Builds the graph; `kind` ("video", "audio") and `label` (the description the caller was
    /// given, default `description`) name it in errors.
    static func build(source sourceFilter: String, arguments: String, sink sinkFilter: String, description: String,
                      kind: String, label: String? = nil) throws -> (graph: UnsafeMutablePointer<AVFilterGraph>,
                                               source: UnsafeMutablePointer<AVFilterContext>,
                                               sink: UnsafeMutablePointer<AVFilterContext>) {
        guard let g = avfilter_graph_alloc() else { throw MediaError.allocationFailed("AVFilterGraph") }
        var src: UnsafeMutablePointer<AVFilterContext>?
        var snk: UnsafeMutablePointer<AVFilterContext>?
        do {
            try check(avfilter_graph_create_filter(&src, avfilter_get_by_name(sourceFilter), "in", arguments, nil, g), "\(kind) filter input")
            try check(avfilter_graph_create_filter(&snk, avfilter_get_by_name(sinkFilter), "out", nil, nil, g), "\(kind) filter output")
            guard let src, let snk else { throw MediaError.allocationFailed("AVFilterContext") }
            var outputs = avfilter_inout_alloc()
            var inputs = avfilter_inout_alloc()
            defer { avfilter_inout_free(&outputs); avfilter_inout_free(&inputs) }
            guard let o = outputs, let i = inputs else { throw MediaError.allocationFailed("AVFilterInOut") }
            o.pointee.name = av_strdup("in"); o.pointee.filter_ctx = src; o.pointee.pad_idx = 0; o.pointee.next = nil
            i.pointee.name = av_strdup("out"); i.pointee.filter_ctx = snk; i.pointee.pad_idx = 0; i.pointee.next = nil
            let name = label ?? description
            try check(avfilter_graph_parse_ptr(g, description, &inputs, &outputs, nil), "\(kind) filter '\(name)'")
            try check(avfilter_graph_config(g, nil), "configuring \(kind) filter '\(name)'")
            return (g, src, snk)
        } catch {
            var gg: UnsafeMutablePointer<AVFilterGraph>? = g
            avfilter_graph_free(&gg)
            throw error
        }
    }
}
