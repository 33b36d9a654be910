import Timing

/// A tracking request a player must make, recorded (never fired) with when it is due.
public struct TrackedBeacon: Sendable, Equatable {
    /// VAST event name: `impression`, `start`, `firstQuartile`, `midpoint`, `thirdQuartile`,
    /// `complete`, `progress`, `skip`, `pause`, `resume`, `clickTracking`, `error`, `breakStart`, `breakEnd`, …
    public var event: String
    /// Output stream time at which it is due.
    public var streamTime: MediaTime
    /// Content time at that moment.
    public var contentTime: MediaTime
    /// The URL with every macro expanded.
    public var url: String
    /// The ad it belongs to, if any.
    public var adId: String?
    /// The break it belongs to, if any.
    public var breakId: String?

    /// A beacon (for services that fire through `BeaconSender` themselves, as `interlude serve`).
    package init(event: String, streamTime: MediaTime, contentTime: MediaTime, url: String, adId: String? = nil, breakId: String? = nil) {
        self.event = event; self.streamTime = streamTime; self.contentTime = contentTime
        self.url = url; self.adId = adId; self.breakId = breakId
    }
}
