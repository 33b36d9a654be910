import Foundation
import Playback
import Timing

/// The JSON report of a stitch (`--report FILE`), one type for every schedule. Times are seconds
/// as numbers. Keys that do not apply are left out: an app's schedule of media (`Stitcher`) has
/// each break's `resumeContentTime` and its errors name the media file; an ad response
/// (`TagStitcher`) adds the cue points, every ad's identity and beacons, the events in the order
/// the `AdsManager` emitted them, and the companions shown.
public struct StitchReport: Codable, Sendable {
    /// An input or output file.
    package struct Media: Codable, Sendable {
        /// Path or URL.
        package var uri: String
        /// Duration in seconds (content: as decoded; output: video frames × frame duration).
        package var duration: Double
        /// Display width in pixels.
        package var width: Int
        /// Display height in pixels.
        package var height: Int
        /// Frames per second; absent when the frame rate is not known.
        package var frameRate: Double?
        /// Audio sample rate in Hz, 0 when there is no audio.
        package var sampleRate: Int?
        /// Audio channels, 0 when there is no audio.
        package var channels: Int?
        /// Video frames written (the output only; absent for the content).
        package var videoFrames: Int64?
        /// Audio samples written per channel (the output only; absent for the content).
        package var audioSamples: Int64?
        /// The content: where its timeline starts in its container and why, when that is not
        /// container time 0 (`ContentTimeline`); absent otherwise, and for the output.
        package var timelineOrigin: TimelineOrigin?
    }
    /// Where the content's timeline starts: cues and every content time count from there.
    package struct TimelineOrigin: Codable, Sendable {
        /// Container time (seconds) of content time 0.
        package var containerTime: Double
        /// Why: `first-presented` (an MP4/MOV whose first sample is presented more than 10 s
        /// after 0: a clock carried over, not a gap), `first-timestamp` (MPEG-TS and other
        /// containers whose clock starts anywhere) or `movie-start`.
        package var rule: String
    }
    /// A beacon: event, stream time (seconds) and the expanded URL.
    package struct Beacon: Codable, Sendable {
        /// VAST event name (`impression`, `start`, `firstQuartile`, …, `breakStart`, `breakEnd`).
        package var event: String
        /// Output stream time (seconds) at which it is due.
        package var streamTime: Double
        /// Content time (seconds) at that moment.
        package var contentTime: Double
        /// The URL with every macro expanded.
        package var url: String
        /// The ad it belongs to, if any.
        package var adId: String?
        /// The break it belongs to, if any.
        package var breakId: String?
    }
    /// One ad in a break.
    package struct Ad: Codable, Sendable {
        /// An ad response's ad: its VAST `Ad id`.
        package var adId: String? = nil
        /// An ad response's ad: VAST `<AdTitle>`.
        package var title: String? = nil
        /// An ad response's ad: VAST `<AdSystem>`.
        package var adSystem: String? = nil
        /// An ad response's ad: its creative's id.
        package var creativeId: String? = nil
        /// Seconds after which it could be skipped (skippable ads of an ad response).
        package var skipOffset: Double? = nil
        /// The media file played: path or URL (an ad response's: the chosen media file's URL, when one was chosen).
        package var mediaFile: String
        /// Stream time (seconds) of its first frame.
        package var streamTime: Double
        /// Output duration in seconds (video frames × frame duration; audio is exactly as long).
        package var duration: Double
        /// Real media duration in seconds, as decoded.
        package var mediaDuration: Double
        /// 1-based position in its pod.
        package var podPosition: Int
        /// Ads that played in its pod.
        package var totalAds: Int
        /// Output video frames.
        package var frames: Int64
        /// Seconds the frame loop spent opening, decoding and conforming this ad (time waiting for the encoder excluded).
        package var conformSeconds: Double
        /// An ad response's ad: whether it was skipped.
        package var skipped: Bool? = nil
        /// An ad response's ad: its beacons in time order.
        package var tracking: [Beacon]? = nil
        /// Loudness in and out (LUFS), gain (dB) and true peak out (dBTP), when normalised.
        package var loudness: AdLoudness? = nil
        /// `hit`, `stored` or `encoded`: the transcode cache's part, with smart rendering and a cache.
        package var transcodeCache: TranscodeCacheUse? = nil
        /// An ad response's ad: `normal`, `pictureInPicture`, `doubleBox`, `doubleBoxReverse`.
        package var presentation: String? = nil
    }
    /// One ad break.
    package struct Break: Codable, Sendable {
        /// The break's identifier.
        package var id: String
        /// An ad response's break: its VMAP `breakId`.
        package var breakId: String? = nil
        /// An ad response's break: its IMA cue point (0 pre-roll, seconds into the content for a mid-roll, -1 post-roll).
        package var cuePoint: Double? = nil
        /// Content time (seconds) at which content paused (0 pre-roll, the content's duration post-roll).
        package var contentTime: Double
        /// An app's break: the content time of the first content frame after it.
        package var resumeContentTime: Double? = nil
        /// Stream time (seconds) of its first ad frame.
        package var streamTime: Double
        /// Output duration in seconds.
        package var duration: Double
        /// The ads that played, in pod order.
        package var ads: [Ad]
        /// An ad response's break: its breakStart/breakEnd beacons.
        package var tracking: [Beacon]? = nil
        /// `standard` (content paused), `doublebox` (the ad full size, content in a window) or
        /// `doublebox-reverse` (the ad in a window over the content).
        package var mode: String? = nil
        /// A double box's content level under the ad, in dB; absent when muted or standard.
        package var contentGainDB: Double? = nil
    }
    /// One run of content in the output.
    package struct Segment: Codable, Sendable {
        /// Content time (seconds) of the segment's first frame.
        package var contentStart: Double
        /// Content time (seconds) where it stops: the next content frame's time, or the content's end.
        package var contentEnd: Double
        /// Stream time (seconds) of its first frame.
        package var streamStart: Double
        /// Stream time (seconds) where it ends.
        package var streamEnd: Double
    }
    /// An event of the `AdsManager`.
    package struct Event: Codable, Sendable {
        /// IMA's name of the event type, e.g. `FIRST_QUARTILE`.
        package var type: String
        /// Output stream time (seconds) at which it happened.
        package var streamTime: Double
        /// Content time (seconds) at that moment.
        package var contentTime: Double
        /// The ad it concerns, if any.
        package var adId: String?
    }
    /// An error that left an ad out (or another non-fatal problem).
    package struct Error: Codable, Sendable {
        /// VAST error code (an ad response's: VAST or IMA error number).
        package var code: Int
        /// An ad response's error: IMA's error type.
        package var type: String? = nil
        /// One-line explanation.
        package var message: String
        /// An app's error: the ad media file concerned, if any.
        package var mediaFile: String? = nil
        /// An app's error: the ad break concerned, if any.
        package var breakId: String? = nil
        /// An ad response's error: the ad concerned, if any.
        package var adId: String? = nil
    }
    /// Stage timings in seconds.
    package struct Timings: Codable, Sendable {
        /// Opening and measuring ad media, planning.
        package var plan: Double
        /// Decoding and conforming: the frame loop's busy time less the time it waited for the encoder.
        package var decode: Double
        /// Encoding: the encoding thread's time in the encoders (it overlaps `decode`).
        package var encode: Double
        /// Muxing (packets, trailer, moving the index to the front).
        package var mux: Double
        /// The whole stitch.
        package var total: Double
    }
    /// A companion shown in a slot beside the player.
    package struct Companion: Codable, Sendable {
        /// The slot's size, `WxH`.
        package var slot: String
        /// The linear ad it belongs to.
        package var adId: String
        /// The break it showed in.
        package var breakId: String
        /// VAST `<Companion id>`, if any.
        package var companionId: String?
        /// Its MIME type (`image/png`, …).
        package var creativeType: String
        /// Stream time (seconds) it appears: its ad's first frame.
        package var streamStart: Double
        /// Stream time (seconds) it goes: its ad's end.
        package var streamEnd: Double
        /// `<CompanionClickThrough>`, if any.
        package var clickThrough: String?
        /// Where `--companions DIR` wrote the image.
        package var file: String?
    }

    /// The content.
    package var content: Media
    /// The output, with its frame and sample counts.
    package var output: Media
    /// An ad response's IMA cue points.
    package var cuePoints: [Double]?
    /// Breaks as placed in the output, in stream order (an ad response's: as the manager played them).
    package var breaks: [Break]
    /// The runs of content in the output: the content ↔ stream time mapping.
    package var contentSegments: [Segment]
    /// An ad response's events, in order.
    package var events: [Event]?
    /// Ads left out and other non-fatal problems (an ad response's: a failed load and every ad error).
    package var errors: [Error]
    /// An ad response's beacons, in order.
    package var beacons: [Beacon]?
    /// Content problems that did not stop the stitch (e.g. a read error near the end).
    package var warnings: [String]
    /// Seconds spent in each stage.
    package var timings: Timings
    /// `--smart`: `used`, `reason` (why not), `copiedFrames`, `encodedContentFrames`, and
    /// `copiedAudioPackets` when the content's own AAC packets were copied, `cachedAudioPackets`
    /// when encoded audio was taken from the transcode cache.
    package var smartRendering: SmartRenderingSummary?
    /// An ad response's companions shown, by stream time (empty without companion slots).
    package var companions: [Companion]?

    /// The report of a finished stitch.
    public init(_ r: StitchResult) {
        content = Media(r.content)
        output = Media(r.output, videoFrames: r.videoFrames, audioSamples: r.audioSamples)
        contentSegments = r.timeline.segments.map(Segment.init)
        warnings = r.warnings
        timings = Timings(r.timings)
        smartRendering = r.smartRendering
        switch r.schedule {
        case .app:
            breaks = r.breaks.map(Break.init)
            errors = r.issues.map { Error(code: $0.code, message: $0.message, mediaFile: $0.mediaFile, breakId: $0.breakId) }
        case .adResponse:
            cuePoints = r.cuePoints
            breaks = r.playedBreaks.map(Break.init)
            events = r.events.map { Event(type: $0.typeString, streamTime: $0.streamTime.seconds, contentTime: $0.contentTime.seconds, adId: $0.ad?.adId) }
            errors = r.errors.map { Error(code: $0.code, type: $0.type.rawValue, message: $0.message, adId: $0.adId) }
            beacons = r.beacons.map(Beacon.init)
            companions = r.companions.map {
                Companion(slot: $0.slot, adId: $0.adId, breakId: $0.breakId, companionId: $0.companionId, creativeType: $0.creativeType,
                          streamStart: $0.streamStart.seconds, streamEnd: $0.streamEnd.seconds, clickThrough: $0.clickThrough, file: nil)
            }
        }
    }

    /// Pretty-printed JSON with sorted keys.
    public func json() throws -> Data {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try e.encode(self)
    }
}

extension StitchReport.Media {
    /// The report entry for a media summary (frame and sample counts for an output).
    init(_ m: MediaSummary, videoFrames: Int64? = nil, audioSamples: Int64? = nil) {
        self.init(uri: m.uri, duration: m.duration.seconds, width: m.width, height: m.height,
                  frameRate: m.frameRate?.doubleValue, sampleRate: m.sampleRate, channels: m.channels,
                  videoFrames: videoFrames, audioSamples: audioSamples,
                  timelineOrigin: m.timelineOrigin.map { StitchReport.TimelineOrigin(containerTime: $0.containerTime.seconds, rule: $0.rule.rawValue) })
    }
}

extension StitchReport.Ad {
    /// The report entry for an ad as placed.
    init(_ p: PlacedAd) {
        self.init(mediaFile: p.mediaFile, streamTime: p.streamTime.seconds, duration: p.duration.seconds,
                  mediaDuration: p.mediaDuration.seconds, podPosition: p.podPosition, totalAds: p.totalAds, frames: p.frames,
                  conformSeconds: p.conformSeconds, loudness: p.loudness, transcodeCache: p.transcodeCache)
    }

    /// The report entry for an ad of an ad response: its placement with its IMA identity, skip,
    /// pod position and beacons.
    init(_ a: PlayedAd) {
        self.init(a.placement)
        adId = a.ad.adId; title = a.ad.adTitle; adSystem = a.ad.adSystem; creativeId = a.ad.creativeID
        skipOffset = a.ad.isSkippable ? a.ad.skipTimeOffset : nil
        mediaFile = a.ad.mediaURL ?? a.placement.mediaFile
        podPosition = a.ad.adPodInfo.adPosition
        totalAds = a.ad.adPodInfo.totalAds
        skipped = a.skipped
        tracking = a.tracking.map(StitchReport.Beacon.init)
        presentation = a.presentation.rawValue
    }
}

extension StitchReport.Break {
    /// The report entry for a break as placed: an app's media break (with the content time it
    /// resumed at), and the placement part of an ad response's break.
    init(_ b: PlacedBreak) {
        self.init(id: b.id, contentTime: b.contentTime.seconds, resumeContentTime: b.resumeContentTime?.seconds,
                  streamTime: b.streamTime.seconds, duration: b.duration.seconds, ads: b.ads.map(StitchReport.Ad.init),
                  mode: b.doubleBox?.modeName ?? "standard", contentGainDB: b.doubleBox?.contentGainDB)
    }

    /// The report entry for an ad response's break: its placement (without the resume time),
    /// VMAP break id, IMA cue point, each ad's IMA record and the break's beacons.
    init(_ b: PlayedBreak) {
        self.init(b.placement)
        breakId = b.id
        cuePoint = b.cuePoint
        ads = b.ads.map(StitchReport.Ad.init)
        tracking = b.tracking.map(StitchReport.Beacon.init)
    }
}

extension StitchReport.Beacon {
    /// The report entry for a beacon.
    init(_ b: TrackedBeacon) {
        self.init(event: b.event, streamTime: b.streamTime.seconds, contentTime: b.contentTime.seconds, url: b.url,
                  adId: b.adId, breakId: b.breakId)
    }
}

extension StitchReport.Segment {
    /// The report entry for a content segment of the timeline.
    init(_ s: TimelineMap.Segment) {
        self.init(contentStart: s.contentStart.seconds, contentEnd: s.contentEnd.seconds,
                  streamStart: s.streamStart.seconds, streamEnd: s.streamEnd.seconds)
    }
}

extension StitchReport.Timings {
    /// The report entry for stage timings.
    package init(_ t: StageTimings) {
        self.init(plan: t.plan, decode: t.decode, encode: t.encode, mux: t.mux, total: t.total)
    }
}
