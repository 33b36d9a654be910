import Foundation
import Timing

/// MPEG-DASH Media Presentation Descriptions (ISO/IEC 23009-1) as values, and their one writer
/// (`DASH.write`). What Interlude writes: periods of adaptation sets addressed by
/// `SegmentTemplate` with a `SegmentTimeline`, and event streams (SCTE-35 splices). Times are
/// `MediaTime` (the MPD's `xs:duration` values) or integer ticks of a stated timescale.
public enum DASH {
    /// The MPD's media type (ISO/IEC 23009-1 Annex C).
    public static let mimeType = "application/dash+xml"

    /// `MPD@type`.
    public enum PresentationType: String, Sendable, Hashable {
        /// On demand: every segment exists.
        case `static`
        /// Live: the MPD is fetched again (`minimumUpdatePeriod`).
        case dynamic
    }

    /// The `MPD` element.
    public struct MPD: Sendable, Hashable {
        /// `@type`.
        public var type: PresentationType
        /// `@profiles` (comma-separated in the document).
        public var profiles: [String]
        /// `@mediaPresentationDuration` (static presentations).
        public var mediaPresentationDuration: MediaTime?
        /// `@minBufferTime`.
        public var minBufferTime: MediaTime
        /// The periods, in order.
        public var periods: [Period]
        /// `@availabilityStartTime` (dynamic presentations): the wall-clock time of presentation time 0.
        public var availabilityStartTime: Date?
        /// `@publishTime` (dynamic presentations): when this version of the MPD was made.
        public var publishTime: Date?
        /// `@minimumUpdatePeriod` (dynamic presentations): how soon to fetch the MPD again.
        public var minimumUpdatePeriod: MediaTime?
        /// `@timeShiftBufferDepth` (dynamic presentations): how far behind the live edge segments stay available.
        public var timeShiftBufferDepth: MediaTime?
        /// `@suggestedPresentationDelay` (dynamic presentations): how far behind the live edge to play.
        public var suggestedPresentationDelay: MediaTime?
        /// `Location`: where to fetch the MPD's next versions (a dynamic session's own URL).
        public var location: String?

        /// An MPD.
        public init(type: PresentationType = .static, profiles: [String] = [DASH.liveProfile], mediaPresentationDuration: MediaTime?,
                    minBufferTime: MediaTime, periods: [Period]) {
            self.type = type; self.profiles = profiles; self.mediaPresentationDuration = mediaPresentationDuration
            self.minBufferTime = minBufferTime; self.periods = periods
        }

        /// Why the MPD breaks the timing rules the schema cannot check, nil when it does not:
        /// no period, periods whose starts do not rise, a static MPD without its duration, a
        /// dynamic one without its availability start and publish times, a
        /// segment timeline whose entries leave a gap or overlap (`S@t` is the previous entry's
        /// end), an event outside the timescale's range.
        public func validate() -> String? {
            if periods.isEmpty { return "an MPD has at least one Period" }
            if type == .static && mediaPresentationDuration == nil { return "a static MPD needs mediaPresentationDuration" }
            if type == .dynamic && (availabilityStartTime == nil || publishTime == nil) {
                return "a dynamic MPD needs availabilityStartTime and publishTime"
            }
            for (a, b) in zip(periods, periods.dropFirst()) where b.start <= a.start {
                return "Period \(b.id) starts at \(b.start.seconds) s, not after Period \(a.id) (\(a.start.seconds) s)"
            }
            for (a, b) in zip(periods, periods.dropFirst()) {
                if let d = a.duration, a.start + d != b.start {
                    return "Period \(a.id) ends at \((a.start + d).seconds) s, not where Period \(b.id) starts (\(b.start.seconds) s)"
                }
            }
            for p in periods {
                for set in p.adaptationSets {
                    if let template = set.segmentTemplate {
                        if let problem = SegmentTemplate.timelineProblem(template.timeline) { return "AdaptationSet \(set.id) of Period \(p.id): \(problem)" }
                        continue
                    }
                    for r in set.representations {
                        if let template = r.segmentTemplate {
                            if let problem = SegmentTemplate.timelineProblem(template.timeline) { return "Representation \(r.id) of Period \(p.id): \(problem)" }
                            continue
                        }
                        guard let list = r.segmentList else {
                            if r.baseURL != nil { continue }   // one whole-Period resource (a sidecar text file)
                            return "Representation \(r.id) of Period \(p.id) has neither a SegmentTemplate, a SegmentList nor a BaseURL"
                        }
                        if let problem = list.problem() { return "Representation \(r.id) of Period \(p.id): \(problem)" }
                    }
                }
            }
            return nil
        }
    }

    /// The ISO base media file format live profile: segments addressed by a template.
    public static let liveProfile = "urn:mpeg:dash:profile:isoff-live:2011"
    /// The CMAF profile of ISO/IEC 23009-1 (segments that are CMAF fragments).
    public static let cmafProfile = "urn:mpeg:dash:profile:cmaf:2019"

    /// A `Period`.
    public struct Period: Sendable, Hashable {
        /// `@id`.
        public var id: String
        /// `@start`: where it starts on the presentation's timeline.
        public var start: MediaTime
        /// `@duration`; nil: up to the next period (or the presentation's end).
        public var duration: MediaTime?
        /// `AssetIdentifier`: what the period plays (an ad's id, for DASH-IF's ad insertion).
        public var assetIdentifier: Descriptor?
        /// `EventStream`s.
        public var eventStreams: [EventStream]
        /// `AdaptationSet`s.
        public var adaptationSets: [AdaptationSet]

        /// A period.
        public init(id: String, start: MediaTime, duration: MediaTime? = nil, assetIdentifier: Descriptor? = nil, eventStreams: [EventStream] = [],
                    adaptationSets: [AdaptationSet]) {
            self.id = id; self.start = start; self.duration = duration; self.assetIdentifier = assetIdentifier
            self.eventStreams = eventStreams; self.adaptationSets = adaptationSets
        }
    }

    /// A descriptor (`DescriptorType`: `@schemeIdUri`, `@value`).
    public struct Descriptor: Sendable, Hashable {
        /// `@schemeIdUri`.
        public var schemeIdUri: String
        /// `@value`.
        public var value: String?

        /// A descriptor.
        public init(schemeIdUri: String, value: String? = nil) { self.schemeIdUri = schemeIdUri; self.value = value }
    }

    /// A `ContentProtection` descriptor (ISO/IEC 23009-1 5.8.4.1, 23001-7 11.2): the scheme
    /// (`urn:mpeg:dash:mp4protection:2011` with the encryption scheme as `@value`, or a DRM
    /// system's `urn:uuid:…`), the default key id (`cenc:default_KID`), the system's `cenc:pssh`
    /// box (base64) and a licence server (`dashif:laurl`, DASH-IF's ClearKey and CPS).
    public struct ContentProtection: Sendable, Hashable, Codable {
        /// `@schemeIdUri`.
        public var schemeIdUri: String
        /// `@value` (`cenc`, `cbcs`, a DRM system's name).
        public var value: String?
        /// `@cenc:default_KID`: the key id as a UUID (8-4-4-4-12 hex digits).
        public var defaultKID: String?
        /// `cenc:pssh`: the protection system's header box, base64.
        public var pssh: String?
        /// `dashif:laurl`: where a player asks for the keys.
        public var licenseURL: String?

        /// A descriptor.
        public init(schemeIdUri: String, value: String? = nil, defaultKID: String? = nil, pssh: String? = nil, licenseURL: String? = nil) {
            self.schemeIdUri = schemeIdUri; self.value = value; self.defaultKID = defaultKID; self.pssh = pssh; self.licenseURL = licenseURL
        }
    }

    /// MPEG Common Encryption's namespace (`cenc:default_KID`, `cenc:pssh`).
    public static let cencNamespace = "urn:mpeg:cenc:2013"
    /// DASH-IF's content protection namespace (`dashif:laurl`).
    public static let dashifNamespace = "https://dashif.org/CPS"

    /// DASH-IF's scheme for an `AssetIdentifier` (IOP, ad insertion): `@value` names the asset.
    public static let assetIdentifierScheme = "urn:org:dashif:asset-id:2013"
    /// The ISO base media file format main profile (segments listed one by one: `SegmentList`).
    public static let mainProfile = "urn:mpeg:dash:profile:isoff-main:2011"
    /// The scheme of `Role` values (ISO/IEC 23009-1 §5.8.5.5).
    public static let roleScheme = "urn:mpeg:dash:role:2011"

    /// An `AdaptationSet`: interchangeable representations of one content type.
    public struct AdaptationSet: Sendable, Hashable {
        /// `@id`.
        public var id: Int
        /// `@contentType` (`video`, `audio`, `text`).
        public var contentType: String
        /// `@mimeType` (`video/mp4`, `audio/mp4`).
        public var mimeType: String
        /// `@lang`.
        public var language: String?
        /// `@segmentAlignment`.
        public var segmentAlignment = true
        /// `@startWithSAP`: every segment starts with a stream access point of this type.
        public var startWithSAP: Int? = 1
        /// `ContentProtection`s: how its media is encrypted and where a player gets the keys
        /// (an encrypted origin's, passed on as they came).
        public var contentProtection: [ContentProtection] = []
        /// `Role` (scheme `urn:mpeg:dash:role:2011`: `main`, `subtitle`, …).
        public var role: String?
        /// The `SegmentTemplate` its representations share.
        public var segmentTemplate: SegmentTemplate?
        /// `Representation`s.
        public var representations: [Representation]

        /// An adaptation set.
        public init(id: Int, contentType: String, mimeType: String, language: String? = nil, segmentTemplate: SegmentTemplate?,
                    representations: [Representation]) {
            self.id = id; self.contentType = contentType; self.mimeType = mimeType; self.language = language
            self.segmentTemplate = segmentTemplate; self.representations = representations
        }
    }

    /// A `Representation`.
    public struct Representation: Sendable, Hashable {
        /// `@id` (what `$RepresentationID$` stands for).
        public var id: String
        /// `@bandwidth`, bits per second.
        public var bandwidth: Int
        /// `@codecs` (RFC 6381); empty: not written (a sidecar text file).
        public var codecs: String
        /// `@width`, `@height` (video).
        public var width: Int?, height: Int?
        /// `@frameRate` (`30`, `30000/1001`).
        public var frameRate: String?
        /// `@sar` (`1:1`).
        public var sar: String?
        /// `@audioSamplingRate`.
        public var audioSamplingRate: Int?
        /// `AudioChannelConfiguration` (scheme 23003-3: the number of channels).
        public var audioChannels: Int?
        /// Its own `SegmentList` (when the adaptation set has no template).
        public var segmentList: SegmentList?
        /// Its own `SegmentTemplate` (when the adaptation set has none).
        public var segmentTemplate: SegmentTemplate?
        /// `BaseURL`: a whole-Period resource (a sidecar WebVTT file) when it has no segments.
        public var baseURL: String?

        /// A representation.
        public init(id: String, bandwidth: Int, codecs: String, width: Int? = nil, height: Int? = nil, frameRate: String? = nil,
                    sar: String? = nil, audioSamplingRate: Int? = nil, audioChannels: Int? = nil) {
            self.id = id; self.bandwidth = bandwidth; self.codecs = codecs; self.width = width; self.height = height
            self.frameRate = frameRate; self.sar = sar; self.audioSamplingRate = audioSamplingRate; self.audioChannels = audioChannels
        }
    }

    /// A `SegmentTemplate` with a `SegmentTimeline` (`$Number$` addressing).
    public struct SegmentTemplate: Sendable, Hashable {
        /// `@timescale`: ticks per second of every time below.
        public var timescale: Int64
        /// `@initialization`.
        public var initialization: String
        /// `@media`, e.g. `video$Number%05d$.m4s`.
        public var media: String
        /// `@startNumber`: the number of the timeline's first segment.
        public var startNumber: Int
        /// `@presentationTimeOffset`: the media time that plays at the period's start.
        public var presentationTimeOffset: Int64
        /// The segments: `S@t` (earliest presentation time), `S@d` (duration), `S@r` (repeats).
        public var timeline: [TimelineEntry]

        /// A template.
        public init(timescale: Int64, initialization: String, media: String, startNumber: Int, presentationTimeOffset: Int64 = 0,
                    timeline: [TimelineEntry]) {
            self.timescale = timescale; self.initialization = initialization; self.media = media; self.startNumber = startNumber
            self.presentationTimeOffset = presentationTimeOffset; self.timeline = timeline
        }

        /// A timeline of one entry per segment, `(start, duration)` in ticks, with runs of equal
        /// back-to-back durations folded into `r`.
        public static func timeline(_ segments: [(start: Int64, duration: Int64)]) -> [TimelineEntry] {
            var out: [TimelineEntry] = []
            for s in segments {
                if let last = out.last, last.duration == s.duration, last.start + last.duration * Int64(last.repeats + 1) == s.start {
                    out[out.count - 1].repeats += 1
                } else {
                    out.append(TimelineEntry(start: s.start, duration: s.duration))
                }
            }
            return out
        }

        /// Where `timeline` leaves a gap or overlaps, nil when it does not.
        static func timelineProblem(_ timeline: [TimelineEntry]) -> String? {
            for (a, b) in zip(timeline, timeline.dropFirst()) where a.start + a.duration * Int64(a.repeats + 1) != b.start {
                return "the segment at \(b.start) does not start where the one before it ends (\(a.start + a.duration * Int64(a.repeats + 1)))"
            }
            if timeline.contains(where: { $0.duration <= 0 || $0.repeats < 0 }) { return "a segment of no duration" }
            return nil
        }
    }

    /// A `SegmentList` with a `SegmentTimeline`: each segment's own URL (`SegmentURL@media`),
    /// for segments no one template names (a session's Period mixes a cut's pieces with the
    /// content's stored segments).
    public struct SegmentList: Sendable, Hashable {
        /// `@timescale`.
        public var timescale: Int64
        /// `@presentationTimeOffset`: the media time that plays at the period's start.
        public var presentationTimeOffset: Int64
        /// `Initialization@sourceURL`.
        public var initialization: String
        /// The segments' times (`S@t`, `S@d`, `S@r`).
        public var timeline: [TimelineEntry]
        /// The segments' URLs, one per segment of the timeline, in order.
        public var media: [String]
        /// `@startNumber`: the first segment's number (a live presentation numbers its segments
        /// across updates, so that a player can tell a segment it has from a new one); nil: 1.
        public var startNumber: Int?

        /// A list.
        public init(timescale: Int64, presentationTimeOffset: Int64, initialization: String, timeline: [TimelineEntry], media: [String]) {
            self.timescale = timescale; self.presentationTimeOffset = presentationTimeOffset; self.initialization = initialization
            self.timeline = timeline; self.media = media
        }

        /// Why the list is inconsistent (a gap or overlap, a URL count other than the timeline's
        /// segment count), nil when it is not.
        func problem() -> String? {
            if let problem = SegmentTemplate.timelineProblem(timeline) { return problem }
            let count = timeline.reduce(0) { $0 + $1.repeats + 1 }
            return count == media.count ? nil : "\(media.count) SegmentURLs for \(count) segments"
        }
    }

    /// An `S` element.
    public struct TimelineEntry: Sendable, Hashable {
        /// `@t`.
        public var start: Int64
        /// `@d`.
        public var duration: Int64
        /// `@r`: how many more segments of this duration follow back to back.
        public var repeats: Int = 0

        /// An entry.
        public init(start: Int64, duration: Int64, repeats: Int = 0) { self.start = start; self.duration = duration; self.repeats = repeats }
    }

    /// An `EventStream`: timed events of one scheme in a period.
    public struct EventStream: Sendable, Hashable {
        /// `@schemeIdUri`.
        public var schemeIdUri: String
        /// `@value`.
        public var value: String?
        /// `@timescale` of the events' times.
        public var timescale: Int64
        /// `@presentationTimeOffset`: the event time at the period's start.
        public var presentationTimeOffset: Int64 = 0
        /// `Event`s.
        public var events: [Event]

        /// An event stream.
        public init(schemeIdUri: String, value: String? = nil, timescale: Int64, events: [Event]) {
            self.schemeIdUri = schemeIdUri; self.value = value; self.timescale = timescale; self.events = events
        }
    }

    /// Interlude's event scheme for an ad in a break (`EventStream@value` the break's id,
    /// `Event@messageData` the ad's id), in the stitch's package and the service's MPDs.
    public static let adScheme = "urn:interlude:ad:2026"

    /// SCTE 214-1's scheme for SCTE-35 sections carried as XML with their binary form
    /// (`<Signal><Binary>base64</Binary></Signal>`).
    public static let scte35Scheme = "urn:scte:scte35:2014:xml+bin"

    /// An `Event`.
    public struct Event: Sendable, Hashable {
        /// `@id`.
        public var id: UInt32
        /// `@presentationTime`, ticks of the stream's timescale from its offset.
        public var presentationTime: Int64
        /// `@duration`.
        public var duration: Int64?
        /// What it carries.
        public var payload: Payload

        /// An event's content.
        public enum Payload: Sendable, Hashable {
            /// A SCTE-35 section (`Signal`/`Binary` in SCTE 35's 2016 XML namespace).
            case scte35([UInt8])
            /// `@messageData` text.
            case message(String)
        }

        /// An event.
        public init(id: UInt32, presentationTime: Int64, duration: Int64? = nil, payload: Payload) {
            self.id = id; self.presentationTime = presentationTime; self.duration = duration; self.payload = payload
        }
    }
}
