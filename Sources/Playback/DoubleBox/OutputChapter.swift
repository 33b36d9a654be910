import Foundation
import Timing

/// A chapter of an MP4 output. MP4 chapters are one flat list in time order (a text track whose
/// samples follow each other; players show each chapter's start and let it run to the next), so a
/// chapter that overlaps content (a double-box ad) cannot sit beside the content chapter under it:
/// `flattened` cuts the content chapter around it.
struct OutputChapter: Equatable {
    var title: String
    var start: MediaTime
    var end: MediaTime
    /// Played over content (a double-box ad) rather than between content chapters.
    var overlapsContent = false

    /// `chapters` in stream order (by start, then end, so an empty chapter comes before the one
    /// starting where it is; ties keep their order).
    static func inStreamOrder(_ chapters: [OutputChapter]) -> [OutputChapter] {
        chapters.enumerated().sorted { a, b in
            (a.element.start, a.element.end, a.offset) < (b.element.start, b.element.end, b.offset)
        }.map(\.element)
    }

    /// One flat list in time order: the chapters that overlap content take their span out of the
    /// others, whose part after it keeps the title with " (continued)"; empty pieces are dropped.
    static func flattened(_ chapters: [OutputChapter]) -> [OutputChapter] {
        let over = chapters.filter(\.overlapsContent).sorted { $0.start < $1.start }
        guard !over.isEmpty else { return chapters }
        var out: [OutputChapter] = over
        for c in chapters where !c.overlapsContent {
            var pieces = [c]
            for o in over {
                pieces = pieces.flatMap { p -> [OutputChapter] in
                    guard o.start < p.end, o.end > p.start else { return [p] }
                    var before = p, after = p
                    before.end = o.start
                    after.start = o.end
                    if !after.title.hasSuffix(" (continued)") { after.title += " (continued)" }
                    return [before, after].filter { $0.end > $0.start }
                }
            }
            out += pieces
        }
        return out.sorted { $0.start < $1.start }
    }
}
