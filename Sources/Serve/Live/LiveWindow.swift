import Timing

/// One segment of a live rendition's window, fetched once into the store.
public struct LiveSegment: Sendable, Equatable {
    /// Media sequence number.
    public var sequence: Int
    /// Exact duration (`EXTINF`).
    public var duration: MediaTime
    /// First video PTS, 90 kHz, unwrapped (`LivePTS`).
    public var firstPTS: Int64
    /// An `EXT-X-DISCONTINUITY` precedes it at the origin.
    public var discontinuity: Bool
    /// The store key it lies under: `live/<channel>/<rendition>/<msn>.ts`.
    public var storePath: String
    /// Its frames' PTS (90 kHz, unwrapped like `firstPTS`), in presentation order: read once when
    /// it is taken in, so that placing a break on a frame reads no file.
    public var framePTS: [Int64] = []

    /// The store key of segment `sequence` of `rendition` of `channel`.
    public static func storePath(channel: String, rendition: String, sequence: Int) -> String {
        "live/\(channel)/\(rendition)/\(sequence).ts"
    }
}

/// A snapshot of one live rendition: what a session playlist is built from. Segments are what
/// the channel holds (the origin's window and its recent history), in media-sequence order;
/// breaks are every break whose start or expected end is not older than the first segment.
public struct LiveWindow: Sendable, Equatable {
    /// The segments the channel holds, oldest first.
    public var segments: [LiveSegment]
    /// The breaks signalled so far that touch the window.
    public var breaks: [LiveBreak]
    /// The origin's `EXT-X-TARGETDURATION`.
    public var targetDuration: MediaTime
    /// The origin's playlist ended (`EXT-X-ENDLIST`).
    public var ended: Bool
}
