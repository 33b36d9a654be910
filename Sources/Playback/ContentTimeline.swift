import Media
import Timing

/// The content's own presentation timeline, the one a player's `currentTime` reads and cues are
/// given on: content time `t` is container time `start + t`.
///
/// For MP4/MOV `start` is 0: a leading empty edit (common in phone and camera files) or a first
/// frame with a composition offset puts the first video frame after 0, and content time counts
/// from 0 as the movie does (ffprobe's `pts_time` with the edit list applied). For other
/// containers (MPEG-TS and the like, whose clocks start anywhere) `start` is the earliest
/// timestamp of any stream, as players count from there. A first video frame before `start` (a
/// negative start) moves `start` back to it, so no frame has a negative time.
///
/// Content before the first video frame (audio, or nothing) plays with the first frame held, as a
/// player shows it: see `MediaSource.gapStart`.
struct ContentTimeline: Equatable {
    /// Container time of content time 0.
    let start: MediaTime

    /// The timeline of `demuxer`'s content.
    init(_ demuxer: Demuxer) {
        start = demuxer.hasZeroBasedTimeline ? .zero : (demuxer.startTime ?? .zero)
    }

    /// Content time where `stream` ends: its start on this timeline plus its duration (nil
    /// without a duration).
    func end(of stream: StreamInfo) -> MediaTime? {
        stream.duration.map { $0 + max(.zero, (stream.startTime ?? start) - start) }
    }
}
