import Ads
import Playback
import Timing

/// An ad as it played in the output: its IMA facts, its placement and its beacons.
public struct PlayedAd: Sendable, Equatable {
    /// The ad.
    public var ad: Ad
    /// Where it landed in the output.
    package var placement: PlacedAd
    /// Whether it was skipped.
    public var skipped: Bool
    /// Its beacons in time order.
    package var tracking: [TrackedBeacon]
    /// How it was presented (full size, in the picture-in-picture window, …) at its first frame.
    public var presentation: AdPresentation = .normal
}

/// An ad break as it played in the output: its placement (the one placed-break type, as media
/// breaks report theirs) with the IMA record of each ad and the break's own beacons.
public struct PlayedBreak: Sendable, Equatable {
    /// Where it landed: id, cue, content and stream times, duration, double box and its ads'
    /// placements (`resumeContentTime` is filled in by `placement(in:)`).
    package private(set) var placement: PlacedBreak
    /// The ads that played, in pod order (their placements are `placement.ads`).
    public private(set) var ads: [PlayedAd]
    /// Break-level beacons (VMAP breakStart / breakEnd / error).
    package var tracking: [TrackedBeacon]

    /// A break that played at `cue`.
    init(id: String, cue: BreakCue, contentTime: MediaTime, streamTime: MediaTime, duration: MediaTime,
                ads: [PlayedAd], tracking: [TrackedBeacon], doubleBox: DoubleBoxStyle? = nil) {
        placement = PlacedBreak(id: id, position: cue, contentTime: contentTime, resumeContentTime: nil, streamTime: streamTime,
                                duration: duration, ads: ads.map(\.placement), doubleBox: doubleBox)
        self.ads = ads
        self.tracking = tracking
    }

    /// A break that played at IMA cue point `cuePoint` (0 pre-roll, -1 post-roll, else a mid-roll
    /// placed at `contentTime`, where content paused).
    init(id: String, cuePoint: Double, contentTime: MediaTime, streamTime: MediaTime, duration: MediaTime,
                ads: [PlayedAd], tracking: [TrackedBeacon], doubleBox: DoubleBoxStyle? = nil) {
        let cue: BreakCue = cuePoint < 0 ? .postroll : (cuePoint == 0 ? .preroll : .midroll(contentTime))
        self.init(id: id, cue: cue, contentTime: contentTime, streamTime: streamTime, duration: duration, ads: ads,
                  tracking: tracking, doubleBox: doubleBox)
    }

    /// Its id.
    package var id: String { placement.id }
    /// Where it sat.
    package var cue: BreakCue { placement.position }
    /// IMA cue point: 0 pre-roll, seconds, -1 post-roll.
    package var cuePoint: Double { placement.position.seconds }
    /// Content time at which content paused.
    package var contentTime: MediaTime { placement.contentTime }
    /// Stream time of its first ad frame.
    package var streamTime: MediaTime { placement.streamTime }
    /// Its duration in the output.
    package var duration: MediaTime { placement.duration }
    /// A double box (content went on beside its ads): its style; nil for a break that paused content.
    package var doubleBox: DoubleBoxStyle? { placement.doubleBox }
}

extension PlayedBreak {
    /// The break as placed in the output (`StitchResult.breaks`), with the content time it
    /// resumed at: the first content segment of `timeline` after it.
    package func placement(in timeline: TimelineMap) -> PlacedBreak {
        var placed = placement
        let end = streamTime + duration
        placed.resumeContentTime = timeline.segments.first { $0.streamStart >= end }?.contentStart
        return placed
    }
}
