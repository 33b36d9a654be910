import Foundation
import Manifest
import Timing

/// A live (or ended) HLS media playlist as the live source reads it from an origin, through the
/// one parser (`HLS.parse`): its target duration, media sequence numbers, segments with exact
/// `EXTINF` durations and discontinuities, the initialization segment of CMAF segments, and the
/// ad markers in front of each segment, and the key of an encrypted segment (MPEG-TS: AES-128,
/// whole, or SAMPLE-AES, its samples, its IV made explicit; CMAF: SAMPLE-AES or SAMPLE-AES-CTR,
/// its IVs in its boxes). Refuses what the store cannot take (byte ranges, `SAMPLE-AES-CTR` over
/// MPEG-TS, AES-128 over CMAF, an AES-128 key format other than `identity`) with a one-line reason.
/// What a hostile origin gets wrong but can be recovered from is read, not refused: an
/// `EXT-X-MEDIA-SEQUENCE` (or `EXT-X-DISCONTINUITY-SEQUENCE`) that cannot be read (negative, not
/// a number, over the parser's 2^48 bound) is left out (`sequenceReadable` false, entries numbered from 0: `LiveTimeline` finds
/// them by URI), and a segment whose `EXTINF` is 0 or over the target is listed with its
/// `problem` (the channel skips it).
public struct LivePlaylist: Sendable, Equatable {
    /// One segment.
    public struct Segment: Sendable, Equatable {
        /// The URI as written (resolve against the playlist's URL).
        public var uri: String
        /// `EXTINF` duration, exact.
        public var duration: MediaTime
        /// Media sequence number.
        public var sequence: Int
        /// An `EXT-X-DISCONTINUITY` precedes it.
        public var discontinuity: Bool
        /// The URI of its initialization segment (the `EXT-X-MAP` in force) when it is CMAF; nil for MPEG-TS.
        public var map: String? = nil
        /// The markers between the previous segment and this one, in order.
        public var markers: [LiveMarker]
        /// Why it cannot be used (an `EXTINF` of 0 or over the target), one line; nil when it can.
        public var problem: String? = nil
        /// A DASH origin's segment: where it starts on its track's media timeline (the time its
        /// audio comes from, `LiveMPD`); nil for HLS.
        public var mediaStart: MediaTime? = nil
        /// The key of an encrypted segment (MPEG-TS: `METHOD=AES-128`, whole, or `SAMPLE-AES`, its
        /// samples, its `IV` explicit: the origin's media sequence number where it gave none,
        /// RFC 8216 §5.2; CMAF: `SAMPLE-AES`/`SAMPLE-AES-CTR`, as given) and its URI as written;
        /// nil for a clear segment.
        public var key: HLS.Key? = nil
        /// A DASH origin's video segment under `ContentProtection` (CMAF sample encryption, its
        /// keys named in the MPD, no `key`): kept as it came.
        public var sampleEncrypted = false

        /// Whether it is sample-encrypted CMAF (an HLS key over an `EXT-X-MAP`, or a DASH
        /// origin's protected segment): kept as it came (`LiveChannel+EncryptedCMAF`).
        public var isSampleEncryptedCMAF: Bool { map != nil && (key != nil || sampleEncrypted) }
    }

    /// `EXT-X-TARGETDURATION`.
    public var targetDuration: MediaTime
    /// `EXT-X-MEDIA-SEQUENCE` (the first segment's number); 0 when it could not be read.
    public var mediaSequence: Int
    /// Whether `EXT-X-MEDIA-SEQUENCE` could be read (absent reads as 0, as RFC 8216 says).
    public var sequenceReadable = true
    /// The origin gives no numbers: they are positions in this refresh (a DASH `SegmentTimeline`
    /// addressed by `$Time$` without `startNumber`), and segments are found by URI, which is no fault.
    public var numbersImplied = false
    /// `EXT-X-DISCONTINUITY-SEQUENCE`.
    public var discontinuitySequence: Int
    /// `EXT-X-ENDLIST` seen: the channel has ended.
    public var ended: Bool
    /// The segments, oldest first.
    public var segments: [Segment]

    /// At most this many segments in one live playlist.
    public static let maxSegments = 2_000

    /// A playlist of these values (a DASH origin's Representation, `LiveMPD`).
    init(targetDuration: MediaTime, mediaSequence: Int, discontinuitySequence: Int = 0, ended: Bool, segments: [Segment]) {
        self.targetDuration = targetDuration
        self.mediaSequence = mediaSequence
        self.discontinuitySequence = discontinuitySequence
        self.ended = ended
        self.segments = segments
    }

    /// Parses `text`; throws `StoreError.unsupported` with one line when it is not a usable
    /// media playlist.
    public init(parsing text: String) throws {
        let limits = HLS.ParseLimits(maxSegments: Self.maxSegments, maxTargetDuration: 60)
        var parsed: HLS.Playlist?
        var body = text
        // a sequence tag that cannot be read is left out (each at most once) and the rest read:
        // the channel finds the segments by URI
        for _ in 0..<3 where parsed == nil {
            do {
                parsed = try HLS.parse(body, limits: limits)
            } catch let e as HLS.ParseError where e.line > 0
                        && (e.reason.hasPrefix("EXT-X-MEDIA-SEQUENCE") || e.reason.hasPrefix("EXT-X-DISCONTINUITY-SEQUENCE")) {
                var lines = body.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
                if body.hasPrefix("\u{FEFF}"), !lines.isEmpty { lines[0] = lines[0].dropFirst() }
                guard e.line <= lines.count else { throw StoreError.unsupported("live source: \(e)") }
                lines.remove(at: e.line - 1)
                body = lines.joined(separator: "\n")
                if e.reason.hasPrefix("EXT-X-MEDIA-SEQUENCE") { sequenceReadable = false }
            } catch {
                throw StoreError.unsupported("live source: \(error)")
            }
        }
        guard let parsed else { throw StoreError.unsupported("live source: its sequence tags cannot be read") }
        guard case .media(let p) = parsed else { throw StoreError.unsupported("live source: a multivariant playlist where a media playlist was expected") }
        if p.segments.contains(where: { $0.byteRange != nil || $0.map?.byteRange != nil }) {
            throw StoreError.unsupported("live source: byte ranges are not supported (whole segments are)")
        }
        let maps = p.mapsInForce, keys = p.keysInForce
        for (i, key) in keys.enumerated() {
            guard let key else { continue }
            // sample-encrypted CMAF (`cbcs`: SAMPLE-AES; `cenc`: SAMPLE-AES-CTR): kept as it came, its key passed on
            if maps[i] != nil {
                guard key.method == .sampleAES || key.method == .sampleAESCTR else {
                    throw StoreError.unsupported("live source: \(key.method.rawValue) over CMAF segments is not supported (SAMPLE-AES and SAMPLE-AES-CTR are)")
                }
                guard key.uri?.isEmpty == false else { throw StoreError.unsupported("live source: a \(key.method.rawValue) key without URI") }
                continue
            }
            guard key.method == .aes128 || key.method == .sampleAES else {
                throw StoreError.unsupported("live source: \(key.method.rawValue) MPEG-TS segments are not supported (AES-128 and SAMPLE-AES are)")
            }
            // (a SAMPLE-AES key is passed on as it came, whatever its key system: FairPlay's too)
            guard key.method == .sampleAES || (key.keyFormat ?? "identity") == "identity" else {
                throw StoreError.unsupported("live source: an AES-128 key of KEYFORMAT \((key.keyFormat ?? "").prefix(64)) is not supported (identity is)")
            }
            guard key.uri?.isEmpty == false else { throw StoreError.unsupported("live source: a \(key.method.rawValue) key without URI") }
        }
        guard p.targetDuration >= 1 else { throw StoreError.unsupported("live source: no EXT-X-TARGETDURATION of 1 to 60 s") }
        targetDuration = MediaTime(seconds: Int64(p.targetDuration))
        mediaSequence = p.mediaSequence
        discontinuitySequence = p.discontinuitySequence
        ended = p.endList
        var segments: [Segment] = []
        for (i, s) in p.segments.enumerated() {
            var problem: String?
            if s.duration <= .zero || s.duration > targetDuration + MediaTime(value: 1, timescale: 2) {
                problem = "EXTINF \(s.duration.seconds) of \(s.uri.prefix(200)) is not a duration within the target \(p.targetDuration) s"
            }
            segments.append(Segment(uri: s.uri, duration: s.duration, sequence: p.mediaSequence + i, discontinuity: s.discontinuity,
                                    map: maps[i]?.uri, markers: s.markers.compactMap(LiveMarker.init), problem: problem, key: keys[i]))
        }
        self.segments = segments
    }
}
