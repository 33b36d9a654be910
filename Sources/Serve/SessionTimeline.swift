import Foundation
import Timing

/// One segment of a session's media playlist, where it sits in the session's stream.
public struct TimelineItem: Sendable, Hashable {
    /// What the segment shows.
    public enum Kind: Sendable, Hashable {
        /// Content run `run` (run 0 plays to the first cue).
        case content(run: Int)
        /// Segment `segment` of `count` of ad `ad` of break `breakIndex` (indices into the
        /// session's breaks and their ads).
        case ad(breakIndex: Int, ad: Int, segment: Int, count: Int)
        /// Slate in break `breakIndex`, in place of ad `ad`.
        case slate(breakIndex: Int, ad: Int)
    }
    /// What it shows.
    public var kind: Kind
    /// The stored file and its exact duration.
    public var segment: StoredSegment
    /// Stream time at which it starts.
    public var start: MediaTime
    /// For an ad segment: where it starts within the ad.
    public var offsetInAd: MediaTime
    /// What the segment's timestamps are moved by to sit at `start` on the session's stream
    /// clock (zero for a shared clock, or where the segment already sits there).
    public var shift: MediaTime = .zero
    /// Whether the segment is sent marked as a new stream (`TSDiscontinuity`): the first of a
    /// run after a join, on the stream clock.
    public var marksDiscontinuity = false

    /// The break it belongs to, nil for content.
    public var breakIndex: Int? {
        switch kind { case .content: nil; case .ad(let b, _, _, _), .slate(let b, _): b }
    }
}

/// An ad as played in a session's stream.
public struct PlayedAdLayout: Sendable, Hashable {
    /// Index into its break's ads.
    public var ad: Int
    /// Stream time it starts at.
    public var start: MediaTime
    /// Its measured duration.
    public var duration: MediaTime
}

/// A break as played: where in the stream and the content, its length, its ads.
public struct BreakLayout: Sendable, Hashable {
    /// Index into the session's breaks.
    public var index: Int
    /// Stream time it starts at.
    public var start: MediaTime
    /// Its length in the stream (ads and slate).
    public var duration: MediaTime
    /// Content time of the cut it sits at (the first frame at or after the cue).
    public var contentTime: MediaTime
    /// The ads that play in it.
    public var ads: [PlayedAdLayout]
}

/// How one ad of a break is served in one rendition.
public enum AdSlot: Sendable, Hashable {
    /// Its segments and measured duration.
    case ready([StoredSegment], duration: MediaTime)
    /// Not available: these slate segments play in its place (none: the break is shorter).
    case filled([StoredSegment])
}

/// One rendition of a session laid out: content runs and breaks in stream order. Pure: the
/// layout is a function of the cut, the breaks' slots and nothing else.
public struct SessionTimeline: Sendable, Hashable {
    /// The rendition's name.
    public var rendition: String
    /// Every segment in order.
    public var items: [TimelineItem]
    /// The breaks that play (a break whose ads all fill with nothing is not listed).
    public var breaks: [BreakLayout]
    /// Whether an ad was left out only because it is still being transcoded (the timeline will
    /// change on a later request).
    public var hasPending: Bool

    /// Lays out `runs` (content cut at the mid-roll cues, `runs.count == cues.count + 1`) with
    /// `slots[b]` for break `b` of `positions` (pre-roll, mid-roll at cue index, post-roll).
    public static func layout(rendition: String, runs: [[StoredSegment]], cues: [MediaTime], contentDuration: MediaTime,
                              breaks: [(position: PlannedBreak.Position, slots: [AdSlot])], hasPending: Bool) -> SessionTimeline {
        var items: [TimelineItem] = []
        var layouts: [BreakLayout] = []
        var at = MediaTime.zero
        func addBreak(_ index: Int, contentTime: MediaTime) {
            let start = at
            var ads: [PlayedAdLayout] = []
            for (ai, slot) in breaks[index].slots.enumerated() {
                switch slot {
                case .ready(let segments, let duration):
                    ads.append(PlayedAdLayout(ad: ai, start: at, duration: duration))
                    var within = MediaTime.zero
                    for (k, s) in segments.enumerated() {
                        items.append(TimelineItem(kind: .ad(breakIndex: index, ad: ai, segment: k, count: segments.count), segment: s, start: at, offsetInAd: within))
                        at += s.duration; within += s.duration
                    }
                case .filled(let slate):
                    for s in slate {
                        items.append(TimelineItem(kind: .slate(breakIndex: index, ad: ai), segment: s, start: at, offsetInAd: .zero))
                        at += s.duration
                    }
                }
            }
            if at > start { layouts.append(BreakLayout(index: index, start: start, duration: at - start, contentTime: contentTime, ads: ads)) }
        }
        func addRun(_ r: Int) {
            guard r < runs.count else { return }
            for s in runs[r] { items.append(TimelineItem(kind: .content(run: r), segment: s, start: at, offsetInAd: .zero)); at += s.duration }
        }
        let pre = breaks.indices.filter { breaks[$0].position == .preroll }
        let post = breaks.indices.filter { breaks[$0].position == .postroll }
        for b in pre { addBreak(b, contentTime: .zero) }
        for r in runs.indices {
            addRun(r)
            guard r < cues.count else { continue }
            for b in breaks.indices {
                if case .midroll = breaks[b].position, midrollCueIndex(breaks, b) == r { addBreak(b, contentTime: cues[r]) }
            }
        }
        for b in post { addBreak(b, contentTime: contentDuration) }
        return SessionTimeline(rendition: rendition, items: items, breaks: layouts, hasPending: hasPending)
    }

    /// Mid-rolls are numbered in order: the n-th mid-roll sits at cue n.
    static func midrollCueIndex(_ breaks: [(position: PlannedBreak.Position, slots: [AdSlot])], _ b: Int) -> Int {
        breaks[..<b].filter { if case .midroll = $0.position { true } else { false } }.count
    }

    /// The same timeline with each run (a content run, an ad, a slate fill) moved onto the
    /// stream clock: `shift = start of the run − its own clock at its first segment`, where
    /// `clock(first segment)` reads that clock (nil: leave the run as it is).
    public func onStreamClock(_ clock: (StoredSegment) -> MediaTime?) -> SessionTimeline {
        var t = self
        var shift = MediaTime.zero
        for i in t.items.indices {
            let first = i == 0 || PlaylistWriter.joins(t.items[i - 1], t.items[i])
            if first { shift = clock(t.items[i].segment).map { t.items[i].start - $0 } ?? .zero }
            t.items[i].shift = shift
            t.items[i].marksDiscontinuity = first && i > 0
        }
        return t
    }

    /// The stream's length.
    public var duration: MediaTime { items.reduce(.zero) { $0 + $1.segment.duration } }
}
