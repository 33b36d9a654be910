import Foundation
@_spi(Engine) import Playback
import Timing

/// An ad-break marker of a live HLS media playlist, in the three forms origins use. Markers are
/// attached to the segment they precede (`LivePlaylist.Segment.markers`): the break starts (or
/// ends) at that segment's first frame unless an SCTE-35 section gives a PTS.
public enum LiveMarker: Sendable, Equatable {
    /// `#EXT-X-CUE-OUT:DURATION=30`, `#EXT-X-CUE-OUT:30` or a bare `#EXT-X-CUE-OUT`.
    case cueOut(duration: MediaTime?)
    /// `#EXT-X-CUE-OUT-CONT:ElapsedTime=…,Duration=…` (also the `…/…` form): the break goes on.
    case cueOutCont(elapsed: MediaTime?, duration: MediaTime?)
    /// `#EXT-X-CUE-IN`: the break ends.
    case cueIn
    /// `#EXT-X-DATERANGE` with SCTE-35: `SCTE35-OUT` opens a break, `SCTE35-IN` closes it; the hex is
    /// decoded by `SCTE35Section`. A DATERANGE with neither (nor a duration) is not a marker.
    case dateRange(DateRange)

    /// The attributes of an SCTE-35 `EXT-X-DATERANGE` that ad insertion uses.
    public struct DateRange: Sendable, Equatable {
        /// `ID`: the same for the OUT and the IN of one break.
        public var id: String
        /// `START-DATE`, as written (ISO 8601).
        public var startDate: String?
        /// `PLANNED-DURATION`, `DURATION`.
        public var plannedDuration: MediaTime?, duration: MediaTime?
        /// The decoded `SCTE35-OUT`, `SCTE35-IN` sections.
        @_spi(Engine) public var out: SCTE35Section?, `in`: SCTE35Section?
        /// Whether the tag had an `SCTE35-OUT` / `SCTE35-IN` attribute (even one that did not decode).
        public var hasOut: Bool, hasIn: Bool
    }

    /// Parses one playlist line; nil when it is not a marker. Malformed numbers are dropped
    /// (nil fields), never guessed.
    public static func parse(_ line: String) -> LiveMarker? {
        if line.hasPrefix("#EXT-X-CUE-OUT-CONT") {
            let rest = line.dropFirst("#EXT-X-CUE-OUT-CONT".count).drop { $0 == ":" }
            if rest.contains("=") {
                let a = HLSPlaylistText.attributes(String(rest))
                return .cueOutCont(elapsed: a["ElapsedTime"].flatMap(seconds), duration: a["Duration"].flatMap(seconds))
            }
            let parts = rest.split(separator: "/").map(String.init)   // "10/30"
            return .cueOutCont(elapsed: parts.first.flatMap(seconds), duration: parts.count > 1 ? seconds(parts[1]) : nil)
        }
        if line.hasPrefix("#EXT-X-CUE-OUT") {
            let rest = String(line.dropFirst("#EXT-X-CUE-OUT".count).drop { $0 == ":" })
            if rest.isEmpty { return .cueOut(duration: nil) }
            if rest.contains("=") { return .cueOut(duration: HLSPlaylistText.attributes(rest)["DURATION"].flatMap(seconds)) }
            return .cueOut(duration: seconds(rest))
        }
        if line == "#EXT-X-CUE-IN" || line.hasPrefix("#EXT-X-CUE-IN:") { return .cueIn }
        if line.hasPrefix("#EXT-X-DATERANGE:") {
            let a = HLSPlaylistText.attributes(String(line.dropFirst("#EXT-X-DATERANGE:".count)))
            guard let id = a["ID"], a["SCTE35-OUT"] != nil || a["SCTE35-IN"] != nil else { return nil }
            return .dateRange(DateRange(id: id, startDate: a["START-DATE"],
                                        plannedDuration: a["PLANNED-DURATION"].flatMap(seconds),
                                        duration: a["DURATION"].flatMap(seconds),
                                        out: a["SCTE35-OUT"].flatMap { try? SCTE35Section(hex: $0) },
                                        in: a["SCTE35-IN"].flatMap { try? SCTE35Section(hex: $0) },
                                        hasOut: a["SCTE35-OUT"] != nil, hasIn: a["SCTE35-IN"] != nil))
        }
        return nil
    }

    /// Non-negative decimal seconds, exact (`MediaTime(decimal:)`), at most a day.
    static func seconds(_ s: String) -> MediaTime? {
        guard let t = MediaTime(decimal: s.trimmingCharacters(in: .whitespaces)), t >= .zero,
              t <= MediaTime(seconds: 86_400) else { return nil }
        return t
    }
}
