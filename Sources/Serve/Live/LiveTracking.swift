import Foundation
import Timing

extension LiveViewer {
    /// MediaTailor's client-side tracking JSON (`TrackingJSON`) for the breaks met so far (a pod
    /// once fitted); with `page`, only what starts after its token. Times are seconds of the
    /// viewer's stream (from its first frame).
    public func trackingJSON(page: TrackingToken.Page? = nil) async -> Data {
        let object = await shared(saving: false) { trackingObject(page: page) } ?? trackingObject(page: page)
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
    }

    func trackingObject(page: TrackingToken.Page? = nil) -> [String: Any] {
        TrackingJSON.response(trackingAvails(), programDate: programDate, page: page)
    }

    /// The avails with a fitted pod, as the viewer's stream plays them: the break's length (up
    /// to its end once known), each ad from its start, an ad the break ended inside reported up to
    /// the cut and the ads after it left out.
    func trackingAvails() -> [TrackingJSON.Avail] {
        return avails.indices.compactMap { i -> TrackingJSON.Avail? in
            let a = avails[i]
            guard !a.playsContent, let pod = a.pod, let planned = a.planned, let ads = a.ads else { return nil }
            var list: [TrackingJSON.Ad] = []
            for (s, slot) in pod.slots.enumerated() {
                let played = playedTicks(avail: i, slot: s)
                guard played > 0 else { break }
                list.append(TrackingJSON.Ad(planned: ads[slot.ad], index: slot.ad, start: Self.time(slotStartPTS(avail: i, slot: s) - originPTS),
                                            length: Self.time(slot.ticks), played: Self.time(played)))
            }
            let length = (a.endPTS ?? (a.startPTS + a.requestedTicks)) - a.startPTS
            return TrackingJSON.Avail(planned: planned, start: Self.time(a.startPTS - originPTS), duration: Self.time(length),
                                      markerDuration: Self.time(a.requestedTicks), contentTime: .zero, ads: list)
        }
    }

    /// Channel PTS at which slot `s` of avail `i`'s pod starts.
    func slotStartPTS(avail i: Int, slot s: Int) -> Int64 {
        avails[i].startPTS + (avails[i].pod?.slots[s].start ?? 0)
    }

    /// Ticks of slot `s` of avail `i` that play: all of it, or up to the break's end once that
    /// is known to fall inside it (0: the break ended before it).
    func playedTicks(avail i: Int, slot s: Int) -> Int64 {
        guard let slot = avails[i].pod?.slots[s] else { return 0 }
        guard let end = avails[i].endPTS else { return slot.ticks }
        return max(0, min(slot.ticks, end - slotStartPTS(avail: i, slot: s)))
    }

    /// The beacons segment `k` of ad `a` of avail `b` holds in `rendition` that have not fired
    /// yet, marked fired: (event, urls, ad id, break id). None after the break's end: an ad cut
    /// short owes only the events before the cut (`AdBeacons.owed`).
    public func claimBeacons(rendition: String, avail b: Int, ad a: Int, segment k: Int) async -> [(event: String, urls: [String], adID: String, breakID: String)] {
        await shared(saving: true) { claimBeaconsNow(rendition: rendition, avail: b, ad: a, segment: k) } ?? []
    }

    private func claimBeaconsNow(rendition: String, avail b: Int, ad a: Int, segment k: Int) -> [(event: String, urls: [String], adID: String, breakID: String)] {
        guard reporting == .server, b < avails.count, let planned = avails[b].planned, let ads = avails[b].ads, a < ads.count,
              let s = avails[b].pod?.slots.firstIndex(where: { $0.ad == a }), let slot = avails[b].pod?.slots[s],
              let r = rung(named: rendition), let item = tracks[r.key]?.timeline.items.first(where: {
                  if case .ad(b, a, k, _, _) = $0.kind { true } else { false } }),
              case .ad(_, _, _, let count, let cut) = item.kind else { return [] }
        let d = MediaTime(value: slot.ticks, timescale: 90_000)
        let played = MediaTime(value: playedTicks(avail: b, slot: s), timescale: 90_000)
        let due = AdBeacons.owed(AdBeacons.due(ads[a], in: planned, duration: d, contentTime: .zero, serverSide: true), played: played, length: d).filter {
            AdBeacons.holds(offset: $0.offset, event: $0.event, segmentStart: item.offsetInAd, length: item.segment.duration,
                            isLast: k == count - 1 && !cut)
        }
        var out: [(event: String, urls: [String], adID: String, breakID: String)] = []
        for d in due where fired.insert("\(b)/\(a)/\(d.event)").inserted { out.append((d.event, d.urls, ads[a].id, planned.id)) }
        return out
    }
}
