/// The exact correspondence between content time and output (stream) time of a stitched stream:
/// content segments placed one after another with ad breaks between them.
///
/// Pure value; the splicer builds it, the report and the IMA-style API (`streamTime(forContentTime:)`,
/// `contentTime(forStreamTime:)`, `previousCuePoint(forStreamTime:)`) read it.
package struct TimelineMap: Sendable, Equatable {
    /// A run of content shown without interruption.
    package struct Segment: Sendable, Equatable {
        /// Content time of the segment's first frame.
        package var contentStart: MediaTime
        /// Content time where it stops: the next content frame's time, or the content's end.
        package var contentEnd: MediaTime
        /// Stream time of its first frame.
        package var streamStart: MediaTime
        /// Stream time where it ends.
        package var streamEnd: MediaTime
        /// Makes a segment.
        package init(contentStart: MediaTime, contentEnd: MediaTime, streamStart: MediaTime, streamEnd: MediaTime) {
            self.contentStart = contentStart; self.contentEnd = contentEnd
            self.streamStart = streamStart; self.streamEnd = streamEnd
        }
    }

    /// An ad break on the stream timeline.
    package struct Break: Sendable, Equatable {
        /// The break's identifier.
        package var id: String
        /// The content time at which content paused for it.
        package var contentTime: MediaTime
        /// Stream time of its first ad frame.
        package var streamStart: MediaTime
        /// Stream time where content (or the next break) resumes.
        package var streamEnd: MediaTime
        /// Whether content kept playing during the break (a double box): content segments then
        /// overlap the break's stream time, and `contentTime` is where the break began.
        package var overlapsContent: Bool
        /// Makes a break.
        package init(id: String, contentTime: MediaTime, streamStart: MediaTime, streamEnd: MediaTime, overlapsContent: Bool = false) {
            self.id = id; self.contentTime = contentTime; self.streamStart = streamStart; self.streamEnd = streamEnd
            self.overlapsContent = overlapsContent
        }
    }

    /// Content segments in stream order.
    package var segments: [Segment]
    /// Ad breaks in stream order.
    package var breaks: [Break]

    /// Makes a map.
    package init(segments: [Segment] = [], breaks: [Break] = []) {
        self.segments = segments
        self.breaks = breaks
    }

    /// Where content time `t` is shown in the stream. Times before the first segment map to its
    /// start, times after the last to its end.
    package func streamTime(forContentTime t: MediaTime) -> MediaTime {
        guard let first = segments.first, let last = segments.last else { return t }
        if t < first.contentStart { return first.streamStart }
        for s in segments where s.contentStart <= t && t < s.contentEnd {
            return MediaTime.min(s.streamStart + (t - s.contentStart), s.streamEnd)
        }
        return last.streamEnd
    }

    /// The content time showing at stream time `t`; during an ad break, the content time at
    /// which content paused for it (during a double box, which overlaps content, the content
    /// time showing in its window).
    package func contentTime(forStreamTime t: MediaTime) -> MediaTime {
        for s in segments where s.streamStart <= t && t < s.streamEnd {
            return MediaTime.min(s.contentStart + (t - s.streamStart), s.contentEnd)
        }
        if let b = breaks.first(where: { $0.streamStart <= t && t < $0.streamEnd }) { return b.contentTime }
        if let first = segments.first, t < first.streamStart { return first.contentStart }
        return segments.last(where: { $0.streamEnd <= t })?.contentEnd ?? .zero
    }

    /// The last break that starts at or before stream time `t`, if any.
    package func previousCuePoint(forStreamTime t: MediaTime) -> Break? {
        breaks.last { $0.streamStart <= t }
    }
}
