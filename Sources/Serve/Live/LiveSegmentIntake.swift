import Foundation
import Manifest
import Playback
import Timing

/// What the live source learns from one fetched origin segment: its first video PTS and frame
/// PTS as written (33 bits), and the in-band SCTE-35 sections it carries (those the parser
/// refuses counted), ready for `LiveTimeline.place` and `LiveBreakTracker.add`. The bytes are
/// hostile: a segment that is not MPEG-TS with a video PES is refused (nil).
public enum LiveSegmentIntake {
    /// A segment's bytes, read.
    package struct Reading: Sendable {
        /// The first video PES's PTS (decode order: the segment's first frame), 33 bits.
        public var firstPTS: UInt64
        /// Every video PES's PTS, as written.
        public var framePTS: [Int64]
        /// The SCTE-35 sections found.
        public var cues: [SCTE35Section]
        /// SCTE-35 sections that did not parse (damaged, lengths that disagree).
        public var rejectedSections: Int
        /// Each PES stream's first continuity counter (`TSDiscontinuity.firstCounters`), when
        /// asked for (an encrypted segment's); empty otherwise.
        public var counters: [TSDiscontinuity.Counter] = []
    }

    /// Reads `data`; nil when it is not MPEG-TS with a video PES. `counters`: its streams' first
    /// continuity counters too (a scan of the whole segment, needed only for one kept encrypted).
    package static func read(_ data: Data, counters: Bool = false) -> Reading? {
        guard data.count >= 188, data.count % 188 == 0, data.first == 0x47 else { return nil }
        let written = TSTimestamps.videoPTS(data)
        guard let raw = written.first.map(UInt64.init) else { return nil }
        let scan = SCTE35TransportScan([UInt8](data))
        return Reading(firstPTS: raw & UInt64(LivePTS.wrap - 1), framePTS: written, cues: scan.cues.map(\.section), rejectedSections: scan.rejected,
                       counters: counters ? TSDiscontinuity.firstCounters(data) ?? [] : [])
    }

    /// The `LiveSegment` of `reading`, segment `entry` of `rendition` of `channel` numbered
    /// `sequence` on the channel, whose first frame is at `filePTS` on its own (unwrapped) clock
    /// and `filePTS + clockOffset` on the channel's.
    /// `key`: the segment is kept encrypted under it (`reading` made of its clear bytes or headers, with its counters).
    /// `cmaf`: it is sample-encrypted CMAF kept as it came (`reading` made of its boxes) under
    /// this initialization segment, with this sound, starting at this time on its track's timeline.
    package static func segment(_ reading: Reading, entry: LivePlaylist.Segment, sequence: Int, channel: String, rendition: String,
                                filePTS: Int64, clockOffset: Int64, discontinuity: Bool, key: HLS.Key? = nil,
                                cmaf: (initialization: String, sound: SegmentEncryption.Sound?, mediaStart: MediaTime)? = nil) -> LiveSegment {
        let frames = reading.framePTS.map { LivePTS.unwrap(UInt64($0), near: filePTS) + clockOffset }.sorted()
        let encryption = cmaf.map { c in
            var e = SegmentEncryption(cmafInitialization: c.initialization, firstPTS: Int64(reading.firstPTS), key: key, sound: c.sound)
            e.mediaStart = [c.mediaStart.value, c.mediaStart.timescale]
            return e
        } ?? key.map { SegmentEncryption(key: $0, firstPTS: Int64(reading.firstPTS)) }
        return LiveSegment(sequence: sequence, duration: entry.duration, firstPTS: filePTS + clockOffset, discontinuity: discontinuity,
                           storePath: LiveSegment.storePath(channel: channel, rendition: rendition, sequence: sequence, encrypted: key != nil, cmaf: cmaf != nil),
                           framePTS: frames, clockOffset: clockOffset, encryption: encryption, counters: reading.counters)
    }

    /// Reads `data`, the segment `entry` of `rendition` of `channel`, on a clock without
    /// offset. `expectedPTS` is where the previous segment ended on the unwrapped clock (its
    /// first PTS plus its duration), nil for the first segment; the 33-bit PTS is unwrapped near it.
    package static func take(_ data: Data, entry: LivePlaylist.Segment, channel: String, rendition: String,
                            expectedPTS: Int64?) -> (segment: LiveSegment, cues: [SCTE35Section])? {
        guard let r = read(data) else { return nil }
        let first = expectedPTS.map { LivePTS.unwrap(r.firstPTS, near: $0) } ?? Int64(r.firstPTS)
        return (segment(r, entry: entry, sequence: entry.sequence, channel: channel, rendition: rendition, filePTS: first,
                        clockOffset: 0, discontinuity: entry.discontinuity), r.cues)
    }
}

/// Why a fetched live segment cannot be read, one line.
struct LiveIntakeFailure: Error, Sendable, CustomStringConvertible {
    /// One line.
    var description: String
}
