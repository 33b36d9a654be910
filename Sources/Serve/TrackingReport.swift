import Foundation
import Timing

/// MediaTailor's client-side tracking JSON for a session: `avails` (one per break as played) →
/// `ads` → `trackingEvents` with `beaconUrls`, `eventType`, `startTimeInSeconds` and
/// `durationInSeconds` (stream time), plus `nonLinearAvails` and `nextToken`. Pure.
public enum TrackingReport {
    /// The JSON object (JSONSerialization's types).
    public static func json(session: ServeSession, timeline: SessionTimeline) -> [String: Any] {
        var avails: [[String: Any]] = []
        for layout in timeline.breaks {
            let planned = session.breaks[layout.index]
            var ads: [[String: Any]] = []
            for played in layout.ads {
                let ad = planned.ads[played.ad]
                let events: [[String: Any]] = AdBeacons.due(ad, in: planned, duration: played.duration, contentTime: layout.contentTime, serverSide: false).map { due in
                    let start = played.start + due.offset
                    let duration = due.event == "impression" ? played.duration : .zero
                    return ["beaconUrls": due.urls, "eventType": due.event, "eventId": "\(ad.id)-\(due.event)",
                            "startTime": iso(start), "startTimeInSeconds": round3(start),
                            "duration": iso(duration), "durationInSeconds": round3(duration)]
                }
                ads.append(["adId": ad.id, "adTitle": ad.title, "adSystem": ad.adSystem, "creativeId": ad.creativeId,
                            "creativeSequence": String(ad.sequence), "vastAdId": ad.id, "adParameters": "",
                            "startTime": iso(played.start), "startTimeInSeconds": round3(played.start),
                            "duration": iso(played.duration), "durationInSeconds": round3(played.duration),
                            "trackingEvents": events, "companionAds": [Any](), "extensions": [Any](), "adVerifications": [Any](),
                            "mediaFiles": ["mediaFilesList": [Any](), "mezzanine": ""], "skipOffset": NSNull()])
            }
            avails.append(["availId": planned.id, "startTime": iso(layout.start), "startTimeInSeconds": round3(layout.start),
                           "duration": iso(layout.duration), "durationInSeconds": round3(layout.duration),
                           "ads": ads, "adBreakTrackingEvents": [Any](), "nonLinearAdsList": [Any](), "meta": NSNull(),
                           "availProgramDateTime": NSNull()])
        }
        return ["avails": avails, "nonLinearAvails": [Any](), "nextToken": NSNull()]
    }

    /// Seconds to three decimals, for JSON.
    static func round3(_ t: MediaTime) -> Double { (t.seconds * 1000).rounded() / 1000 }

    /// An ISO 8601 date with milliseconds (`2026-12-03T16:53:31.250Z`).
    static func iso8601(_ d: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: d)
    }

    /// ISO 8601 duration (`PT12.345S`).
    static func iso(_ t: MediaTime) -> String {
        var s = String(format: "%.3f", t.seconds)
        while s.hasSuffix("0") { s.removeLast() }
        if s.hasSuffix(".") { s.removeLast() }
        return "PT\(s)S"
    }
}
