import Playback
import Timing

/// Folds a live rendition's signals into `LiveBreak`s, one segment at a time in channel
/// sequence order. A sliding playlist repeats its markers on every poll, so each sequence number
/// is taken once (`add` ignores numbers at or below the last one).
///
/// A break's identity survives repeated signals: the same id again (a DATERANGE repeated with
/// its `ID`, an in-band cue repeated with its event id in every segment) is the same break, and
/// a signal whose break would start inside a known one (the same break signalled in two or three
/// forms at once, each with an id of its own: it starts inside the known one or up to `sameBreakLead`
/// before it) is taken as that break: its id becomes an alias, and its
/// end signal closes it. So a viewer asks the ad server once per break, however often the origin
/// repeats itself. A splice PTS (or a joined break's start) more than `farLimit` from its
/// segment is not a break at an absurd time: the signal is ignored and reported.
public struct LiveBreakTracker: Sendable {
    /// Every break seen and not forgotten, in the order they opened.
    public private(set) var breaks: [LiveBreak] = []
    /// The last sequence number taken.
    public private(set) var lastSequence: Int?
    /// Breaks opened since the tracker started (`forget` does not lower it).
    public private(set) var opened = 0
    /// Ids of signals taken as a known break, to that break's id.
    private var alias: [String: String] = [:]

    /// How far (90 kHz) a signalled PTS may lie from the first frame of the segment carrying it: 10 minutes.
    public static let farLimit: Int64 = 10 * 60 * 90_000
    /// A signal starting this little (90 kHz: 10 s) before a known break, or inside it, is that break.
    public static let sameBreakLead: Int64 = 10 * 90_000

    /// An empty tracker.
    public init() {}

    /// Takes one segment: `firstPTS` its first video PTS on the channel's clock, `clockOffset`
    /// the channel's clock less the segment's own PTS (SCTE-35 times are the origin's: they are
    /// moved by it), `markers` the playlist markers in front of it, `cues` the SCTE-35 sections
    /// found in its TS. Returns the signals ignored, one line each.
    @discardableResult
    package mutating func add(sequence: Int, firstPTS: Int64, clockOffset: Int64 = 0, markers: [LiveMarker],
                                           cues: [SCTE35Section]) -> [String] {
        if let last = lastSequence, sequence <= last { return [] }
        lastSequence = sequence
        var ignored: [String] = []
        for m in markers { if let why = take(m, sequence: sequence, firstPTS: firstPTS, offset: clockOffset) { ignored.append(why) } }
        for c in cues { if let why = take(c, sequence: sequence, firstPTS: firstPTS, offset: clockOffset) { ignored.append(why) } }
        return ignored
    }

    /// Forgets breaks over (their expected end, else their start) before `pts`, and their aliases.
    public mutating func forget(endingBefore pts: Int64) {
        let gone = Set(breaks.filter { ($0.expectedEndPTS ?? $0.startPTS) < pts }.map(\.id))
        guard !gone.isEmpty else { return }
        breaks.removeAll { gone.contains($0.id) }
        alias = alias.filter { !gone.contains($0.value) }
    }

    /// A splice PTS of the origin's on the channel's clock: unwrapped near the segment's own
    /// first PTS, moved by the offset; nil when it lies over `farLimit` from the segment.
    static func channelPTS(_ raw: UInt64, firstPTS: Int64, offset: Int64) -> Int64? {
        let pts = LivePTS.unwrap(raw, near: firstPTS - offset) + offset
        return abs(pts - firstPTS) <= farLimit ? pts : nil
    }

    static func far(_ what: String, _ raw: UInt64, sequence: Int) -> String {
        "\(what) at PTS \(raw) is over 10 minutes from segment \(sequence): ignored"
    }

    private func index(_ id: String) -> Int? {
        let target = alias[id] ?? id
        return breaks.lastIndex { $0.id == target }
    }

    /// The last open break signalled (also) by `source`.
    private func openIndex(_ source: LiveBreak.Source) -> Int? {
        breaks.lastIndex { b in
            b.endPTS == nil && (b.source == source || alias.contains { $0.value == b.id && Self.source(of: $0.key) == source })
        }
    }

    static func source(of id: String) -> LiveBreak.Source {
        id.hasPrefix("cue-") ? .cueMarkers : id.hasPrefix("daterange-") ? .dateRange : .inBand
    }

    /// Opens `b` unless its id is known; a break starting inside a known one (or up to
    /// `sameBreakLead` before it: a marker at the segment boundary before a splice PTS) is that
    /// one, its id an alias.
    private mutating func open(_ b: LiveBreak) {
        guard index(b.id) == nil else { return }
        if let i = breaks.lastIndex(where: { e in
            e.startPTS - Self.sameBreakLead <= b.startPTS && b.startPTS < (e.expectedEndPTS ?? e.startPTS + Self.sameBreakLead)
        }) {
            alias[b.id] = breaks[i].id
            if breaks[i].plannedDuration == nil { breaks[i].plannedDuration = b.plannedDuration }
            return
        }
        breaks.append(b)
        opened += 1
    }

    private mutating func close(_ i: Int, at pts: Int64) {
        if breaks[i].endPTS == nil, pts >= breaks[i].startPTS { breaks[i].endPTS = pts }
    }

    private mutating func take(_ m: LiveMarker, sequence: Int, firstPTS: Int64, offset: Int64) -> String? {
        switch m {
        case .cueOut(let d):
            guard openIndex(.cueMarkers) == nil else { return nil }
            open(LiveBreak(id: "cue-\(sequence)", startPTS: firstPTS, startSequence: sequence, plannedDuration: d,
                           endPTS: nil, source: .cueMarkers, kind: .marker))
        case .cueOutCont(let elapsed, let d):
            // Joined mid-break: the start is `elapsed` before this segment.
            guard openIndex(.cueMarkers) == nil, let elapsed else { return nil }
            guard elapsed.mpegTicks <= Self.farLimit else { return "EXT-X-CUE-OUT-CONT elapsed \(elapsed.seconds) s at segment \(sequence): ignored" }
            let start = firstPTS - elapsed.mpegTicks
            open(LiveBreak(id: "cue-joined-\(sequence)", startPTS: start, startSequence: nil, plannedDuration: d,
                           endPTS: nil, source: .cueMarkers, kind: .marker))
        case .cueIn:
            if let i = openIndex(.cueMarkers) { close(i, at: firstPTS) }
        case .splice(let s):
            return take(s.section, sequence: sequence, firstPTS: firstPTS, offset: offset)
        case .dateRange(let r):
            let id = "daterange-\(r.id)"
            var outPTS: Int64?, inPTS: Int64?
            if let p = r.out?.splicePTS {
                guard let pts = Self.channelPTS(p, firstPTS: firstPTS, offset: offset) else { return Self.far("DATERANGE \(r.id.prefix(64)) SCTE35-OUT", p, sequence: sequence) }
                outPTS = pts
            }
            if let p = r.in?.splicePTS {
                guard let pts = Self.channelPTS(p, firstPTS: firstPTS, offset: offset) else { return Self.far("DATERANGE \(r.id.prefix(64)) SCTE35-IN", p, sequence: sequence) }
                inPTS = pts
            }
            if r.hasOut, index(id) == nil {
                var kind = LiveBreak.Kind.marker, planned = r.plannedDuration ?? r.duration
                if let s = r.out { (kind, planned) = Self.kindAndDuration(s, fallback: planned) }
                open(LiveBreak(id: id, startPTS: outPTS ?? firstPTS, startSequence: sequence, plannedDuration: planned,
                               endPTS: nil, source: .dateRange, kind: kind, scte: r.out.map { SCTEValues($0) }))
            }
            guard let i = index(id) else { return nil }
            if r.hasIn {
                close(i, at: inPTS ?? firstPTS)
            } else if let d = r.duration {   // DURATION is the range's actual duration
                close(i, at: breaks[i].startPTS + d.mpegTicks)
            }
        }
        return nil
    }

    static func kindAndDuration(_ s: SCTE35Section, fallback: MediaTime?) -> (LiveBreak.Kind, MediaTime?) {
        switch s.command {
        case .spliceInsert(let i):
            return (.spliceInsert, i.breakDuration.map { MediaTime(value: Int64($0), timescale: 90_000) } ?? fallback)
        case .timeSignal:
            if let d = s.segmentation.first(where: { $0.kind?.isStart == true }) {
                return (.segmentation(typeID: d.typeID), d.duration.map { MediaTime(value: Int64($0), timescale: 90_000) } ?? fallback)
            }
            return (.marker, fallback)
        default: return (.marker, fallback)
        }
    }

    private mutating func take(_ s: SCTE35Section, sequence: Int, firstPTS: Int64, offset: Int64) -> String? {
        var pts = firstPTS
        if let p = s.splicePTS {
            guard let at = Self.channelPTS(p, firstPTS: firstPTS, offset: offset) else { return Self.far("in-band SCTE-35", p, sequence: sequence) }
            pts = at
        }
        switch s.command {
        case .spliceInsert(let i):
            let id = "splice-\(i.eventID)"
            if i.cancel {
                if let j = index(id), breaks[j].id == id, breaks[j].endPTS == nil, breaks[j].startPTS > firstPTS { breaks.remove(at: j) }
            } else if i.outOfNetwork {
                open(LiveBreak(id: id, startPTS: pts, startSequence: sequence,
                               plannedDuration: i.breakDuration.map { MediaTime(value: Int64($0), timescale: 90_000) },
                               endPTS: nil, source: .inBand, kind: .spliceInsert, scte: SCTEValues(s)))
            } else if let j = index(id) ?? openIndex(.inBand) {
                close(j, at: pts)
            }
        case .timeSignal:
            for d in s.segmentation {
                let id = "segmentation-\(d.eventID)"
                if d.cancel { if let j = index(id), breaks[j].id == id, breaks[j].endPTS == nil { breaks.remove(at: j) }; continue }
                guard let kind = d.kind else { continue }
                if kind.isStart {
                    open(LiveBreak(id: id, startPTS: pts, startSequence: sequence,
                                   plannedDuration: d.duration.map { MediaTime(value: Int64($0), timescale: 90_000) },
                                   endPTS: nil, source: .inBand, kind: .segmentation(typeID: d.typeID), scte: SCTEValues(s, descriptor: d)))
                } else if let j = index(id) ?? breaks.lastIndex(where: {
                    $0.source == .inBand && $0.endPTS == nil && $0.kind == .segmentation(typeID: d.typeID - 1) }) {
                    close(j, at: pts)
                }
            }
        default: break
        }
        return nil
    }
}
