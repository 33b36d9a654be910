import Playback
import Timing

/// An ad break of a live channel, as signalled so far. PTS values are 90 kHz ticks on the
/// channel's unwrapped clock (33-bit PTS extended past wrap, see `LivePTS`), so that later
/// code can compare them with `LiveSegment.firstPTS` directly. A break is built up over polls:
/// it opens at its start signal and gets `endPTS` when an end signal arrives.
public struct LiveBreak: Sendable, Equatable {
    /// Where the signal came from.
    public enum Source: String, Sendable {
        /// `#EXT-X-CUE-OUT` / `-CONT` / `#EXT-X-CUE-IN`.
        case cueMarkers
        /// `#EXT-X-DATERANGE` with `SCTE35-OUT` / `SCTE35-IN`.
        case dateRange
        /// SCTE-35 sections on the TS's stream_type 0x86 PID.
        case inBand
    }

    /// What kind of signal opened it.
    public enum Kind: Sendable, Equatable {
        /// A playlist marker without an SCTE-35 command.
        case marker
        /// An SCTE-35 `splice_insert`.
        case spliceInsert
        /// An SCTE-35 `time_signal` with a segmentation descriptor of this `segmentation_type_id`.
        case segmentation(typeID: UInt8)
    }

    /// Stable identity: `cue-<msn>` (CUE-OUT at media sequence msn), `daterange-<ID>`,
    /// `splice-<splice_event_id>` or `segmentation-<segmentation_event_id>`.
    public var id: String
    /// The PTS of the break's first frame: the SCTE-35 splice PTS (pts_time + pts_adjustment),
    /// or, for markers without one, the first video PTS of the segment after the marker.
    public var startPTS: Int64
    /// The media sequence number of the segment holding `startPTS`, when known.
    public var startSequence: Int?
    /// The signalled duration (`DURATION=`, `PLANNED-DURATION`, `break_duration`, `segmentation_duration`).
    public var plannedDuration: MediaTime?
    /// The PTS at which content resumes, once an end signal was seen (CUE-IN, SCTE35-IN, a
    /// splice_insert back in, an end segmentation descriptor, or a DATERANGE `DURATION`).
    public var endPTS: Int64?
    /// The signal's source.
    public var source: Source
    /// The signal's kind.
    public var kind: Kind
    /// The SCTE-35 fields of the signal that opened it (`[scte.…]` ADS variables); nil for a
    /// marker without a section.
    public var scte: SCTEValues? = nil

    /// `endPTS`, or `startPTS + plannedDuration` while the end has not been signalled: where
    /// content is expected to resume (nil when neither is known).
    public var expectedEndPTS: Int64? {
        endPTS ?? plannedDuration.map { startPTS + $0.mpegTicks }
    }
}

/// 33-bit PTS on an unwrapped clock.
public enum LivePTS {
    /// 2^33.
    public static let wrap: Int64 = 1 << 33

    /// The value congruent to `raw` modulo 2^33 that is nearest `reference` (an unwrapped PTS).
    public static func unwrap(_ raw: UInt64, near reference: Int64) -> Int64 {
        let r = Int64(raw & UInt64(wrap - 1))
        let base = reference - ((reference % wrap) + wrap) % wrap
        return [base - wrap + r, base + r, base + wrap + r].min { abs($0 - reference) < abs($1 - reference) }!
    }
}
