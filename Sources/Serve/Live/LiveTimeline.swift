import Timing

/// One live rendition's own numbering and clock, kept monotonic whatever the origin does.
///
/// **Numbering.** Each segment taken in gets a channel sequence number: the origin's media
/// sequence number plus `sequenceOffset` (0 while the origin numbers consistently, so channel
/// and origin numbers agree). `newEntries` finds what is new in a playlist: normally the entries
/// numbered after the last one handled, that entry being where it was (same URI). When the
/// origin's numbering goes back, resets, jumps by over `maxSequenceJump`, or cannot be read, the
/// last entry handled is looked up by URI: what follows it is new; when it is not listed any
/// more, the origin restarted and its last three target durations are new. Either way the numbering is re-based so
/// that channel numbers go on from the last one. A playlist older than what was taken (a stale
/// cache: every entry still at the number it had) holds nothing new and is no fault.
///
/// **Clock.** Each segment gets a position on the channel's unwrapped 90 kHz clock: its first
/// video PTS (unwrapped near where the last one ended) plus `clockOffset`. While the origin's
/// timestamps follow on (within `tolerance` of where the last segment ended), the offset stays;
/// when they jump (back, reset, repeated, far forward, with or without `EXT-X-DISCONTINUITY`),
/// the segment is re-anchored: it starts where the last one ended, the offset (channel clock −
/// the file's PTS) changes, and it is marked as a discontinuity. A skipped segment keeps its
/// time on the clock (`end` moves over it: the next one, a discontinuity, follows on without a
/// jump, and every rendition of the channel stays on the same clock whichever skipped it);
/// viewers step over the hole.
struct LiveTimeline: Sendable {
    /// Channel sequence number = origin media sequence number + this.
    private(set) var sequenceOffset = 0
    /// The last origin entry handled (taken in or skipped): its origin number, URI, channel number.
    private(set) var last: (origin: Int, uri: String, channel: Int)?
    /// URIs of recent entries handled, by origin number (for telling a stale playlist).
    private var recent: [Int: String] = [:]
    /// Where the last segment taken ends on the channel clock.
    private(set) var end: Int64?
    /// Channel clock − file PTS of the last segment taken.
    private(set) var clockOffset: Int64 = 0
    /// Segments were skipped or missed, or the origin restarted: the next one taken starts a new stream.
    private var newStream = false

    /// The largest PTS step (ticks) from where the last segment ended that is still the same
    /// stream: an `EXTINF` rounded or off by a little leaves a small gap or overlap.
    static let tolerance: Int64 = 90_000
    /// After segments skipped or missed, a forward PTS step up to this (ticks: 60 s) is their time.
    static let maxHole: Int64 = 60 * 90_000
    /// A forward jump of the media sequence over this many is a renumbering, not missed segments.
    static let maxSequenceJump = 1_000
    /// Recent URIs remembered.
    static let recentLimit = 4_096

    /// An entry that is new, with its channel sequence number.
    struct New {
        var entry: LivePlaylist.Segment
        var sequence: Int
    }

    /// What `newEntries` found wrong, one line, when the numbering was not consistent.
    typealias Finding = String?

    /// The entries of `playlist` not handled yet, in order, each with its channel number, and
    /// why the numbering was re-based (nil when it was consistent).
    mutating func newEntries(_ playlist: LivePlaylist) -> (new: [New], finding: Finding) {
        let entries = playlist.segments
        guard !entries.isEmpty else { return ([], nil) }
        guard let last else {
            return (entries.map { New(entry: $0, sequence: $0.sequence + sequenceOffset) }, nil)
        }
        if playlist.sequenceReadable {
            if let held = entries.first(where: { $0.sequence == last.origin }), held.uri == last.uri {
                return (entries.filter { $0.sequence > last.origin }.map { New(entry: $0, sequence: $0.sequence + sequenceOffset) }, nil)
            }
            if let first = entries.first, first.sequence > last.origin {
                let gap = first.sequence - last.origin - 1
                if gap == 0 { return (entries.map { New(entry: $0, sequence: $0.sequence + sequenceOffset) }, nil) }
                if gap <= Self.maxSequenceJump {
                    newStream = true   // segments were missed
                    return (entries.map { New(entry: $0, sequence: $0.sequence + sequenceOffset) },
                            "media sequence jumped from \(last.origin) to \(first.sequence): \(gap) segments missed")
                }
            }
            // an older playlist (a stale cache): every entry remembered is at its number, nothing new
            if let lastEntry = entries.last, lastEntry.sequence < last.origin,
               entries.allSatisfy({ e in recent[e.sequence].map { $0 == e.uri } ?? true }),
               entries.contains(where: { recent[$0.sequence] != nil }) {
                return ([], nil)
            }
        }
        if playlist.numbersImplied, let i = entries.lastIndex(where: { $0.uri == last.uri }) {
            sequenceOffset = last.channel - entries[i].sequence
            return (entries[(i + 1)...].map { New(entry: $0, sequence: $0.sequence + sequenceOffset) }, nil)
        }
        let why = playlist.sequenceReadable
            ? "media sequence \(entries.first.map { String($0.sequence) } ?? "?") does not follow \(last.origin) (\(last.uri))"
            : "EXT-X-MEDIA-SEQUENCE cannot be read"
        recent = [:]
        if let i = entries.lastIndex(where: { $0.uri == last.uri }) {
            sequenceOffset = last.channel - entries[i].sequence
            let new = entries[(i + 1)...].map { New(entry: $0, sequence: $0.sequence + sequenceOffset) }
            return (new, why + "; found by URI")
        }
        // the origin restarted: its live end is taken (three target durations), not all it lists
        // again (an origin renaming everything on every poll must not be fetched whole each time)
        var taken = 0, time = MediaTime.zero
        while taken < entries.count, taken == 0 || time + entries[entries.count - 1 - taken].duration <= playlist.targetDuration * 3 {
            time += entries[entries.count - 1 - taken].duration
            taken += 1
        }
        let tail = entries.suffix(taken)
        sequenceOffset = last.channel + 1 - tail.first!.sequence
        newStream = true
        return (tail.map { New(entry: $0, sequence: $0.sequence + sequenceOffset) }, why + "; the origin restarted")
    }

    /// Records that `new` was handled (taken in or skipped).
    mutating func handled(_ new: New) {
        last = (new.entry.sequence, new.entry.uri, new.sequence)
        recent[new.entry.sequence] = new.entry.uri
        if recent.count > Self.recentLimit, let oldest = recent.keys.min() { recent[oldest] = nil }
    }

    /// Records that `new` was skipped: its time passes on the clock, the next segment taken
    /// starts a new stream.
    mutating func skip(_ new: New) {
        handled(new)
        if let e = end, new.entry.problem == nil { end = e + new.entry.duration.mpegTicks }
        newStream = true
    }

    /// Where a segment lies on the channel clock.
    struct Placement: Equatable {
        /// Its first video PTS, unwrapped, on the file's own clock.
        var filePTS: Int64
        /// Channel clock − file PTS.
        var clockOffset: Int64
        /// A new stream starts with it (the origin's discontinuity, a re-anchor, a skip or a restart before it).
        var discontinuity: Bool
        /// How far its PTS jumped from where the last segment ended (ticks), when that re-anchored it.
        var jumped: Int64?
        /// Its first frame on the channel clock.
        var channelPTS: Int64 { filePTS + clockOffset }
    }

    /// Places the segment whose first video PTS is `raw` (33 bits), `duration` long, after the
    /// last one taken.
    mutating func place(raw: UInt64, duration: MediaTime, discontinuity: Bool) -> Placement {
        let placement: Placement
        if let end {
            let expected = end - clockOffset
            let file = LivePTS.unwrap(raw, near: expected)
            let delta = file - expected
            if newStream, delta > 0, delta <= Self.maxHole {
                // after segments skipped or missed (their length unknown: a lying EXTINF, a gap in
                // the numbering): the origin's clock is kept, viewers step over the hole
                placement = Placement(filePTS: file, clockOffset: clockOffset, discontinuity: true, jumped: nil)
            } else if abs(delta) > Self.tolerance {
                // a jump the skip or restart before it explains is not logged again
                placement = Placement(filePTS: file, clockOffset: end - file, discontinuity: true, jumped: newStream ? nil : delta)
            } else {
                placement = Placement(filePTS: file, clockOffset: clockOffset, discontinuity: discontinuity || newStream, jumped: nil)
            }
        } else {
            placement = Placement(filePTS: Int64(raw & UInt64(LivePTS.wrap - 1)), clockOffset: 0, discontinuity: discontinuity, jumped: nil)
        }
        clockOffset = placement.clockOffset
        end = placement.channelPTS + duration.mpegTicks
        newStream = false
        return placement
    }
}
