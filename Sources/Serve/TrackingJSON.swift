import Foundation
import Timing

/// MediaTailor's client-side tracking JSON (`GET /v1/sessions/ID/tracking`), field for field,
/// from the avails a session's stream plays: the one builder of VOD (`TrackingReport`) and live
/// (`LiveViewer.trackingObject`) answers. Pure.
///
/// Keys and JSON types as AWS documents them: the schema
/// (https://docs.aws.amazon.com/mediatailor/latest/ug/ad-reporting-client-side-ad-tracking-schema.html:
/// `icons` of an ad, `adType` of an avail), and the full payloads its examples answer
/// (https://docs.aws.amazon.com/mediatailor/latest/ug/ad-id-client-side-tracking-api.html,
/// https://docs.aws.amazon.com/mediatailor/latest/ug/ad-reporting-client-side-ad-tracking-schema-player-controls.html):
/// - response: `avails`, `dashAvailabilityStartTime` (null: HLS), `hlsAnchorMediaSequenceNumber`
///   (null, as in every documented payload), `nextToken` (`TrackingToken`), `nonLinearAvails` ([]).
/// - avail: `adBreakTrackingEvents` ([]), `adMarkerDuration` (ISO 8601 duration of the signalled
///   break, live; null for VOD), `ads`, `adType` ("avail", as the ad ID decoration names a linear
///   avail), `availId`, `availProgramDateTime`,
///   `duration`, `durationInSeconds`, `meta` (null), `nonLinearAdsList` ([]), `startTime`,
///   `startTimeInSeconds`.
/// - ad: `adId` (the VAST Ad id: what the playlists' `com.interlude.ad` date ranges carry as
///   `X-AD-ID`), `adParameters` (""), `adProgramDateTime`, `adSystem`, `adTitle`,
///   `adVerifications`, `companionAds`, `extensions`, `icons` ([]), `creativeId`,
///   `creativeSequence` (its place in the pod, a string), `duration`, `durationInSeconds`,
///   `mediaFiles` (`{"mediaFilesList": [], "mezzanine": ""}`), `skipOffset` (null),
///   `startTime`, `startTimeInSeconds`, `trackingEvents`, `vastAdId` (the VAST Ad id).
/// - tracking event: `beaconUrls`, `duration` (the ad's for `impression`, else `PT0S`),
///   `durationInSeconds`, `eventId` (`AVAIL-ad-N-EVENT`: one per event of the session),
///   `eventProgramDateTime`, `eventType`, `startTime`, `startTimeInSeconds`.
///
/// Times are the session's stream time (from its first segment, as the HLS `startTime` is
/// documented), `…InSeconds` to the millisecond and the ISO 8601 `duration`/`startTime` the same
/// milliseconds (`PT1M46.08S`); the program dates are the playlists' `EXT-X-PROGRAM-DATE-TIME`
/// at that time. An ad that a break cut short is reported as it played: its duration up to the
/// cut and only the events before it (`AdBeacons.owed`).
public enum TrackingJSON {
    /// One ad as the stream plays it.
    public struct Ad: Sendable, Hashable {
        /// The decided ad.
        public var planned: PlannedAd
        /// Its index in its break's decided ads (`N - 1` of the playlists' `…-ad-N` date range).
        public var index: Int
        /// Stream time it starts at.
        public var start: MediaTime
        /// Its measured length: where its quartiles fall.
        public var length: MediaTime
        /// What plays of it: `length`, or less when the break ended inside it.
        public var played: MediaTime

        /// An ad.
        public init(planned: PlannedAd, index: Int, start: MediaTime, length: MediaTime, played: MediaTime) {
            self.planned = planned; self.index = index; self.start = start; self.length = length; self.played = played
        }
    }

    /// One avail (break) as the stream plays it.
    public struct Avail: Sendable, Hashable {
        /// The break (its id, position and decided ads: the beacons' macros).
        public var planned: PlannedBreak
        /// Stream time it starts at.
        public var start: MediaTime
        /// Its length in the stream (ads and slate).
        public var duration: MediaTime
        /// The break's length as signalled, from where the viewer met it (live: what its ad
        /// request asked, its `EXT-X-CUE-OUT:DURATION`); nil when no marker gave one (VOD).
        public var markerDuration: MediaTime?
        /// Content time at the cut (`[CONTENTPLAYHEAD]`).
        public var contentTime: MediaTime
        /// The ads that play in it, in order.
        public var ads: [Ad]

        /// An avail.
        public init(planned: PlannedBreak, start: MediaTime, duration: MediaTime, markerDuration: MediaTime?, contentTime: MediaTime, ads: [Ad]) {
            self.planned = planned; self.start = start; self.duration = duration; self.markerDuration = markerDuration
            self.contentTime = contentTime; self.ads = ads
        }
    }

    /// The response for `avails` (in stream order) of a stream whose time zero is `programDate`.
    ///
    /// Paging (MediaTailor's `GetTracking`): without `page`, every avail, and a `nextToken` for
    /// the latest start listed (null when nothing is). With `page`, only what starts after its
    /// token's time: the events after it, an ad or avail when it starts after it or holds such
    /// an event; the `nextToken` moves to the latest start listed, or is the token sent when
    /// nothing is newer.
    public static func response(_ avails: [Avail], programDate: Date, page: TrackingToken.Page? = nil) -> [String: Any] {
        let after = page?.token.after ?? -1
        var latest: Int64?
        func listed(_ ms: Int64) { latest = max(latest ?? ms, ms) }
        func date(_ ms: Int64) -> String { iso8601(programDate.addingTimeInterval(Double(ms) / 1000)) }
        var out: [[String: Any]] = []
        for avail in avails {
            var ads: [[String: Any]] = []
            for ad in avail.ads {
                let due = AdBeacons.owed(AdBeacons.due(ad.planned, in: avail.planned, duration: ad.length, contentTime: avail.contentTime, serverSide: false),
                                         played: ad.played, length: ad.length)
                var events: [[String: Any]] = []
                for d in due {
                    let at = millis(ad.start + d.offset)
                    guard at > after else { continue }
                    listed(at)
                    let length = millis(d.event == "impression" ? ad.played : .zero)
                    events.append(["beaconUrls": d.urls, "duration": iso(length), "durationInSeconds": seconds(length),
                                   "eventId": "\(avail.planned.id)-ad-\(ad.index + 1)-\(d.event)", "eventProgramDateTime": date(at),
                                   "eventType": d.event, "startTime": iso(at), "startTimeInSeconds": seconds(at)])
                }
                let start = millis(ad.start), played = millis(ad.played)
                guard start > after || !events.isEmpty else { continue }
                listed(start)
                let a = ad.planned
                ads.append(["adId": a.id, "adParameters": "", "adProgramDateTime": date(start), "adSystem": a.adSystem, "adTitle": a.title,
                            "adVerifications": [Any](), "companionAds": [Any](), "creativeId": a.creativeId, "creativeSequence": String(a.sequence),
                            "duration": iso(played), "durationInSeconds": seconds(played), "extensions": [Any](), "icons": [Any](),
                            "mediaFiles": ["mediaFilesList": [Any](), "mezzanine": ""] as [String: Any], "skipOffset": NSNull(),
                            "startTime": iso(start), "startTimeInSeconds": seconds(start), "trackingEvents": events, "vastAdId": a.id])
            }
            let start = millis(avail.start), length = millis(avail.duration)
            guard start > after || !ads.isEmpty else { continue }
            listed(start)
            out.append(["adBreakTrackingEvents": [Any](), "adMarkerDuration": avail.markerDuration.map { iso(millis($0)) as Any } ?? NSNull(),
                        "ads": ads, "adType": "avail", "availId": avail.planned.id, "availProgramDateTime": date(start),
                        "duration": iso(length), "durationInSeconds": seconds(length), "meta": NSNull(), "nonLinearAdsList": [Any](),
                        "startTime": iso(start), "startTimeInSeconds": seconds(start)])
        }
        let next: Any = latest.map { TrackingToken(after: $0).text } ?? page?.sent ?? NSNull()
        return ["avails": out, "dashAvailabilityStartTime": NSNull(), "hlsAnchorMediaSequenceNumber": NSNull(),
                "nextToken": next, "nonLinearAvails": [Any]()]
    }

    /// Milliseconds of `t` (to the nearest): the precision of every time the JSON carries.
    public static func millis(_ t: MediaTime) -> Int64 { max(0, t.rescaled(to: 1000, rounding: .nearest).value) }

    /// Seconds of `ms` milliseconds, for JSON.
    static func seconds(_ ms: Int64) -> Double { Double(ms) / 1000 }

    /// An ISO 8601 duration of `ms` milliseconds as MediaTailor (Java's `Duration`) writes it:
    /// `PT0S`, `PT6S`, `PT1.5S`, `PT1M46.08S`, `PT1H2M`.
    public static func iso(_ ms: Int64) -> String {
        let h = ms / 3_600_000, m = ms / 60_000 % 60, s = ms % 60_000
        var out = "PT"
        if h > 0 { out += "\(h)H" }
        if m > 0 { out += "\(m)M" }
        if s > 0 || (h == 0 && m == 0) {
            out += "\(s / 1000)"
            if s % 1000 != 0 {
                var f = String(s % 1000 + 1000).dropFirst()   // three digits
                while f.hasSuffix("0") { f = f.dropLast() }
                out += "." + f
            }
            out += "S"
        }
        return out
    }

    /// An ISO 8601 date with milliseconds (`2026-12-03T16:53:31.250Z`).
    static func iso8601(_ d: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: d)
    }
}
