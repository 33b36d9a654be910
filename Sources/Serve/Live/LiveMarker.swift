import Foundation
import Manifest
import Playback
import Timing

/// An ad-break marker of a live origin's manifest: the three forms HLS playlists use, as the
/// one parser (`HLS.parse`) reads them, and a DASH MPD's SCTE-35 `Event` (`LiveMPD`). Markers
/// are attached to a segment (`LivePlaylist.Segment.markers`: an HLS marker to the segment it
/// precedes, a DASH Event to the segment holding its time): the break starts (or ends) at that
/// segment's first frame unless an SCTE-35 section gives a PTS.
public enum LiveMarker: Sendable, Equatable {
    /// `#EXT-X-CUE-OUT:DURATION=30`, `#EXT-X-CUE-OUT:30` or a bare `#EXT-X-CUE-OUT`.
    case cueOut(duration: MediaTime?)
    /// `#EXT-X-CUE-OUT-CONT:ElapsedTime=…,Duration=…` (also the `…/…` form): the break goes on.
    case cueOutCont(elapsed: MediaTime?, duration: MediaTime?)
    /// `#EXT-X-CUE-IN`: the break ends.
    case cueIn
    /// `#EXT-X-DATERANGE` with SCTE-35: `SCTE35-OUT` opens a break, `SCTE35-IN` closes it; the hex is
    /// decoded by `SCTE35Section`. A DATERANGE with neither is not a marker.
    case dateRange(DateRange)
    /// An SCTE-35 section signalled in the manifest at the time it gives (a DASH `EventStream`
    /// Event, its `presentationTime` written into the section as the splice PTS on the segments'
    /// clock): taken as an in-band section is.
    case splice(Splice)

    /// An SCTE-35 section signalled in the manifest (`splice`).
    public struct Splice: Sendable, Equatable {
        /// The section, its splice time the one the manifest gives.
        package var section: SCTE35Section
        package init(_ section: SCTE35Section) { self.section = section }
    }

    /// The attributes of an SCTE-35 `EXT-X-DATERANGE` that ad insertion uses.
    public struct DateRange: Sendable, Equatable {
        /// `ID`: the same for the OUT and the IN of one break.
        public var id: String
        /// `START-DATE`.
        public var startDate: Date
        /// `PLANNED-DURATION`, `DURATION`.
        public var plannedDuration: MediaTime?, duration: MediaTime?
        /// The decoded `SCTE35-OUT`, `SCTE35-IN` sections.
        package var out: SCTE35Section?, `in`: SCTE35Section?
        /// Whether the tag had an `SCTE35-OUT` / `SCTE35-IN` attribute (even one that did not decode).
        public var hasOut: Bool, hasIn: Bool
    }

    /// The marker of a parsed playlist marker; nil for a date range without SCTE-35 OUT or IN.
    /// Durations over a day are dropped (nil), never guessed.
    public init?(_ m: HLS.Marker) {
        func bounded(_ t: MediaTime?) -> MediaTime? { t.flatMap { $0 <= MediaTime(seconds: 86_400) ? $0 : nil } }
        switch m {
        case .cueOut(let d): self = .cueOut(duration: bounded(d))
        case .cueOutCont(let e, let d): self = .cueOutCont(elapsed: bounded(e), duration: bounded(d))
        case .cueIn: self = .cueIn
        case .dateRange(let r):
            guard r.scte35Out != nil || r.scte35In != nil else { return nil }
            self = .dateRange(DateRange(id: r.id, startDate: r.startDate, plannedDuration: bounded(r.plannedDuration),
                                        duration: bounded(r.duration), out: r.scte35Out.flatMap { try? SCTE35Section(parsing: $0) },
                                        in: r.scte35In.flatMap { try? SCTE35Section(parsing: $0) },
                                        hasOut: r.scte35Out != nil, hasIn: r.scte35In != nil))
        }
    }
}
