import Foundation
import Timing

/// What a session's playlists say about one ad break, VOD or live: its identity, where it sits
/// on the viewer's clock, its length, the PTS its splice points carry on the wire, its ads.
struct BreakMark: Sendable, Hashable {
    /// One ad of the break as the playlists mark it (`com.interlude.ad` date range).
    struct Ad: Sendable, Hashable {
        /// The ad's index in the break's decided ads (its date range is `<break id>-ad-<index + 1>`).
        var index: Int
        /// The VAST ad id.
        var id: String
        /// Its first frame on the viewer's clock.
        var start: MediaTime
        /// Its length as played.
        var duration: MediaTime
    }

    /// The break's id (the date ranges' `ID`).
    var id: String
    /// The SCTE-35 `splice_event_id`.
    var eventID: UInt32
    /// Its first frame on the viewer's clock (the clock program dates count from).
    var start: MediaTime
    /// Its length: as played, or as planned while its end is not known (live).
    var duration: MediaTime
    /// The PTS of the splice out point in the segments the viewer receives (SCTE-35 `SCTE35-OUT`).
    var outPTS: MediaTime
    /// The PTS of the splice in point, where content resumes (SCTE-35 `SCTE35-IN`).
    var inPTS: MediaTime
    /// Its ads in order.
    var ads: [Ad]
}
