import Foundation
import Manifest
import Timing

/// A live (or ended) HLS media playlist as the live source reads it from an origin, through the
/// one parser (`HLS.parse`): its target duration, media sequence numbers, segments with exact
/// `EXTINF` durations and discontinuities, and the ad markers in front of each segment. Refuses
/// what the store cannot pass through (encryption, fMP4, byte ranges) and what cannot be used
/// (sequence numbers out of range, a segment longer than the target) with a one-line reason.
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
        /// The markers between the previous segment and this one, in order.
        public var markers: [LiveMarker]
    }

    /// `EXT-X-TARGETDURATION`.
    public var targetDuration: MediaTime
    /// `EXT-X-MEDIA-SEQUENCE` (the first segment's number).
    public var mediaSequence: Int
    /// `EXT-X-DISCONTINUITY-SEQUENCE`.
    public var discontinuitySequence: Int
    /// `EXT-X-ENDLIST` seen: the channel has ended.
    public var ended: Bool
    /// The segments, oldest first.
    public var segments: [Segment]

    /// At most this many segments in one live playlist.
    public static let maxSegments = 2_000

    /// Parses `text`; throws `StoreError.unsupported` with one line when it is not a usable
    /// media playlist.
    public init(parsing text: String) throws {
        let parsed: HLS.Playlist
        do {
            parsed = try HLS.parse(text, limits: HLS.ParseLimits(maxSegments: Self.maxSegments, maxTargetDuration: 60))
        } catch {
            throw StoreError.unsupported("live source: \(error)")
        }
        guard case .media(let p) = parsed else { throw StoreError.unsupported("live source: a multivariant playlist where a media playlist was expected") }
        if p.segments.contains(where: { $0.map != nil }) { throw StoreError.unsupported("live source: fMP4 segments are not supported; MPEG-TS segments are") }
        if p.segments.contains(where: { $0.byteRange != nil }) { throw StoreError.unsupported("live source: byte ranges are not supported; MPEG-TS segments are") }
        if p.segments.contains(where: { ($0.key?.method ?? .none) != .none }) { throw StoreError.unsupported("live source: encrypted segments are not supported") }
        guard p.targetDuration >= 1 else { throw StoreError.unsupported("live source: no EXT-X-TARGETDURATION of 1 to 60 s") }
        targetDuration = MediaTime(seconds: Int64(p.targetDuration))
        mediaSequence = p.mediaSequence
        discontinuitySequence = p.discontinuitySequence
        ended = p.endList
        var segments: [Segment] = []
        for (i, s) in p.segments.enumerated() {
            guard s.duration > .zero, s.duration <= targetDuration + MediaTime(value: 1, timescale: 2) else {
                throw StoreError.unsupported("live source: EXTINF \(s.duration.seconds) of segment \(p.mediaSequence + i) is not a duration within the target")
            }
            segments.append(Segment(uri: s.uri, duration: s.duration, sequence: p.mediaSequence + i, discontinuity: s.discontinuity,
                                    markers: s.markers.compactMap(LiveMarker.init)))
        }
        self.segments = segments
    }
}
