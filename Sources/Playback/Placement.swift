import Timing

/// Facts about an input or the output of a stitch.
package struct MediaSummary: Sendable, Equatable {
    /// Path or URL.
    package var uri: String
    /// Duration (content: as decoded; output: video frames × frame duration).
    package var duration: MediaTime
    /// Display width.
    package var width: Int
    /// Display height.
    package var height: Int
    /// Frame rate.
    package var frameRate: Rational?
    /// Audio sample rate, 0 when there is no audio.
    package var sampleRate: Int
    /// Audio channels, 0 when there is no audio.
    package var channels: Int
    /// Content: where its timeline starts in its container, when that is not container time 0
    /// (nil for an output, and for content whose time 0 is its container's).
    package var timelineOrigin: ContentOrigin? = nil
}

/// One ad as it was placed in the output.
package struct PlacedAd: Sendable, Equatable {
    /// The media file.
    package var mediaFile: String
    /// Stream time of its first frame.
    package var streamTime: MediaTime
    /// Output duration (video frames × frame duration; audio is exactly as long).
    package var duration: MediaTime
    /// Real media duration, as decoded.
    package var mediaDuration: MediaTime
    /// 1-based position in its pod.
    package var podPosition: Int
    /// Ads that played in its pod.
    package var totalAds: Int
    /// Output frames.
    package var frames: Int64
    /// Seconds the frame loop spent opening, decoding and conforming this ad (time waiting for the
    /// encoder excluded).
    package var conformSeconds: Double
    /// What loudness normalisation did (nil when off or the ad has no audio).
    package var loudness: AdLoudness?
    /// Smart rendering: whether its video came from the transcode cache (nil without one).
    package var transcodeCache: TranscodeCacheUse?

    /// Makes a placement.
    package init(mediaFile: String, streamTime: MediaTime, duration: MediaTime, mediaDuration: MediaTime,
                podPosition: Int, totalAds: Int, frames: Int64, conformSeconds: Double = 0) {
        self.mediaFile = mediaFile; self.streamTime = streamTime; self.duration = duration
        self.mediaDuration = mediaDuration; self.podPosition = podPosition; self.totalAds = totalAds; self.frames = frames
        self.conformSeconds = conformSeconds
    }
}

/// One ad break as it was placed in the output.
package struct PlacedBreak: Sendable, Equatable {
    /// Its identifier.
    package var id: String
    /// Where it was asked for.
    package var position: BreakCue
    /// The content time at which content paused (0 pre-roll, content duration post-roll).
    package var contentTime: MediaTime
    /// The content time of the first content frame after it, if any.
    package var resumeContentTime: MediaTime?
    /// Stream time of its first ad frame.
    package var streamTime: MediaTime
    /// Its output duration.
    package var duration: MediaTime
    /// The ads that played.
    package var ads: [PlacedAd]
    /// A double-box break (content went on in a window, or the ad did): its style; nil for a
    /// break that paused content.
    package var doubleBox: DoubleBoxStyle? = nil

    /// Makes a placement.
    package init(id: String, position: BreakCue, contentTime: MediaTime, resumeContentTime: MediaTime?, streamTime: MediaTime,
                duration: MediaTime, ads: [PlacedAd], doubleBox: DoubleBoxStyle? = nil) {
        self.id = id; self.position = position; self.contentTime = contentTime; self.resumeContentTime = resumeContentTime
        self.streamTime = streamTime; self.duration = duration; self.ads = ads; self.doubleBox = doubleBox
    }
}

/// Seconds spent in each stage of a stitch, measured by the engine itself. Encoding runs on its
/// own thread, overlapping decoding: `decode` is the frame loop's busy time (wall time less the
/// time it waited for the encoder), `encode` the encoding thread's busy time.
package struct StageTimings: Sendable, Equatable {
    /// Opening and measuring ad media, planning.
    public var plan: Double = 0
    /// Decoding and conforming (the frame loop less encoding).
    public var decode: Double = 0
    /// Encoding (the encoding thread's time in the encoders).
    public var encode: Double = 0
    /// Muxing (packets, trailer, moving the index to the front).
    public var mux: Double = 0
    /// The whole stitch.
    public var total: Double = 0

    /// Timings in seconds.
    public init(plan: Double = 0, decode: Double = 0, encode: Double = 0, mux: Double = 0, total: Double = 0) {
        self.plan = plan; self.decode = decode; self.encode = encode; self.mux = mux; self.total = total
    }
}

/// Where content time 0 lies in the content's container, and why (`ContentTimeline`): cues, the
/// report's content times and the output count from there.
package struct ContentOrigin: Sendable, Equatable {
    /// Why content time 0 is where it is.
    package enum Rule: String, Sendable {
        /// MP4/MOV: the movie's 0 (edit lists applied; a leading gap kept, the first frame held).
        case movieStart = "movie-start"
        /// MP4/MOV with nothing presented for longer than `ContentTimeline.longestLeadingGap`:
        /// the first presented sample of any track (a clock carried over, not a gap).
        case firstPresented = "first-presented"
        /// A container whose clock starts anywhere (MPEG-TS): its earliest timestamp.
        case firstTimestamp = "first-timestamp"
    }

    /// Container time of content time 0.
    package var containerTime: MediaTime
    /// Why it is there.
    package var rule: Rule

    /// An origin.
    package init(containerTime: MediaTime, rule: Rule) {
        self.containerTime = containerTime; self.rule = rule
    }
}
