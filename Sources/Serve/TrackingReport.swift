import Foundation
import Timing

/// A VOD session's client-side tracking JSON (`TrackingJSON`): one avail per break as its
/// timeline plays it, each ad with its measured duration, times on the session's stream. Pure.
public enum TrackingReport {
    /// The JSON object (JSONSerialization's types) for `session` laid out as `timeline`; with
    /// `page`, only what starts after its token (`TrackingJSON.response`).
    public static func json(session: ServeSession, timeline: SessionTimeline, page: TrackingToken.Page? = nil) -> [String: Any] {
        let avails = timeline.breaks.map { layout in
            let planned = session.breaks[layout.index]
            return TrackingJSON.Avail(planned: planned, start: layout.start, duration: layout.duration, markerDuration: nil,
                                      contentTime: layout.contentTime, ads: layout.ads.map {
                                          TrackingJSON.Ad(planned: planned.ads[$0.ad], index: $0.ad, start: $0.start, length: $0.duration, played: $0.duration)
                                      })
        }
        return TrackingJSON.response(avails, programDate: session.programDate, page: page)
    }

    /// Seconds to the millisecond, for JSON (as the tracking JSON writes them).
    static func round3(_ t: MediaTime) -> Double { TrackingJSON.seconds(TrackingJSON.millis(t)) }
}
