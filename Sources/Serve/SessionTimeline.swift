import Foundation
import Manifest
import Timing

/// An ad as played in a session's stream.
public struct PlayedAdLayout: Sendable, Hashable, Codable {
    /// Index into its break's ads.
    public var ad: Int
    /// Stream time it starts at.
    public var start: MediaTime
    /// Its measured duration.
    public var duration: MediaTime
}

/// A break as played: where in the stream and the content, its length, its ads.
public struct BreakLayout: Sendable, Hashable, Codable {
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

/// One rendition of a session laid out: content runs and breaks in stream order, VOD or live.
///
/// Over a finite source (a VOD session's content, cut at its cues) the timeline is laid out once
/// (`layout`): a pure function of the cut, the breaks' slots and nothing else, every item from the
/// first to the last. Over a sliding source (a live channel's window) a viewer feeds it item by
/// item as the channel goes on (`append`) and the oldest items slide out as its playlist's window
/// does (`slide(keeping:)`; the playlist's media sequence counts them). Either way each item is a
/// `SessionItem` on the session's clock and one writer (`SessionPlaylist`) turns it into a playlist line.
public struct SessionTimeline: Sendable, Hashable, Codable {
    /// The rendition's name.
    public var rendition: String
    /// The segments in order: VOD, every one; live, those the playlist lists now.
    public var items: [SessionItem]
    /// VOD: the breaks that play (a break whose ads all fill with nothing is not listed). Live
    /// breaks are the viewer's avails, decided as they come.
    public var breaks: [BreakLayout]
    /// An empty timeline of `rendition`, to be fed by a sliding source.
    public init(sliding rendition: String) {
        self.init(rendition: rendition, items: [], breaks: [])
    }

    /// A timeline of `items` (laid out by `layout`).
    public init(rendition: String, items: [SessionItem], breaks: [BreakLayout]) {
        self.rendition = rendition
        self.items = items
        self.breaks = breaks
    }

    /// The last item, nil before the first.
    public var last: SessionItem? { items.last }

    /// Appends the sliding source's next item after those there (it starts where the last ends
    /// on the session's clock, or later: a live channel's hole).
    public mutating func append(_ item: SessionItem) {
        assert(items.last.map { item.start >= $0.start } ?? true, "a timeline's items go in stream order")
        items.append(item)
    }

    /// Keeps the last `count` items; the older ones slide out (as a live playlist's window does).
    /// Where the run the new first item belongs to began is kept (`firstRun`).
    public mutating func slide(keeping count: Int) {
        let gone = max(0, items.count - count)
        guard gone > 0 else { return }
        if gone < items.count {
            // the run the new first item belongs to: the last new stream up to it
            var run = slid ?? SlidRun(start: items[0].start, breakBefore: nil, first: items[0])
            for i in 1...gone where items[i].startsRun(after: items[i - 1]) { run = SlidRun(start: items[i].start, breakBefore: items[i - 1].breakIndex, first: items[i]) }
            slid = run
        } else {
            slid = nil
        }
        items.removeFirst(gone)
    }

    /// The same timeline on another clock: every start (the slid run's too) moved by `offset`,
    /// each item's wire PTS set to `wire(item)` (the item as it was).
    public func moved(by offset: MediaTime, wire: (SessionItem) -> MediaTime?) -> SessionTimeline {
        var t = self
        for i in t.items.indices {
            t.items[i].wirePTS = wire(items[i])
            t.items[i].start = items[i].start + offset
        }
        t.slid = slid.map { SlidRun(start: $0.start + offset, breakBefore: $0.breakBefore, first: $0.first) }
        return t
    }

    /// Over a sliding source, what the window no longer shows of the first item's run: where it
    /// began on the session's clock, and the break of the item before it (nil: content, or none).
    struct SlidRun: Sendable, Hashable, Codable {
        var start: MediaTime
        var breakBefore: Int?
        /// The run's first item as it was published (what names a kept-CMAF channel's ad
        /// Period's initialization segments, `SessionMPD.ownInitializations`); nil in records
        /// written before it was kept.
        var first: SessionItem? = nil
    }
    private var slid: SlidRun?

    /// The first item of the first item's run, slid out or not (see `firstRun`).
    var firstRunItem: SessionItem? { slid?.first ?? items.first }

    /// Where the run (the items up to the next new stream) of the first item began — its own
    /// start unless the run's first items slid out — and the break the item before that start
    /// belongs to: a live DASH Period's start and its splice-in event, which stay as published
    /// while the Period's first segments leave the window. Nil when there is no item.
    public var firstRun: (start: MediaTime, breakBefore: Int?)? {
        guard let first = items.first else { return nil }
        guard let slid else { return (first.start, nil) }
        return (slid.start, slid.breakBefore)
    }

    /// Lays out `runs` (content cut at the mid-roll cues, `runs.count == cues.count + 1`) with
    /// `slots[b]` for break `b` of `positions` (pre-roll, mid-roll at cue index, post-roll).
    public static func layout(rendition: String, runs: [[StoredSegment]], cues: [MediaTime], contentDuration: MediaTime,
                              breaks: [(position: BreakCue, slots: [AdSlot])]) -> SessionTimeline {
        var items: [SessionItem] = []
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
                        items.append(SessionItem(kind: .ad(breakIndex: index, ad: ai, segment: k, count: segments.count, cut: false), segment: s, start: at, offsetInAd: within))
                        at += s.duration; within += s.duration
                    }
                case .filled(let slate):
                    for s in slate {
                        items.append(SessionItem(kind: .slate(breakIndex: index, ad: ai), segment: s, start: at, offsetInAd: .zero))
                        at += s.duration
                    }
                }
            }
            if at > start { layouts.append(BreakLayout(index: index, start: start, duration: at - start, contentTime: contentTime, ads: ads)) }
        }
        func addRun(_ r: Int) {
            guard r < runs.count else { return }
            for s in runs[r] { items.append(SessionItem(kind: .content(index: r), segment: s, start: at, offsetInAd: .zero)); at += s.duration }
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
        for i in items.indices.dropFirst() { items[i].discontinuity = startsNewStream(items[i - 1], items[i]) }
        return SessionTimeline(rendition: rendition, items: items, breaks: layouts)
    }

    /// Mid-rolls are numbered in order: the n-th mid-roll sits at cue n.
    static func midrollCueIndex(_ breaks: [(position: BreakCue, slots: [AdSlot])], _ b: Int) -> Int {
        breaks[..<b].filter { if case .midroll = $0.position { true } else { false } }.count
    }

    /// Whether a new stream starts between two neighbours: content run to break (or to the next
    /// run), one ad to the next, an ad to slate and back.
    public static func startsNewStream(_ a: SessionItem, _ b: SessionItem) -> Bool {
        switch (a.kind, b.kind) {
        case (.content(let r1), .content(let r2)): r1 != r2
        case (.ad(let b1, let a1, _, _, _), .ad(let b2, let a2, _, _, _)): b1 != b2 || a1 != a2
        case (.slate(let b1, let a1), .slate(let b2, let a2)): b1 != b2 || a1 != a2
        default: true
        }
    }

    /// The same timeline with each item's wire PTS, and on the `.stream` clock each run (a
    /// content run, an ad, a slate fill) moved onto the session's stream clock (`shift`), its
    /// first segment marked as a new stream. `firstPTS(segment)` reads the PTS its first video
    /// frame is stored with (nil: unknown; the run is then left where it is).
    public func on(_ asked: SegmentClock, firstPTS: (StoredSegment) -> MediaTime?) -> SessionTimeline {
        var t = self
        let clock = self.clock(asked)
        var shift = MediaTime.zero, runClock: MediaTime?, runStart = MediaTime.zero
        let offset = TSTimestamps.muxerOffset
        for i in t.items.indices {
            let first = i == 0 || t.items[i].discontinuity
            if first {
                runStart = t.items[i].start
                runClock = firstPTS(t.items[i].segment)
                shift = clock == .stream ? runClock.map { t.items[i].start + offset - $0 } ?? .zero : .zero
            }
            t.items[i].shift = shift
            t.items[i].marked = clock == .stream && t.items[i].discontinuity
            t.items[i].wirePTS = runClock.map { $0 + shift + (t.items[i].start - runStart) }
        }
        return t
    }

    /// The clock a timeline is sent on: `asked`, but the shared one (each run on its own clock,
    /// `EXT-X-DISCONTINUITY` between) when it lists encrypted segments, which go out as they came.
    public func clock(_ asked: SegmentClock) -> SegmentClock {
        items.contains { $0.segment.encryption != nil } ? .shared : asked
    }

    /// How the playlists mark each break: on the stream clock, the splice out point is the
    /// break's first frame as sent and the in point the first frame after it; on a shared clock
    /// (each run on its own), both are the content's clock at the cut, read from the content
    /// item next to the break.
    func marks(_ session: ServeSession, clock asked: SegmentClock) -> [Int: BreakMark] {
        var out: [Int: BreakMark] = [:]
        let clock = self.clock(asked)
        for layout in breaks {
            guard let first = items.firstIndex(where: { $0.breakIndex == layout.index }) else { continue }
            let last = items.lastIndex { $0.breakIndex == layout.index } ?? first
            let before = first > 0 ? items[first - 1] : nil, after = last + 1 < items.count ? items[last + 1] : nil
            func end(_ i: SessionItem?) -> MediaTime? { i.flatMap { i in i.wirePTS.map { $0 + i.segment.duration } } }
            let offset = TSTimestamps.muxerOffset
            let outPTS: MediaTime, inPTS: MediaTime
            switch clock {
            case .stream:
                // where the stream clock's segments put it (`on`), read or not
                outPTS = items[first].wirePTS ?? layout.start + offset
                inPTS = after?.wirePTS ?? end(items[last]) ?? layout.start + layout.duration + offset
            case .shared:
                // the content's own clock at the cut (the packager's offset when it cannot be read)
                let cut = after?.wirePTS ?? end(before) ?? layout.contentTime + offset
                outPTS = cut; inPTS = cut
            }
            let planned = session.breaks[layout.index]
            out[layout.index] = BreakMark(id: planned.id, eventID: UInt32(truncatingIfNeeded: layout.index + 1), start: layout.start,
                                          duration: layout.duration, outPTS: outPTS, inPTS: inPTS,
                                          ads: layout.ads.map { BreakMark.Ad(index: $0.ad, id: planned.ads[$0.ad].id, start: $0.start, duration: $0.duration) })
        }
        return out
    }

    /// The VOD media playlist of this timeline for `session`: the items' URLs (ad segments
    /// signed for server-side beacons, each under its CDN prefix), markers from `marks`.
    func playlist(_ session: ServeSession, clock: SegmentClock, signature: SegmentSignature, cdn: CDNPrefixes = .none) -> HLS.MediaPlaylist {
        let byBreak = marks(session, clock: clock)
        let items = self.items.map { $0.entry(session: session.id, rendition: rendition, signature: signature, cdn: cdn, start: $0.start) }
        return SessionPlaylist.vod(items, marks: byBreak, programDate: session.programDate)
    }

    /// The stream's length.
    public var duration: MediaTime { items.reduce(.zero) { $0 + $1.segment.duration } }
}
