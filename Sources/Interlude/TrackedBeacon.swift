import Playback
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
    public init(event: String, streamTime: MediaTime, contentTime: MediaTime, url: String, adId: String? = nil, breakId: String? = nil) {
        self.event = event; self.streamTime = streamTime; self.contentTime = contentTime
        self.url = url; self.adId = adId; self.breakId = breakId
    }
}

/// An ad as it played in the output: its IMA facts, its placement and its beacons.
public struct PlayedAd: Sendable, Equatable {
    /// The ad.
    public var ad: Ad
    /// Where it landed in the output.
    public var placement: PlacedAd
    /// Whether it was skipped.
    public var skipped: Bool
    /// Its beacons in time order.
    public var tracking: [TrackedBeacon]
    /// How it was presented (full size, in the picture-in-picture window, …) at its first frame.
    public var presentation: AdPresentation = .normal
}

/// An ad break as it played in the output.
public struct PlayedBreak: Sendable, Equatable {
    /// Its id.
    public var id: String
    /// IMA cue point: 0 pre-roll, seconds, -1 post-roll.
    public var cuePoint: Double
    /// Content time at which content paused.
    public var contentTime: MediaTime
    /// Stream time of its first ad frame.
    public var streamTime: MediaTime
    /// Its duration in the output.
    public var duration: MediaTime
    /// The ads that played.
    public var ads: [PlayedAd]
    /// Break-level beacons (VMAP breakStart / breakEnd / error).
    public var tracking: [TrackedBeacon]
    /// A double box (content went on beside its ads): its style; nil for a break that paused content.
    public var doubleBox: DoubleBoxStyle? = nil
}

extension PlayedBreak {
    /// The break as placed in the output (`StitchResult.breaks`): its ads' placements, where it
    /// stood (0: pre-roll, a negative cue point: post-roll) and the content time it resumed at.
    public func placement(in timeline: TimelineMap) -> PlacedBreak {
        let position: CuePosition = cuePoint < 0 ? .end : (cuePoint == 0 ? .start : .time(contentTime))
        let end = streamTime + duration
        let resume = timeline.segments.first { $0.streamStart >= end }?.contentStart
        return PlacedBreak(id: id, position: position, contentTime: contentTime, resumeContentTime: resume, streamTime: streamTime,
                           duration: duration, ads: ads.map(\.placement), doubleBox: doubleBox)
    }
}
