import Ads
import Foundation
import Timing

/// Which beacons an ad holds and where: impression and start at its first frame, quartiles at
/// a quarter, half and three quarters of its measured duration, complete at its end (its last
/// segment), each URL with its macros expanded. Pure.
public enum AdBeacons {
    /// One beacon due at an offset into the ad.
    public struct Due: Sendable, Hashable {
        /// VAST event name.
        public var event: String
        /// Offset into the ad.
        public var offset: MediaTime
        /// Expanded URLs.
        public var urls: [String]
    }

    /// The events a linear ad reports, in order.
    public static let events = ["impression", "start", "firstQuartile", "midpoint", "thirdQuartile", "complete"]

    /// Every beacon of `ad` (of measured `duration`) with its offset; events without URLs left out.
    public static func due(_ ad: PlannedAd, in b: PlannedBreak, duration: MediaTime, contentTime: MediaTime, serverSide: Bool) -> [Due] {
        events.compactMap { event in
            let templates = event == "impression" ? ad.impressions : (ad.tracking[event] ?? [])
            guard !templates.isEmpty else { return nil }
            let offset = self.offset(event, duration)
            let context = MacroContext(contentPlayhead: contentTime, adPlayhead: offset, assetURI: ad.mediaURL, breakCue: b.position,
                                       adCount: b.ads.count, podSequence: ad.sequence, serverSide: serverSide ? .serverOnBehalfOfClient : .client)
            return Due(event: event, offset: offset, urls: templates.map { MacroExpander.expand($0, context: context) })
        }
    }

    /// The offset of `event` into an ad lasting `d`.
    public static func offset(_ event: String, _ d: MediaTime) -> MediaTime {
        switch event {
        case "firstQuartile": MediaTime(value: d.value, timescale: d.timescale * 4)
        case "midpoint": MediaTime(value: d.value, timescale: d.timescale * 2)
        case "thirdQuartile": MediaTime(value: d.value * 3, timescale: d.timescale * 4)
        case "complete": d
        default: .zero
        }
    }

    /// Whether a beacon at `offset` is held by the segment `[start, start + length)` of an ad
    /// lasting `d` (`complete` belongs to the ad's last segment).
    public static func holds(offset: MediaTime, event: String, segmentStart: MediaTime, length: MediaTime, isLast: Bool) -> Bool {
        if event == "complete" { return isLast }
        return offset >= segmentStart && offset < segmentStart + length
    }
}
