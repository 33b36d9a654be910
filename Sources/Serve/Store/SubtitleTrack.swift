import Foundation
import Manifest

/// One subtitle track of a content: an HLS origin's `EXT-X-MEDIA:TYPE=SUBTITLES` rendition
/// (WebVTT), its attributes as the origin gave them and its cues on the content's timeline, read
/// once when the content is taken in. A session's subtitle segments are cut from these cues at
/// the session's segment boundaries (`segment(from:to:wirePTS:)`): a cue never shows across a
/// join, and an ad's time has none.
public struct SubtitleTrack: Sendable, Codable, Hashable {
    /// `NAME`.
    public var name: String
    /// `LANGUAGE`.
    public var language: String?
    /// `DEFAULT=YES`.
    public var isDefault: Bool
    /// `AUTOSELECT=YES`.
    public var autoselect: Bool
    /// `FORCED=YES`.
    public var forced: Bool
    /// `CHARACTERISTICS`.
    public var characteristics: String?
    /// The cues, in start order, times in 90 kHz ticks of content time (0: the content's first frame).
    public var cues: [WebVTT.Cue]

    /// A track.
    public init(name: String, language: String? = nil, isDefault: Bool = false, autoselect: Bool = false, forced: Bool = false,
                characteristics: String? = nil, cues: [WebVTT.Cue]) {
        self.name = name; self.language = language; self.isDefault = isDefault; self.autoselect = autoselect
        self.forced = forced; self.characteristics = characteristics
        self.cues = cues.sorted { ($0.start, $0.end) < ($1.start, $1.end) }
    }

    /// Most tracks a content carries.
    static let maxTracks = 16
    /// Most cues a track carries.
    static let maxCues = 200_000
    /// Longest cue text kept, in bytes.
    static let maxCueText = 4096

    /// The cues showing in content time `[from, to)` (90 kHz ticks), cut to it and moved to
    /// start at 0 there.
    public func cues(from: Int64, to: Int64) -> [WebVTT.Cue] {
        guard to > from else { return [] }
        // cues are in start order: everything at or after `to` starts too late
        var lo = 0, hi = cues.count
        while lo < hi { let mid = (lo + hi) / 2; if cues[mid].start < to { lo = mid + 1 } else { hi = mid } }
        var out: [WebVTT.Cue] = []
        for c in cues[..<lo] where c.end > from {
            var piece = c
            piece.start = max(c.start, from) - from
            piece.end = min(c.end, to) - from
            if piece.end > piece.start { out.append(piece) }
        }
        return out
    }

    /// The WebVTT segment of content time `[from, to)` whose first frame is MPEG-TS time
    /// `wirePTS` for the viewer, there at cue time `local` (ticks: the segment's place on the
    /// viewer's clock; `X-TIMESTAMP-MAP=MPEGTS:wirePTS,LOCAL:local`, each cue time from `local`),
    /// or with cue times from `from` and no map (`wirePTS` nil: a DASH Period's sidecar file).
    /// A reader that maps the cues by the map alone gets the same times whatever `local` is; one
    /// that cannot map a segment (GStreamer's hlsdemux2 before its time map of the segment's
    /// discontinuity sequence is known) reads the cue times as stream times, right with `local`.
    public func segment(from: Int64, to: Int64, wirePTS: Int64?, local: Int64 = 0) -> String {
        guard let wirePTS else { return WebVTT.write(cues(from: from, to: to)) }
        let at = min(max(0, local), WebVTT.maxTicks / 2)
        let placed = cues(from: from, to: to).map { c -> WebVTT.Cue in var c = c; c.start += at; c.end += at; return c }
        return WebVTT.write(placed, map: WebVTT.TimestampMap(mpegts: wirePTS & WebVTT.maxMPEGTS, local: at))
    }

    /// The `EXT-X-MEDIA` of this track in group `group` with media playlist `uri`.
    func rendition(group: String, uri: String) -> HLS.Rendition {
        HLS.Rendition(type: .subtitles, groupID: group, name: name, language: language, isDefault: isDefault,
                      autoselect: autoselect || isDefault, forced: forced, characteristics: characteristics, uri: uri)
    }

    /// Whether a track read back from the store's record is one the store could have written.
    var isWellFormed: Bool {
        func printable(_ s: String?, max: Int) -> Bool {
            s.map { $0.utf8.count <= max && !$0.contains(where: { $0 == "\"" || $0.isNewline || $0.asciiValue.map { $0 < 0x20 } == true }) } ?? true
        }
        return !name.isEmpty && printable(name, max: 128) && printable(language, max: 64) && printable(characteristics, max: 256)
            && cues.count <= Self.maxCues
            && cues.allSatisfy { $0.start >= 0 && $0.end > $0.start && $0.end <= WebVTT.maxTicks && $0.text.utf8.count <= Self.maxCueText
                && !$0.text.contains("-->") && !$0.text.contains("\n\n") && printable($0.id, max: 256) && !$0.settings.contains(where: \.isNewline) }
            && zip(cues, cues.dropFirst()).allSatisfy { ($0.start, $0.end) <= ($1.start, $1.end) }
    }
}
