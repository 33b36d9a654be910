import Foundation
import Timing

extension HLS {
    /// `EXT-X-PLAYLIST-TYPE`.
    public enum PlaylistType: String, Sendable, Hashable {
        /// The playlist never changes.
        case vod = "VOD"
        /// Segments are only appended.
        case event = "EVENT"
    }

    /// A media playlist: its segments and the playlist's own tags. The writer derives
    /// `EXT-X-VERSION` from the features used; `EXT-X-TARGETDURATION` is checked against every
    /// segment (`validate`).
    public struct MediaPlaylist: Sendable, Hashable {
        /// `EXT-X-TARGETDURATION`, whole seconds.
        public var targetDuration: Int
        /// `EXT-X-MEDIA-SEQUENCE`: the first segment's media sequence number.
        public var mediaSequence: Int
        /// `EXT-X-DISCONTINUITY-SEQUENCE`.
        public var discontinuitySequence: Int
        /// `EXT-X-PLAYLIST-TYPE`.
        public var playlistType: PlaylistType?
        /// `EXT-X-INDEPENDENT-SEGMENTS`.
        public var independentSegments: Bool
        /// `EXT-X-I-FRAMES-ONLY`.
        public var iFramesOnly: Bool
        /// The segments, in order.
        public var segments: [Segment]
        /// Markers after the last segment (e.g. the `EXT-X-CUE-IN` of a post-roll).
        public var trailingMarkers: [Marker]
        /// `EXT-X-ENDLIST`.
        public var endList: Bool

        /// A playlist as given (see `vod(_:)` for one whose target duration is derived).
        public init(targetDuration: Int, mediaSequence: Int = 0, discontinuitySequence: Int = 0, playlistType: PlaylistType? = nil,
                    independentSegments: Bool = false, iFramesOnly: Bool = false, segments: [Segment],
                    trailingMarkers: [Marker] = [], endList: Bool = false) {
            self.targetDuration = targetDuration; self.mediaSequence = mediaSequence
            self.discontinuitySequence = discontinuitySequence; self.playlistType = playlistType
            self.independentSegments = independentSegments; self.iFramesOnly = iFramesOnly; self.segments = segments
            self.trailingMarkers = trailingMarkers; self.endList = endList
        }

        /// Each segment's Media Initialization Section: the `EXT-X-MAP` in force, which applies to
        /// every segment after it up to the next one (RFC 8216 §4.3.2.5), where `Segment.map` is
        /// only the tag written before that segment; nil for a segment without one (MPEG-TS).
        public var mapsInForce: [Map?] {
            var current: Map?
            return segments.map { s in
                if let m = s.map { current = m }
                return current
            }
        }

        /// Each segment's key: the `EXT-X-KEY` in force (RFC 8216 §4.3.2.4: it applies to every
        /// segment after it up to the next one), nil where segments are clear. An AES-128 key, or
        /// a SAMPLE-AES key of an MPEG-TS segment (no `EXT-X-MAP` in force), without `IV` gets the
        /// one its segment implies made explicit (§5.2): the segment's media sequence number as a
        /// 128-bit big-endian integer. (A sample-encrypted CMAF segment's IVs are in its boxes.)
        public var keysInForce: [Key?] {
            var current: Key?
            let maps = mapsInForce
            return segments.enumerated().map { i, s in
                if let k = s.key { current = k.method == .none ? nil : k }
                guard var k = current else { return nil }
                if k.iv == nil && (k.method == .aes128 || (k.method == .sampleAES && maps[i] == nil)) {
                    let n = UInt64(clamping: mediaSequence + i)
                    k.iv = [UInt8](repeating: 0, count: 8) + (0..<8).map { UInt8(truncatingIfNeeded: n >> (56 - 8 * $0)) }
                }
                return k
            }
        }

        /// A VOD playlist of `segments`: `EXT-X-PLAYLIST-TYPE:VOD`, `EXT-X-ENDLIST`, and the target
        /// duration the least that holds every segment (at least `leastTarget`).
        public static func vod(_ segments: [Segment], trailingMarkers: [Marker] = [], independentSegments: Bool = true,
                               leastTarget: Int = 1) -> MediaPlaylist {
            MediaPlaylist(targetDuration: Swift.max(leastTarget, segments.map(\.roundedSeconds).max() ?? 1),
                          playlistType: .vod, independentSegments: independentSegments, segments: segments,
                          trailingMarkers: trailingMarkers, endList: true)
        }

        /// The sum of the segments' durations.
        public var duration: MediaTime { segments.reduce(.zero) { $0 + $1.duration } }

        /// The discontinuity sequence number of segment `i` (§6.2.1): the playlist's
        /// `EXT-X-DISCONTINUITY-SEQUENCE` plus the discontinuity tags up to and including the segment's.
        public func discontinuitySequenceNumber(ofSegment i: Int) -> Int {
            discontinuitySequence + segments[...i].filter(\.discontinuity).count
        }

        /// Why this playlist breaks RFC 8216's rules for one playlist, nil when it does not: a
        /// target duration under a segment's rounded duration (§4.3.3.1), a negative sequence,
        /// an empty or multi-line URI, a date range without a program date in the playlist
        /// (§4.3.2.7), a range ending before it starts.
        public func validate() -> String? {
            guard targetDuration >= 1 else { return "EXT-X-TARGETDURATION \(targetDuration) is under 1" }
            guard mediaSequence >= 0, discontinuitySequence >= 0 else { return "a negative sequence number" }
            for (i, s) in segments.enumerated() {
                if s.roundedSeconds > targetDuration {
                    return "segment \(i) (\(s.uri)) lasts \(s.duration.seconds) s, over EXT-X-TARGETDURATION \(targetDuration)"
                }
                if s.duration < .zero { return "segment \(i) has a negative duration" }
                if !HLS.isValidURI(s.uri) { return "segment \(i) has an empty URI or one with a line break" }
            }
            let ranges = (segments.flatMap(\.markers) + trailingMarkers).compactMap { m -> DateRange? in
                if case .dateRange(let d) = m { d } else { nil }
            }
            if !ranges.isEmpty && !segments.contains(where: { $0.programDateTime != nil }) {
                return "EXT-X-DATERANGE without an EXT-X-PROGRAM-DATE-TIME in the playlist"
            }
            for r in ranges {
                if let end = r.endDate, end < r.startDate { return "date range \(r.id) ends before it starts" }
                if r.endOnNext && (r.rangeClass == nil || r.duration != nil || r.endDate != nil) {
                    return "date range \(r.id): END-ON-NEXT needs a CLASS and no DURATION or END-DATE"
                }
            }
            return nil
        }
    }

    /// Whether `uri` can be a URI line: not empty, no line break, not starting `#`.
    static func isValidURI(_ uri: String) -> Bool {
        !uri.isEmpty && !uri.hasPrefix("#") && !uri.contains(where: { $0 == "\n" || $0 == "\r" })
    }
}
