import Foundation
import Timing

extension LiveViewer {
    /// MediaTailor's client-side tracking JSON for the breaks met so far (a pod once fitted):
    /// times are seconds of the viewer's stream (from its first frame).
    public func trackingJSON() -> Data {
        (try? JSONSerialization.data(withJSONObject: trackingObject(), options: [.sortedKeys])) ?? Data("{}".utf8)
    }

    func trackingObject() -> [String: Any] {
        var out: [[String: Any]] = []
        for a in avails {
            guard let pod = a.pod, let planned = a.planned, let ads = a.ads else { continue }
            let start = MediaTime(value: a.startPTS - startPTS, timescale: 90_000)
            let length = MediaTime(value: (a.endPTS ?? (a.startPTS + a.requestedTicks)) - a.startPTS, timescale: 90_000)
            var at = start
            var list: [[String: Any]] = []
            for slot in pod.slots {
                let ad = ads[slot.ad]
                let d = MediaTime(value: slot.ticks, timescale: 90_000)
                let events: [[String: Any]] = AdBeacons.due(ad, in: planned, duration: d, contentTime: .zero, serverSide: false).map { due in
                    ["beaconUrls": due.urls, "eventType": due.event, "eventId": "\(ad.id)-\(due.event)",
                     "startTimeInSeconds": TrackingReport.round3(at + due.offset), "startTime": TrackingReport.iso(at + due.offset),
                     "durationInSeconds": TrackingReport.round3(due.event == "impression" ? d : .zero)]
                }
                list.append(["adId": ad.id, "adTitle": ad.title, "adSystem": ad.adSystem, "creativeId": ad.creativeId,
                             "creativeSequence": String(ad.sequence), "startTimeInSeconds": TrackingReport.round3(at),
                             "startTime": TrackingReport.iso(at), "durationInSeconds": TrackingReport.round3(d),
                             "duration": TrackingReport.iso(d), "trackingEvents": events])
                at += d
            }
            out.append(["availId": a.breakID, "startTimeInSeconds": TrackingReport.round3(start), "startTime": TrackingReport.iso(start),
                        "durationInSeconds": TrackingReport.round3(length), "duration": TrackingReport.iso(length), "ads": list,
                        "adsSeconds": Double(a.adTicksPublished) / 90_000, "slateSeconds": Double(a.slateTicksPublished) / 90_000,
                        "availProgramDateTime": TrackingReport.iso8601(programDate.addingTimeInterval(start.seconds))])
        }
        return ["avails": out, "nonLinearAvails": [Any](), "nextToken": NSNull()]
    }

    /// The beacons segment `k` of ad `a` of avail `b` holds in `rendition` that have not fired
    /// yet, marked fired: (event, urls, ad id, break id).
    public func claimBeacons(rendition: String, avail b: Int, ad a: Int, segment k: Int) -> [(event: String, urls: [String], adID: String, breakID: String)] {
        guard reporting == .server, b < avails.count, let planned = avails[b].planned, let ads = avails[b].ads, a < ads.count,
              let slot = avails[b].pod?.slots.first(where: { $0.ad == a }),
              let r = rung(named: rendition), let item = tracks[r.key]?.items.first(where: {
                  if case .ad(b, a, k, _, _) = $0.kind { true } else { false } }),
              case .ad(_, _, _, let count, let cut) = item.kind else { return [] }
        let d = MediaTime(value: slot.ticks, timescale: 90_000)
        let due = AdBeacons.due(ads[a], in: planned, duration: d, contentTime: .zero, serverSide: true).filter {
            AdBeacons.holds(offset: $0.offset, event: $0.event, segmentStart: item.offsetInAd, length: item.segment.duration,
                            isLast: k == count - 1 && !cut)
        }
        var out: [(event: String, urls: [String], adID: String, breakID: String)] = []
        for d in due where fired.insert("\(b)/\(a)/\(d.event)").inserted { out.append((d.event, d.urls, ads[a].id, planned.id)) }
        return out
    }
}
