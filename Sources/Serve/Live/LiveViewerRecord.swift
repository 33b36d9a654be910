import Foundation
import Timing

/// A live viewer as a fleet keeps it (`LiveViewerStore`, `interlude:live:ID`): who it is (the
/// channel, where it started, its player's parameters) and everything it has decided and
/// published so far — each rung's playlist and timeline, its avails with the ad server's
/// answers and fitted pods, the beacons it fired — so that any node continues the same
/// timeline: the same media sequence, the same ads, no beacon twice. `version` counts the
/// changes; a node holding an older one reads the record again before it changes anything.
struct LiveViewerRecord: Codable {
    /// The record's format; another reads as no viewer.
    var v = 1
    /// Changes made to the viewer so far.
    var version: Int
    var id: String
    var channel: String
    var reporting: String
    var startPTS: Int64
    /// `Date.timeIntervalSinceReferenceDate`, exactly (the playlists' program date).
    var programDate: Double
    var playerParams: [String: String]
    var userAgent: String
    var state: LiveViewer.State

    /// The bytes kept: the version in decimal and a line feed, then the JSON (so that a node
    /// whose copy is current reads the version without decoding the rest).
    func encoded() throws -> Data {
        var out = Data("\(version)\n".utf8)
        out.append(try JSONEncoder().encode(self))
        return out
    }

    /// The version at the head of kept bytes; nil when there is none.
    static func version(of data: Data) -> Int? {
        guard let nl = data.prefix(20).firstIndex(of: 10) else { return nil }
        return Int(String(decoding: data[data.startIndex..<nl], as: UTF8.self))
    }

    /// The record in kept bytes when it is one of this format for viewer `id`, its head's
    /// version its own, whose indices all point inside it (a record read back from Redis is not
    /// trusted: a planted one must not make a node index out of range); nil otherwise.
    static func decode(_ data: Data, id: String) -> LiveViewerRecord? {
        guard let head = version(of: data), let nl = data.firstIndex(of: 10),
              let r = try? JSONDecoder().decode(LiveViewerRecord.self, from: data[(nl + 1)...]), r.v == 1, r.id == id,
              r.version >= 1, r.version == head, ReportingMode(rawValue: r.reporting) != nil, r.programDate.isFinite,
              r.state.isConsistent else { return nil }
        return r
    }
}

extension LiveViewer {
    /// What a viewer has decided and published (`LiveViewerRecord`).
    struct State: Codable {
        var tracks: [String: Track]
        var avails: [LiveAvail]
        var joinEdge: Int64?
        var originPTS: Int64
        var prerollAvail: Int?
        var fired: [String]

        /// Every index in it points inside it: the pre-roll's avail, the pods' ads, the items'
        /// breaks and ads, the playlists' marks.
        var isConsistent: Bool {
            if let p = prerollAvail, !avails.indices.contains(p) { return false }
            for a in avails {
                let ads = a.ads?.count ?? 0
                if let pod = a.pod, !pod.slots.allSatisfy({ (0..<ads).contains($0.ad) && $0.ticks >= 0 }) { return false }
                if let planned = a.planned, planned.ads.count != ads { return false }
            }
            for t in tracks.values {
                if let m = t.last?.mark, !avails.indices.contains(m) { return false }
                for item in t.timeline.items {
                    switch item.kind {
                    case .content: continue
                    case .slate(let b, _): if !avails.indices.contains(b) { return false }
                    case .ad(let b, let a, let k, let count, _):
                        guard avails.indices.contains(b), (0..<(avails[b].ads?.count ?? 0)).contains(a), (0..<count).contains(k) else { return false }
                    }
                }
            }
            return true
        }
    }
}
