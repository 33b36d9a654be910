import Foundation
@_spi(Engine) import Playback
import Timing

/// What the live source learns from one fetched origin segment: its `LiveSegment` (first
/// video PTS unwrapped onto the channel's clock) and the in-band SCTE-35 sections it carries,
/// ready for `LiveBreakTracker.add`. The bytes are hostile: a segment that is not MPEG-TS with
/// a video PES is refused (nil).
public enum LiveSegmentIntake {
    /// Reads `data`, the segment `entry` of `rendition` of `channel`. `expectedPTS` is where the
    /// previous segment ended on the unwrapped clock (its first PTS plus its duration), nil for
    /// the first segment; the 33-bit PTS is unwrapped near it.
    @_spi(Engine) public static func take(_ data: Data, entry: LivePlaylist.Segment, channel: String, rendition: String,
                            expectedPTS: Int64?) -> (segment: LiveSegment, cues: [SCTE35Section])? {
        guard data.count >= 188, data.count % 188 == 0, data.first == 0x47 else { return nil }
        let written = TSTimestamps.videoPTS(data)   // decode order: the first is the segment's first frame
        guard let raw = written.first.map(UInt64.init) else { return nil }
        let first = expectedPTS.map { LivePTS.unwrap(raw, near: $0) } ?? Int64(raw & UInt64(LivePTS.wrap - 1))
        let frames = written.map { LivePTS.unwrap(UInt64($0), near: first) }.sorted()
        let segment = LiveSegment(sequence: entry.sequence, duration: entry.duration, firstPTS: first,
                                  discontinuity: entry.discontinuity,
                                  storePath: LiveSegment.storePath(channel: channel, rendition: rendition, sequence: entry.sequence),
                                  framePTS: frames)
        return (segment, SCTE35TransportScan([UInt8](data)).cues.map(\.section))
    }
}
