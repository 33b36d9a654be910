import Foundation
import Timing

/// One break as one viewer plays it: the ad server's answer, the pod fitted, how much of it has
/// been published.
public struct LiveAvail: Sendable, Codable {
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
    /// The ads that could play left more than the personalization threshold unfilled: the
    /// break plays the channel's content for this viewer.
    public var playsContent = false
    /// Long over (`LiveViewer.retireOldAvails`): only its place is kept.
    public var retired = false
    /// When the ad request went out, seconds since 1970 (a wall clock: another node may read
    /// it, `LiveViewerRecord`): the break waits for its answer (up to the request's timeout)
    /// before its first item is published.
    public var requestedAt: Double = Date().timeIntervalSince1970
}
