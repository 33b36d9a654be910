import Foundation
import Timing

/// The JSON report of a stitch (`--report FILE`). Times are seconds as numbers.
public struct StitchReport: Codable, Sendable {
    /// An input or output file.
    public struct Media: Codable, Sendable {
        public var uri: String
        public var duration: Double
        public var width: Int
        public var height: Int
        public var frameRate: Double?
        public var sampleRate: Int?
        public var channels: Int?
        public var videoFrames: Int64?
        public var audioSamples: Int64?
    }
    /// One ad in a break.
    public struct Ad: Codable, Sendable {
        public var mediaFile: String
        public var streamTime: Double
        public var duration: Double
        public var mediaDuration: Double
        public var podPosition: Int
        public var totalAds: Int
        public var frames: Int64
        public var conformSeconds: Double
        /// Loudness in and out (LUFS), gain (dB) and true peak out (dBTP), when normalised.
        public var loudness: AdLoudness? = nil
        /// `hit`, `stored` or `encoded`: the transcode cache's part, with smart rendering and a cache.
        public var transcodeCache: TranscodeCacheUse? = nil
    }
    /// One ad break.
    public struct Break: Codable, Sendable {
        public var id: String
        public var contentTime: Double
        public var resumeContentTime: Double?
        public var streamTime: Double
        public var duration: Double
        public var ads: [Ad]
        /// `standard` (content paused), `doublebox` (the ad full size, content in a window) or
        /// `doublebox-reverse` (the ad in a window over the content).
        public var mode: String = "standard"
        /// A double box's content level under the ad, in dB; absent when muted or standard.
        public var contentGainDB: Double? = nil
    }
    /// One run of content in the output.
    public struct Segment: Codable, Sendable {
        public var contentStart: Double
        public var contentEnd: Double
        public var streamStart: Double
        public var streamEnd: Double
    }
    /// An error that left an ad out (or another non-fatal problem).
    public struct Error: Codable, Sendable {
        public var code: Int
        public var message: String
        public var mediaFile: String?
        public var breakId: String?
    }
    /// Stage timings in seconds.
    public struct Timings: Codable, Sendable {
        public var plan: Double
        public var decode: Double
        public var encode: Double
        public var mux: Double
        public var total: Double
    }

    public var content: Media
    public var output: Media
    public var breaks: [Break]
    public var contentSegments: [Segment]
    public var errors: [Error]
    public var warnings: [String]
    public var timings: Timings
    /// `--smart`: `used`, `reason` (why not), `copiedFrames`, `encodedContentFrames`.
    public var smartRendering: SmartRenderingSummary?

    /// The report of a finished stitch.
    public init(_ r: StitchResult) {
        content = Media(uri: r.content.uri, duration: r.content.duration.seconds, width: r.content.width,
                        height: r.content.height, frameRate: r.content.frameRate?.doubleValue,
                        sampleRate: r.content.sampleRate, channels: r.content.channels, videoFrames: nil, audioSamples: nil)
        output = Media(uri: r.output.uri, duration: r.output.duration.seconds, width: r.output.width,
                       height: r.output.height, frameRate: r.output.frameRate?.doubleValue,
                       sampleRate: r.output.sampleRate, channels: r.output.channels,
                       videoFrames: r.videoFrames, audioSamples: r.audioSamples)
        breaks = r.breaks.map { b in
            Break(id: b.id, contentTime: b.contentTime.seconds, resumeContentTime: b.resumeContentTime?.seconds,
                  streamTime: b.streamTime.seconds, duration: b.duration.seconds,
                  ads: b.ads.map { Ad(mediaFile: $0.mediaFile, streamTime: $0.streamTime.seconds, duration: $0.duration.seconds,
                                      mediaDuration: $0.mediaDuration.seconds, podPosition: $0.podPosition,
                                      totalAds: $0.totalAds, frames: $0.frames, conformSeconds: $0.conformSeconds,
                                      loudness: $0.loudness, transcodeCache: $0.transcodeCache) },
                  mode: b.doubleBox?.modeName ?? "standard", contentGainDB: b.doubleBox?.contentGainDB)
        }
        contentSegments = r.timeline.segments.map {
            Segment(contentStart: $0.contentStart.seconds, contentEnd: $0.contentEnd.seconds,
                    streamStart: $0.streamStart.seconds, streamEnd: $0.streamEnd.seconds)
        }
        errors = r.issues.map { Error(code: $0.code, message: $0.message, mediaFile: $0.mediaFile, breakId: $0.breakId) }
        warnings = r.warnings
        timings = Timings(r.timings)
        smartRendering = r.smartRendering
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
    public init(_ m: MediaSummary, videoFrames: Int64? = nil, audioSamples: Int64? = nil) {
        self.init(uri: m.uri, duration: m.duration.seconds, width: m.width, height: m.height,
                  frameRate: m.frameRate?.doubleValue, sampleRate: m.sampleRate, channels: m.channels,
                  videoFrames: videoFrames, audioSamples: audioSamples)
    }
}

extension StitchReport.Segment {
    /// The report entry for a content segment of the timeline.
    public init(_ s: TimelineMap.Segment) {
        self.init(contentStart: s.contentStart.seconds, contentEnd: s.contentEnd.seconds,
                  streamStart: s.streamStart.seconds, streamEnd: s.streamEnd.seconds)
    }
}

extension StitchReport.Timings {
    /// The report entry for stage timings.
    public init(_ t: StageTimings) {
        self.init(plan: t.plan, decode: t.decode, encode: t.encode, mux: t.mux, total: t.total)
    }
}
