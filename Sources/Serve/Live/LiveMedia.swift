import Foundation
import Timing

/// What one live rung is, read from one of its segments.
public struct LiveRungInfo: Sendable, Hashable, Codable {
    /// Picture size.
    public var width: Int, height: Int
    /// Frames per second.
    public var frameRate: Rational
    /// The variant's `CODECS` string.
    public var codecs: String
    /// How far its frames decode before they show (90 kHz): ads and slate carry the same delay.
    public var decodeDelayTicks: Int64 = 0

    /// A rung description.
    public init(width: Int, height: Int, frameRate: Rational, codecs: String) {
        self.width = width; self.height = height; self.frameRate = frameRate; self.codecs = codecs
    }

    /// What `probe` read of a segment.
    public init(_ probe: LiveSegmentProbe) {
        self.init(width: probe.width, height: probe.height, frameRate: probe.frameRate, codecs: probe.codecs)
        decodeDelayTicks = probe.decodeDelayTicks
    }
}

/// What live sessions need of the store beyond `ServeMedia`: live rungs registered as
/// renditions (so ads are transcoded to them and slate made in them), and frame-exact pieces of
/// stored segments (a live segment where a break starts or ends inside it, an ad segment where a
/// break ends early), each made once and shared.
public protocol LiveMedia: ServeMedia {
    /// Registers a live rung (with the channel's frame rate and codec: ads and slate are made at
    /// them). Idempotent for the same rung; throws for another rung under the same name.
    func addRendition(_ rendition: Rendition) throws
    /// The frames of the stored segment at `path` whose PTS lie in `[from, to)` (90 kHz on the
    /// segment's own clock; nil: its start / end), as a stored piece made once per bounds and
    /// shared; nil when no frame lies there. `afterJoin`: the piece follows an ad or slate, so its
    /// sound starts at its first picture even at the segment's start (a piece when the segment's
    /// own sound starts later).
    func segmentPiece(_ path: String, rendition: Rendition, from: Int64?, to: Int64?, afterJoin: Bool) async throws -> StoredSegment?
    /// Live segments deleted from the store's folder: what was made of them (pieces) can go.
    func forgetLiveSegments(_ paths: [String])
    /// The rung a stored live segment belongs to.
    func probeRung(ofSegment path: String) throws -> LiveRungInfo
}

extension ServeMedia {
    /// The video PTS of the stored segment at `path`, unwrapped near its first and in
    /// presentation order (empty for a path the store does not hold).
    func framePTS(ofSegment path: String) -> [Int64] {
        guard let url = file(forSegment: path), let data = try? Data(contentsOf: url) else { return [] }
        let pts = TSTimestamps.videoPTS(data)
        return pts.map { LivePTS.unwrap(UInt64($0), near: pts.first ?? 0) }.sorted()
    }

    /// The first video PTS (mod 2^33, as written) of the stored segment at `path`.
    func firstPTS(ofSegment path: String) -> Int64? {
        guard let url = file(forSegment: path), let data = try? Data(contentsOf: url) else { return nil }
        return TSTimestamps.firstVideoPTS(data).map { $0.mpegTicks }
    }
}
