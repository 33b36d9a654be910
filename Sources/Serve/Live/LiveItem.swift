import Timing

/// One segment of a viewer's live playlist, where it sits on the channel's clock.
public struct LiveItem: Sendable, Hashable {
    /// What it shows.
    public enum Kind: Sendable, Hashable {
        /// The channel's segment `sequence` (whole, or a piece where a break starts or ends in it).
        case content(sequence: Int)
        /// Segment `segment` of `count` of ad `ad` (index into the avail's decided ads) of the
        /// viewer's avail `avail`; `cut` when the break ended inside it (a piece).
        case ad(avail: Int, ad: Int, segment: Int, count: Int, cut: Bool)
        /// Slate in avail `avail`.
        case slate(avail: Int)
    }
    /// What it shows.
    public var kind: Kind
    /// The stored file and its exact length (the span it covers on the channel's clock).
    public var segment: StoredSegment
    /// Its first frame's PTS on the channel's unwrapped clock.
    public var startPTS: Int64
    /// 90 kHz ticks its timestamps are moved by to sit at `startPTS` (for the channel's own: the
    /// segment's `clockOffset`, 0 until the origin's PTS jumped).
    public var shift: Int64
    /// `EXT-X-DISCONTINUITY` before it (a new stream: a join, or the origin's own).
    public var discontinuity: Bool
    /// For an ad segment: where it starts within the ad.
    public var offsetInAd: MediaTime = .zero

    /// The avail it belongs to, nil for content.
    public var avail: Int? {
        switch kind { case .content: nil; case .ad(let a, _, _, _, _), .slate(let a): a }
    }

    /// Its end on the channel's clock.
    public var endPTS: Int64 { startPTS + segment.duration.mpegTicks }
}

/// One break as one viewer plays it: the ad server's answer, the pod fitted, how much of it has
/// been published.
public struct LiveAvail: Sendable {
    /// The channel's break id (`LiveBreak.id`).
    public var breakID: String
    /// Where the viewer's break starts: the break's first frame, or the viewer's first frame when
    /// it joined mid-break.
    public var startPTS: Int64
    /// The length asked of the ad server (`[session.avail_duration_secs]`), ticks.
    public var requestedTicks: Int64
    /// The ad server's ads in pod order (nil until it answered).
    public var ads: [PlannedAd]?
    /// The break as `AdBeacons` sees it (id, position, the decided ads).
    public var planned: PlannedBreak?
    /// The pod fitted when its first segment was published (nil before).
    public var pod: LivePod?
    /// Where the break ended for this viewer (the first content frame after it), once known.
    public var endPTS: Int64?
    /// Ticks of ads / slate published (counted once, by whichever rendition publishes first).
    public var adTicksPublished: Int64 = 0, slateTicksPublished: Int64 = 0
    /// Channel PTS up to which the break's time has been counted.
    public var countedThrough: Int64
    /// Whether a rung has reached the break (`startPTS` is then its first frame).
    public var started = false
    /// Monotonic seconds when the ad request went out: the break waits for its answer (up to
    /// the request's timeout) before its first item is published.
    public var requestedAt: Double = monotonicSeconds()
}
