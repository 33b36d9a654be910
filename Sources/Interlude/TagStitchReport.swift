import Foundation
import Playback
import Timing

/// The JSON report of a tag-driven stitch: the engine report's facts plus every ad's identity and
/// beacons, the cue points, and the events in the order the `AdsManager` emitted them.
public struct TagStitchReport: Codable, Sendable {
    /// A beacon: event, stream time (seconds) and the expanded URL.
    public struct Beacon: Codable, Sendable {
        public var event: String
        public var streamTime: Double
        public var contentTime: Double
        public var url: String
        public var adId: String?
        public var breakId: String?
    }
    /// One ad.
    public struct Ad: Codable, Sendable {
        public var adId: String
        public var title: String
        public var adSystem: String
        public var creativeId: String
        public var skipOffset: Double?
        public var mediaFile: String
        public var streamTime: Double
        public var duration: Double
        public var mediaDuration: Double
        public var podPosition: Int
        public var totalAds: Int
        public var frames: Int64
        public var conformSeconds: Double
        public var skipped: Bool
        public var tracking: [Beacon]
        /// Loudness normalisation of the ad, when on.
        public var loudness: AdLoudness? = nil
        /// The transcode cache's part (`hit`, `stored`, `encoded`), with smart rendering.
        public var transcodeCache: TranscodeCacheUse? = nil
        /// How it was presented: `normal`, `pictureInPicture`, `doubleBox`, `doubleBoxReverse`.
        public var presentation: String = "normal"
    }
    /// One break.
    public struct Break: Codable, Sendable {
        public var id: String
        public var breakId: String
        public var cuePoint: Double
        public var contentTime: Double
        public var streamTime: Double
        public var duration: Double
        public var ads: [Ad]
        public var tracking: [Beacon]
    }
    /// One event.
    public struct Event: Codable, Sendable {
        public var type: String
        public var streamTime: Double
        public var contentTime: Double
        public var adId: String?
    }
    /// One error.
    public struct Error: Codable, Sendable {
        public var code: Int
        public var type: String
        public var message: String
        public var adId: String?
    }

    public var content: StitchReport.Media
    public var output: StitchReport.Media
    public var cuePoints: [Double]
    public var breaks: [Break]
    public var contentSegments: [StitchReport.Segment]
    public var events: [Event]
    public var errors: [Error]
    public var beacons: [Beacon]
    public var warnings: [String]
    public var timings: StitchReport.Timings
    /// `--smart`: `used`, `reason`, `copiedFrames`, `encodedContentFrames`.
    public var smartRendering: SmartRenderingSummary?
    /// A companion shown in a slot beside the player.
    public struct Companion: Codable, Sendable {
        public var slot: String
        public var adId: String
        public var breakId: String
        public var companionId: String?
        public var creativeType: String
        public var streamStart: Double
        public var streamEnd: Double
        public var clickThrough: String?
        /// Where `--companions DIR` wrote the image.
        public var file: String?
    }
    /// Companions shown, by stream time (empty without companion slots).
    public var companions: [Companion] = []

    /// The report of a finished tag-driven stitch.
    public init(_ r: TagStitchResult) {
        func beacon(_ b: TrackedBeacon) -> Beacon {
            Beacon(event: b.event, streamTime: b.streamTime.seconds, contentTime: b.contentTime.seconds, url: b.url,
                   adId: b.adId, breakId: b.breakId)
        }
        content = StitchReport.Media(r.content)
        output = StitchReport.Media(r.output, videoFrames: r.videoFrames, audioSamples: r.audioSamples)
        cuePoints = r.cuePoints
        breaks = r.breaks.map { b in
            Break(id: b.id, breakId: b.id, cuePoint: b.cuePoint, contentTime: b.contentTime.seconds,
                  streamTime: b.streamTime.seconds, duration: b.duration.seconds,
                  ads: b.ads.map { a in
                      Ad(adId: a.ad.adId, title: a.ad.adTitle, adSystem: a.ad.adSystem, creativeId: a.ad.creativeID,
                         skipOffset: a.ad.isSkippable ? a.ad.skipTimeOffset : nil, mediaFile: a.ad.mediaURL ?? a.placement.mediaFile,
                         streamTime: a.placement.streamTime.seconds, duration: a.placement.duration.seconds,
                         mediaDuration: a.placement.mediaDuration.seconds, podPosition: a.ad.adPodInfo.adPosition,
                         totalAds: a.ad.adPodInfo.totalAds, frames: a.placement.frames,
                         conformSeconds: a.placement.conformSeconds, skipped: a.skipped,
                         tracking: a.tracking.map(beacon), loudness: a.placement.loudness,
                         transcodeCache: a.placement.transcodeCache, presentation: a.presentation.rawValue)
                  },
                  tracking: b.tracking.map(beacon))
        }
        contentSegments = r.timeline.segments.map(StitchReport.Segment.init)
        events = r.events.map { Event(type: $0.typeString, streamTime: $0.streamTime.seconds, contentTime: $0.contentTime.seconds, adId: $0.ad?.adId) }
        errors = r.errors.map { Error(code: $0.code, type: $0.type.rawValue, message: $0.message, adId: $0.adId) }
        beacons = r.beacons.map(beacon)
        warnings = r.warnings
        timings = StitchReport.Timings(r.timings)
        smartRendering = r.smartRendering
        companions = r.companions.map {
            Companion(slot: $0.slot, adId: $0.adId, breakId: $0.breakId, companionId: $0.companionId, creativeType: $0.creativeType,
                      streamStart: $0.streamStart.seconds, streamEnd: $0.streamEnd.seconds, clickThrough: $0.clickThrough, file: nil)
        }
    }

    /// Pretty-printed JSON with sorted keys.
    public func json() throws -> Data {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try e.encode(self)
    }
}
