import Foundation
import Manifest
import Playback
import Timing

/// The one writer of a session's HLS media playlists, VOD and live: each item of the session's
/// timeline becomes an `HLS.Segment` with its URL, its program date and the ad markers that
/// apply to it, from the break marks. VOD playlists are written whole (`vod`); a live viewer
/// appends each item as it is published (`segment`) to its `HLS.LivePlaylist`.
///
/// Around each break: an SCTE-35 `EXT-X-DATERANGE` with `SCTE35-OUT` (the splice_insert at the
/// out point's wire PTS, `PLANNED-DURATION`) and `EXT-X-CUE-OUT:DURATION=` on its first item;
/// `EXT-X-CUE-OUT-CONT` on its later items; a `com.interlude.ad` date range (`X-AD-ID`) on each
/// ad's first item; `EXT-X-CUE-IN` and the date range with `SCTE35-IN` (same `ID` and
/// `START-DATE`, the break's `DURATION`) on the first item after it.
enum SessionPlaylist {
    /// Where an item sits for the writer.
    struct Item: Sendable, Codable {
        /// The URL.
        var uri: String
        /// Its exact length.
        var duration: MediaTime
        /// Its start on the viewer's clock.
        var start: MediaTime
        /// `EXT-X-DISCONTINUITY` before it.
        var discontinuity: Bool
        /// The key in the marks of the break it belongs to; nil for content.
        var mark: Int?
        /// The ad (index into the break's ads) whose first item it is.
        var startsAd: Int?
        /// Its key when it is encrypted (an AES-128 origin's segment); nil: clear.
        var key: HLS.Key? = nil
    }

    /// `item`'s segment; `previous` is the item before it in the playlist (nil for the first),
    /// `programDate` the date of the viewer's clock at zero; `everyDate`: a program date on
    /// every segment (live: the first listed segment changes as the playlist slides, and a
    /// published segment's tags may not), else on the first and at each discontinuity.
    static func segment(_ item: Item, previous: Item?, marks: [Int: BreakMark], programDate: Date, everyDate: Bool) -> HLS.Segment {
        func date(_ t: MediaTime) -> Date { programDate.addingTimeInterval(t.seconds) }
        var s = HLS.Segment(uri: item.uri, duration: item.duration, discontinuity: item.discontinuity && previous != nil,
                            programDateTime: everyDate || previous == nil || item.discontinuity ? date(item.start) : nil)
        s.key = keyTag(item.key, after: previous?.key)
        if let p = previous?.mark, p != item.mark, let b = marks[p] { s.markers += cueIn(b, date: date) }
        if let m = item.mark, let b = marks[m] {
            if previous?.mark != m {
                let scte = SCTE35.spliceInsert(eventID: b.eventID, outOfNetwork: true, at: b.outPTS, breakDuration: b.duration)
                s.markers.append(.dateRange(HLS.DateRange(id: b.id, startDate: date(b.start), plannedDuration: b.duration, scte35Out: scte)))
                s.markers.append(.cueOut(duration: b.duration))
            } else {
                s.markers.append(.cueOutCont(elapsed: item.start - b.start, duration: b.duration))
            }
            if let a = item.startsAd, let ad = b.ads.first(where: { $0.index == a }) {
                s.markers.append(.dateRange(HLS.DateRange(id: "\(b.id)-ad-\(a + 1)", rangeClass: "com.interlude.ad", startDate: date(ad.start),
                                                          duration: ad.duration, clientAttributes: [.init("X-AD-ID", .string(ad.id))])))
            }
        }
        return s
    }

    /// The `EXT-X-KEY` a segment with key `key` (nil: clear) needs after one with `previous`:
    /// none while the key in force stays, its own key (IV explicit) where it changes, and
    /// `METHOD=NONE` where clear segments follow encrypted ones.
    static func keyTag(_ key: HLS.Key?, after previous: HLS.Key?) -> HLS.Key? {
        key == previous ? nil : key ?? HLS.Key.none
    }

    /// The markers that close break `b`: `EXT-X-CUE-IN` and its `SCTE35-IN` date range.
    static func cueIn(_ b: BreakMark, date: (MediaTime) -> Date) -> [HLS.Marker] {
        let scte = SCTE35.spliceInsert(eventID: b.eventID, outOfNetwork: false, at: b.inPTS, breakDuration: nil)
        return [.cueIn, .dateRange(HLS.DateRange(id: b.id, startDate: date(b.start), duration: b.duration, scte35In: scte))]
    }

    /// A VOD media playlist of `items`: a post-roll's closing markers follow its last segment.
    static func vod(_ items: [Item], marks: [Int: BreakMark], programDate: Date) -> HLS.MediaPlaylist {
        var segments: [HLS.Segment] = []
        var previous: Item?
        for item in items {
            segments.append(segment(item, previous: previous, marks: marks, programDate: programDate, everyDate: false))
            previous = item
        }
        let trailing = previous?.mark.flatMap { marks[$0] }.map { b in cueIn(b) { programDate.addingTimeInterval($0.seconds) } } ?? []
        return .vod(segments, trailingMarkers: trailing)
    }
}
