@_spi(Engine) import Playback
import Timing

/// Folds a live rendition's signals into `LiveBreak`s, one segment at a time in media-sequence
/// order. A sliding playlist repeats its markers on every poll, so each media sequence number is
/// taken once (`add` ignores numbers at or below the last one); repeated in-band cues (encoders
/// send each several times) and repeated DATERANGE tags are recognised by their ids.
public struct LiveBreakTracker: Sendable {
    /// Every break seen, in the order they opened.
    public private(set) var breaks: [LiveBreak] = []
    /// The last media sequence number taken.
    public private(set) var lastSequence: Int?

    /// An empty tracker.
    public init() {}

    /// Takes one segment: `firstPTS` its first video PTS (unwrapped), `markers` the playlist
    /// markers in front of it, `cues` the SCTE-35 sections found in its TS.
    @_spi(Engine) public mutating func add(sequence: Int, firstPTS: Int64, markers: [LiveMarker], cues: [SCTE35Section]) {
        if let last = lastSequence, sequence <= last { return }
        lastSequence = sequence
        for m in markers { take(m, sequence: sequence, firstPTS: firstPTS) }
        for c in cues { take(c, sequence: sequence, firstPTS: firstPTS) }
    }

    private func index(_ id: String) -> Int? { breaks.lastIndex { $0.id == id } }
    private func openIndex(_ source: LiveBreak.Source) -> Int? { breaks.lastIndex { $0.source == source && $0.endPTS == nil } }

    private mutating func open(_ b: LiveBreak) {
        guard index(b.id) == nil else { return }
        breaks.append(b)
    }

    private mutating func close(_ i: Int, at pts: Int64) {
        if breaks[i].endPTS == nil, pts >= breaks[i].startPTS { breaks[i].endPTS = pts }
    }

    private mutating func take(_ m: LiveMarker, sequence: Int, firstPTS: Int64) {
        switch m {
        case .cueOut(let d):
            guard openIndex(.cueMarkers) == nil else { return }
            open(LiveBreak(id: "cue-\(sequence)", startPTS: firstPTS, startSequence: sequence, plannedDuration: d,
                           endPTS: nil, source: .cueMarkers, kind: .marker))
        case .cueOutCont(let elapsed, let d):
            // Joined mid-break: the start is `elapsed` before this segment.
            guard openIndex(.cueMarkers) == nil, let elapsed else { return }
            let start = firstPTS - elapsed.mpegTicks
            open(LiveBreak(id: "cue-joined-\(sequence)", startPTS: start, startSequence: nil, plannedDuration: d,
                           endPTS: nil, source: .cueMarkers, kind: .marker))
        case .cueIn:
            if let i = openIndex(.cueMarkers) { close(i, at: firstPTS) }
        case .dateRange(let r):
            let id = "daterange-\(r.id)"
            if r.hasOut, index(id) == nil {
                var start = firstPTS, kind = LiveBreak.Kind.marker, planned = r.plannedDuration ?? r.duration
                if let s = r.out {
                    if let p = s.splicePTS { start = LivePTS.unwrap(p, near: firstPTS) }
                    (kind, planned) = Self.kindAndDuration(s, fallback: planned)
                }
                open(LiveBreak(id: id, startPTS: start, startSequence: sequence, plannedDuration: planned,
                               endPTS: nil, source: .dateRange, kind: kind))
            }
            guard let i = index(id) else { return }
            if r.hasIn {
                close(i, at: r.in?.splicePTS.map { LivePTS.unwrap($0, near: firstPTS) } ?? firstPTS)
            } else if let d = r.duration {   // DURATION is the range's actual duration
                close(i, at: breaks[i].startPTS + d.mpegTicks)
            }
        }
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

    private mutating func take(_ s: SCTE35Section, sequence: Int, firstPTS: Int64) {
        let pts = s.splicePTS.map { LivePTS.unwrap($0, near: firstPTS) } ?? firstPTS
        switch s.command {
        case .spliceInsert(let i):
            let id = "splice-\(i.eventID)"
            if i.cancel {
                if let j = index(id), breaks[j].endPTS == nil, breaks[j].startPTS > firstPTS { breaks.remove(at: j) }
            } else if i.outOfNetwork {
                open(LiveBreak(id: id, startPTS: pts, startSequence: sequence,
                               plannedDuration: i.breakDuration.map { MediaTime(value: Int64($0), timescale: 90_000) },
                               endPTS: nil, source: .inBand, kind: .spliceInsert))
            } else if let j = index(id) ?? openIndex(.inBand) {
                close(j, at: pts)
            }
        case .timeSignal:
            for d in s.segmentation {
                let id = "segmentation-\(d.eventID)"
                if d.cancel { if let j = index(id), breaks[j].endPTS == nil { breaks.remove(at: j) }; continue }
                guard let kind = d.kind else { continue }
                if kind.isStart {
                    open(LiveBreak(id: id, startPTS: pts, startSequence: sequence,
                                   plannedDuration: d.duration.map { MediaTime(value: Int64($0), timescale: 90_000) },
                                   endPTS: nil, source: .inBand, kind: .segmentation(typeID: d.typeID)))
                } else if let j = index(id) ?? breaks.lastIndex(where: {
                    $0.source == .inBand && $0.endPTS == nil && $0.kind == .segmentation(typeID: d.typeID - 1) }) {
                    close(j, at: pts)
                }
            }
        default: break
        }
    }
}
