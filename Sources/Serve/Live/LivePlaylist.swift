import Foundation
import Timing

/// A live (or ended) HLS media playlist as the live source reads it from an origin: its target
/// duration, media sequence numbers, segments with exact `EXTINF` durations and discontinuities,
/// and the ad markers in front of each segment. Refuses what the store cannot pass through
/// (encryption, fMP4, byte ranges) with a one-line reason, like `HLSPlaylistText.media`.
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
        let lines = try HLSPlaylistText.playlistLines(text)
        for (tag, why) in [("#EXT-X-MAP", "fMP4 segments"), ("#EXT-X-BYTERANGE", "byte ranges")] where lines.contains(where: { $0.hasPrefix(tag) }) {
            throw StoreError.unsupported("live source: \(why) are not supported; MPEG-TS segments are")
        }
        if lines.contains(where: { $0.hasPrefix("#EXT-X-KEY:") && !$0.contains("METHOD=NONE") }) {
            throw StoreError.unsupported("live source: encrypted segments are not supported")
        }
        func int(_ tag: String) -> Int? {
            lines.first { $0.hasPrefix(tag + ":") }.flatMap { Int($0.dropFirst(tag.count + 1)) }
        }
        guard let target = int("#EXT-X-TARGETDURATION"), (1...60).contains(target) else {
            throw StoreError.unsupported("live source: no EXT-X-TARGETDURATION of 1 to 60 s")
        }
        targetDuration = MediaTime(seconds: Int64(target))
        mediaSequence = max(0, int("#EXT-X-MEDIA-SEQUENCE") ?? 0)
        discontinuitySequence = max(0, int("#EXT-X-DISCONTINUITY-SEQUENCE") ?? 0)
        ended = lines.contains("#EXT-X-ENDLIST")
        var segments: [Segment] = []
        var duration: MediaTime?, discontinuity = false, markers: [LiveMarker] = []
        for line in lines {
            if line.hasPrefix("#EXTINF:") {
                let value = line.dropFirst("#EXTINF:".count).split(separator: ",", maxSplits: 1).first.map(String.init) ?? ""
                guard let d = LiveMarker.seconds(value), d > .zero, d <= targetDuration + MediaTime(value: 1, timescale: 2) else {
                    throw StoreError.unsupported("live source: EXTINF \(value.prefix(20)) is not a duration within the target")
                }
                duration = d
            } else if line == "#EXT-X-DISCONTINUITY" {
                discontinuity = true
            } else if let m = LiveMarker.parse(line) {
                markers.append(m)
            } else if !line.hasPrefix("#") {
                guard let d = duration else { throw StoreError.unsupported("live source: a segment without EXTINF") }
                segments.append(Segment(uri: line, duration: d, sequence: mediaSequence + segments.count,
                                        discontinuity: discontinuity, markers: markers))
                duration = nil; discontinuity = false; markers = []
                guard segments.count <= Self.maxSegments else { throw StoreError.unsupported("live source: over \(Self.maxSegments) segments") }
            }
        }
        self.segments = segments
    }
}
