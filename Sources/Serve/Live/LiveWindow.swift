import Timing

/// One segment of a live rendition's window, fetched once into the store.
public struct LiveSegment: Sendable, Equatable {
    /// Media sequence number.
    public var sequence: Int
    /// Exact duration (`EXTINF`).
    public var duration: MediaTime
    /// First video PTS, 90 kHz, on the channel's clock (`LiveTimeline`): the file's own PTS,
    /// unwrapped (`LivePTS`), plus `clockOffset`.
    public var firstPTS: Int64
    /// A new stream starts with it: an `EXT-X-DISCONTINUITY` precedes it at the origin, or the
    /// channel re-anchored its clock here (the origin's PTS jumped, segments before it were skipped).
    public var discontinuity: Bool
    /// The store key it lies under: `live/<channel>/<rendition>/<msn>.ts`.
    public var storePath: String
    /// Its frames' PTS (90 kHz, on the channel's clock like `firstPTS`), in presentation order:
    /// read once when it is taken in, so that placing a break on a frame reads no file.
    public var framePTS: [Int64] = []
    /// The channel's clock less the file's own PTS (0 until the origin's timestamps jumped): a
    /// viewer shifts the file by it (`?o=`) and cuts it at channel PTS less it.
    public var clockOffset: Int64 = 0
    /// An encrypted origin segment (AES-128, whole; SAMPLE-AES, its samples; sample-encrypted
    /// CMAF): its key (URI absolute, IV explicit for MPEG-TS) and its first picture's PTS as
    /// written, read at intake (from its clear bytes, its clear headers, or its clear boxes); a
    /// CMAF one's initialization segment and sound. Such a segment is stored and served as it
    /// came (`….aes.ts`, `….enc.m4s`): never cut, shifted or marked, so breaks go in at its
    /// boundaries. Nil for a clear segment.
    public var encryption: SegmentEncryption? = nil
    /// An encrypted segment's streams' first continuity counters (its bytes cannot be marked as a
    /// new stream: the item before it leads into them, `SessionItem.leadsInto`); empty otherwise.
    public var counters: [TSDiscontinuity.Counter] = []

    /// `pts` on the channel's clock as a PTS of the file (unwrapped).
    public func filePTS(_ pts: Int64) -> Int64 { pts - clockOffset }

    /// The store key of segment `sequence` of `rendition` of `channel` (`<msn>.aes.ts` when it
    /// is kept `encrypted`, `<msn>.enc.m4s` when it is sample-encrypted `cmaf`: `SegmentPath.isEncrypted`).
    public static func storePath(channel: String, rendition: String, sequence: Int, encrypted: Bool = false, cmaf: Bool = false) -> String {
        cmaf ? "live/\(channel)/\(rendition)/\(sequence).enc.m4s" : "live/\(channel)/\(rendition)/\(sequence)\(encrypted ? ".aes" : "").ts"
    }

    /// The store key of the origin's audio segment kept beside encrypted CMAF segment
    /// `sequence` (`SegmentEncryption.Sound`): under the rendition's `audio` folder.
    public static func soundPath(channel: String, rendition: String, sequence: Int) -> String {
        "live/\(channel)/\(rendition)/\(ProtectedCMAFImport.audioFolder)/\(sequence).enc.m4s"
    }

    /// The store key of the segment `rendition` of `channel` keeps for the CMAF tracks'
    /// initialization segments (`live/<channel>/<rendition>/init.ts`, a copy of its first segment).
    public static func initializationPath(channel: String, rendition: String) -> String {
        "live/\(channel)/\(rendition)/init.ts"
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
