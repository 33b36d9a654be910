import Ads
import Foundation
import Timing

/// A session's durable core as JSON (what Redis keeps): id, content, reporting mode, player
/// parameters, breaks and program date. Timelines, playlists and fired beacons are not in it:
/// the first two are rebuilt from the core and the shared store, the last is `BeaconLedger`'s.
struct SessionRecord: Codable, Equatable {
    /// The record's format; a record of another version reads as no session.
    var v = 1
    var id: String
    var content: String
    var reporting: String
    var playerParams: [String: String]
    var breaks: [Break]
    /// `Date.timeIntervalSinceReferenceDate`, exactly (the playlists' program date).
    var programDate: Double

    struct Time: Codable, Equatable { var value: Int64; var timescale: Int64 }

    struct Break: Codable, Equatable {
        var id: String
        /// `preroll`, `midroll` (with `cue`) or `postroll`.
        var position: String
        var cue: Time?
        var ads: [Ad]
    }

    struct Ad: Codable, Equatable {
        var id: String
        var mediaURL: String
        var declaredDuration: Time?
        var impressions: [String]
        var errorURLs: [String]
        var tracking: [String: [String]]
        var title: String
        var adSystem: String
        var creativeId: String
        var sequence: Int
        /// A bumper (absent in records made before bumpers: not one).
        var bumper: Bool?
    }

    init(_ s: ServeSession) {
        id = s.id; content = s.content; reporting = s.reporting.rawValue; playerParams = s.playerParams
        programDate = s.programDate.timeIntervalSinceReferenceDate
        breaks = s.breaks.map { b in
            let (position, cue): (String, Time?) = switch b.position {
            case .preroll: ("preroll", nil)
            case .midroll(let t): ("midroll", Time(value: t.value, timescale: t.timescale))
            case .postroll: ("postroll", nil)
            }
            return Break(id: b.id, position: position, cue: cue, ads: b.ads.map { a in
                Ad(id: a.id, mediaURL: a.mediaURL, declaredDuration: a.declaredDuration.map { Time(value: $0.value, timescale: $0.timescale) },
                   impressions: a.impressions.map(\.template), errorURLs: a.errorURLs.map(\.template),
                   tracking: a.tracking.mapValues { $0.map(\.template) }, title: a.title, adSystem: a.adSystem,
                   creativeId: a.creativeId, sequence: a.sequence, bumper: a.isBumper ? true : nil)
            })
        }
    }

    /// The JSON bytes.
    func encoded() -> Data { (try? JSONEncoder().encode(self)) ?? Data() }

    /// The record in `data`; nil for anything that is not a well-formed record of this version.
    static func decode(_ data: Data) -> SessionRecord? {
        guard let r = try? JSONDecoder().decode(SessionRecord.self, from: data), r.v == 1 else { return nil }
        return r
    }

    /// The session (nothing built, nothing fired); nil when a field is out of range.
    func session(lastSeen: Double) -> ServeSession? {
        guard let mode = ReportingMode(rawValue: reporting), programDate.isFinite else { return nil }
        func time(_ t: Time?) -> MediaTime?? {
            guard let t else { return .some(nil) }
            guard t.timescale > 0 else { return nil }
            return .some(MediaTime(value: t.value, timescale: t.timescale))
        }
        var planned: [PlannedBreak] = []
        for b in breaks {
            let position: BreakCue
            switch b.position {
            case "preroll": position = .preroll
            case "postroll": position = .postroll
            case "midroll":
                guard let c = time(b.cue), let cue = c else { return nil }
                position = .midroll(cue)
            default: return nil
            }
            var ads: [PlannedAd] = []
            for a in b.ads {
                guard let d = time(a.declaredDuration) else { return nil }
                let impressions: [URLTemplate] = a.impressions.map { URLTemplate($0) }
                let errorURLs: [URLTemplate] = a.errorURLs.map { URLTemplate($0) }
                let tracking: [String: [URLTemplate]] = a.tracking.mapValues { (list: [String]) -> [URLTemplate] in list.map { URLTemplate($0) } }
                ads.append(PlannedAd(id: a.id, mediaURL: a.mediaURL, declaredDuration: d, impressions: impressions, errorURLs: errorURLs,
                                     tracking: tracking, title: a.title, adSystem: a.adSystem, creativeId: a.creativeId, sequence: a.sequence,
                                     isBumper: a.bumper ?? false))
            }
            planned.append(PlannedBreak(id: b.id, position: position, ads: ads))
        }
        return ServeSession(id: id, content: content, reporting: mode, playerParams: playerParams, breaks: planned,
                            programDate: Date(timeIntervalSinceReferenceDate: programDate), lastSeen: lastSeen)
    }
}
