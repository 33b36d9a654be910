import Media
import Timing

/// The content's own presentation timeline, the one a player's `currentTime` reads and cues are
/// given on: content time `t` is container time `start + t`. The one place the content's origin
/// is decided: the stitch (re-encoded and smart), the player, the report and the service's
/// packaging all take it from here.
///
/// The rule (`init(zeroBased:earliest:)`), as players decide it:
/// - MP4/MOV (`.movieStart`): `start` is 0, the movie's 0. Edit lists place each track on that
///   timeline: a leading empty edit (common in phone and camera files), every track starting late,
///   or a first frame with a composition offset puts the first presented sample after 0, and
///   content time counts from 0 as the movie does (ffprobe's `pts_time` with the edit list
///   applied; an edit's positive media time trims the media before it, so the first frame it
///   shows is at 0). Content before the first video frame plays with the first frame held, as a
///   player shows it (`MediaSource.gapStart`).
/// - MP4/MOV whose first presented sample of any track is more than `longestLeadingGap` after 0
///   (`.firstPresented`): `start` is that sample. Nothing plays before it, and a wait that long is
///   not a leader anyone authored but a clock carried over: the mov muxer writes any first
///   timestamp after 0 as an empty edit, so content remuxed from MPEG-TS with its timestamps
///   kept (`-copyts`, `-output_ts_offset`) starts hours "late". Held as a gap, one second of
///   content whose clock read 100,000 s became a 27.8-hour output.
/// - Other containers (`.firstTimestamp`: MPEG-TS and the like, whose clocks start anywhere):
///   `start` is the earliest timestamp of any stream, as players count from there. A 33-bit PTS
///   that wraps inside the file is one continuous timeline: libavformat unwraps it
///   (`correct_ts_overflow`, on by default) against the first timestamp, so times run on past
///   2^33 ticks or, when the file starts within 60 s of the wrap, start below 0.
///
/// A first video frame before `start` (a negative start) moves the origin back to it, so no frame
/// has a negative time (`origin(firstFrame:)`).
package struct ContentTimeline: Equatable, Sendable {
    /// Container time of content time 0.
    public let start: MediaTime
    /// Why `start` is there.
    public let rule: ContentOrigin.Rule

    /// The longest wait before the first presented sample of an MP4/MOV that is kept as a leading
    /// gap (held first frame, silence). Phone and camera files lead by under a second (the
    /// androidx sample by 1 s), an MPEG-TS muxer's default offset is 1.4 s; a clock carried over
    /// from a broadcast stream lies anywhere in 26.5 hours.
    public static let longestLeadingGap = MediaTime(seconds: 10)

    /// The timeline of `demuxer`'s content.
    public init(_ demuxer: Demuxer) {
        self.init(zeroBased: demuxer.hasZeroBasedTimeline, earliest: demuxer.startTime)
    }

    /// The timeline of a container whose presentation timeline starts at 0 by definition
    /// (`zeroBased`: ISO BMFF) or not, whose earliest presented sample of any stream is at
    /// `earliest` (FFmpeg's `start_time`, edit lists applied; nil when unknown).
    public init(zeroBased: Bool, earliest: MediaTime?) {
        switch (zeroBased, earliest) {
        case (true, let e?) where e > Self.longestLeadingGap: (start, rule) = (e, .firstPresented)
        case (true, _): (start, rule) = (.zero, .movieStart)
        case (false, let e): (start, rule) = (e ?? .zero, .firstTimestamp)
        }
    }

    /// The origin once the first video frame is known to be at container time `firstFrame`:
    /// `start`, or that frame when it is earlier (`VideoTrack` and `SmartContent` alike).
    public func origin(firstFrame: MediaTime) -> MediaTime { min(start, firstFrame) }

    /// Content time where `stream` ends: its start on this timeline plus its duration (nil
    /// without a duration).
    func end(of stream: StreamInfo) -> MediaTime? {
        stream.duration.map { $0 + max(.zero, (stream.startTime ?? start) - start) }
    }

    /// The origin as the report gives it: nil when content time 0 is container time 0.
    public var reported: ContentOrigin? {
        start == .zero ? nil : ContentOrigin(containerTime: start, rule: rule)
    }
}
