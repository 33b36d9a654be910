import Ads
import Foundation
import Manifest
import Playback
import Timing

/// A live DASH origin's MPD at one refresh, as the live source reads it (ISO/IEC 23009-1,
/// DASH-IF IOP live profile): each video Representation a `LivePlaylist` of the segments
/// available now, so that the live channel follows a DASH origin as it follows an HLS one
/// (new segments found by number and URI, fetched once, made MPEG-TS, their breaks tracked).
///
/// What it reads:
/// - `SegmentTemplate` (on the Representation, else the AdaptationSet, attribute by attribute)
///   with a `SegmentTimeline` (`S@t/@d/@r`, `r="-1"` up to the next `S`, the Period's end or
///   now) or a `@duration` with `$Number$` (the segments whose end has passed on the
///   `availabilityStartTime` clock); `$RepresentationID$`, `$Bandwidth$`, `$Number$`, `$Time$`;
/// - several Periods (`Period@start`, or the one before's end), the first segment of a later
///   Period a discontinuity when its initialization segment is another, every segment then
///   numbered by its place in the listing (a Period's own numbers restart; the channel finds its
///   last segment again by URI);
/// - the Period's SCTE-35 `EventStream`s (`urn:scte:scte35:2013:xml`,
///   `urn:scte:scte35:2014:xml+bin`, base64 `urn:scte:scte35:2013:bin`): each Event a
///   `LiveMarker.splice` on the segment holding its time, its `presentationTime` the splice PTS
///   (SCTE 214-1: the Event's time is the splice point, whatever the section's `pts_time`);
///   `emsg` boxes are read from the segments by the channel;
/// - the audio: the highest-bandwidth Representation of the first audio AdaptationSet (its
///   `Role` `main` first), its segments listed with their media times for the channel to mux
///   into each video segment; and the same of up to `LiveChannel.maxLanguages` other audio
///   AdaptationSets (other languages: each known across Periods by its `lang`, else its place).
///   Audio and video must share the media timeline (`presentationTimeOffset` in seconds).
/// - subtitles: each text AdaptationSet of WebVTT or TTML in MP4 (`application/mp4`, `wvtt` or
///   `stpp`), its first Representation's segments listed for the channel to read cues from
///   (`LiveSubtitles`); other text (a sidecar file, segmented plain text) is left out with a note.
///
/// Only the last `timeShiftBufferDepth` (at most 5 minutes; 60 s when the MPD gives none) is
/// listed: a channel starting on an origin with hours of DVR takes its live end, not its history.
/// Encrypted content (`ContentProtection`: CMAF sample encryption, `cenc` or `cbcs`) is read as
/// clear content is, its descriptors kept (`videoProtection`, `audioProtection`; each Period's
/// by its initialization segments, `protection(initialization:)`; each audio segment's own) and
/// its video segments marked `sampleEncrypted` (the channel keeps them as they came); every
/// video Representation must be encrypted or none, and an encrypted sound beside clear video is
/// left out.
/// What it refuses in one line: not an MPD, `SegmentBase`/`SegmentList`, a
/// segment over 60 s, a template it cannot expand, a `@duration` template without
/// `availabilityStartTime`. The MPD comes from a network: the project's hardened XML reader (no
/// DTD, no entities), and every number bounded.
struct LiveMPD {
    /// One video Representation (by descending bandwidth across the MPD: rendition `v<index>`).
    struct Video {
        var id: String
        var bandwidth: Int
        var playlist: LivePlaylist
    }

    /// One segment of an audio or a text track, on its track's media timeline.
    struct TrackSegment: Equatable {
        var uri: String
        var initialization: String
        var start: MediaTime
        var duration: MediaTime
        /// Text: what moves its media time onto the video's (the two tracks'
        /// `presentationTimeOffset`s apart); audio must share the video's (zero).
        var shift: MediaTime = .zero
        /// An HLS origin's sample-encrypted audio segment: its `EXT-X-KEY` as players get it.
        var key: HLS.Key? = nil
        /// A DASH origin's sample-encrypted audio segment: its AdaptationSet's (or
        /// Representation's) `ContentProtection`s; empty when it is clear.
        var protection: [DASH.ContentProtection] = []
        var end: MediaTime { start + duration }
    }

    /// The video Representations, highest bandwidth first.
    var videos: [Video]
    /// The audio segments listed (none when the video segments carry their own sound).
    var audio: [TrackSegment]
    /// Whether an audio AdaptationSet was found (its segments may not be listed yet).
    var hasAudio: Bool
    /// The main audio AdaptationSet as an HLS rendition (name, `lang`), nil without one.
    var mainAudio: HLS.Rendition?
    /// Other audio languages: each one's AdaptationSet as an HLS rendition and its segments listed.
    var languages: [(rendition: HLS.Rendition, audio: [TrackSegment])]

    /// Subtitles: each text AdaptationSet of WebVTT (`wvtt`) or TTML (`stpp`) in MP4 (known
    /// across Periods by its `lang`, else its place; at most `LiveSubtitles.maxTracks`) as an HLS
    /// subtitle rendition, and its segments listed.
    var texts: [(rendition: HLS.Rendition, segments: [TrackSegment])]
    /// The MPD is static: the origin has ended, everything is listed.
    var ended: Bool
    /// What was left out, one line each (more audio languages, subtitles).
    var notes: [String]
    /// The video's `ContentProtection`s (hostile values checked: `ProtectedCMAF.descriptors`);
    /// empty when it is clear.
    var videoProtection: [DASH.ContentProtection] = []
    /// The main audio's `ContentProtection`s; empty when it is clear.
    var audioProtection: [DASH.ContentProtection] = []
    /// Each Period's video `ContentProtection`s by the initialization segment (as the MPD names
    /// it) of its video Representations: an origin that rotates its key starts a Period whose
    /// segments are under another `default_KID` (`protection(initialization:)`; each audio
    /// segment carries its own, `TrackSegment.protection`).
    private var protectionByInitialization: [String: [DASH.ContentProtection]] = [:]

    /// The video `ContentProtection`s of the Period whose video segments are under
    /// initialization segment `uri` (a segment's `map`); nil when no Period lists it or the
    /// content is clear.
    func protection(initialization uri: String) -> [DASH.ContentProtection]? {
        protectionByInitialization[uri]?.nonEmpty
    }

    /// How much of the origin's timeline is listed when the MPD gives no `timeShiftBufferDepth`.
    static let defaultWindow = MediaTime(seconds: 60)
    /// The most of it listed whatever the MPD says.
    static let maxWindow = MediaTime(seconds: 300)
    /// The SCTE-35 Event schemes read.
    static let eventSchemes: Set<String> = ["urn:scte:scte35:2013:xml", "urn:scte:scte35:2014:xml+bin", "urn:scte:scte35:2013:bin"]

    /// One Representation's listed segments.
    private struct Listed {
        var initialization: String
        var timescale: Int64
        var presentationTimeOffset: Int64
        /// URI, number, start on the media timeline and duration (ticks).
        var segments: [(uri: String, number: Int, start: Int64, duration: Int64)]
        /// The numbers are positions, not the origin's: its URIs are by `$Time$` and it writes no `startNumber`.
        var numbersImplied = false
        /// An audio Representation's `ContentProtection`s (sample-encrypted content's sound).
        var protection: [DASH.ContentProtection] = []
    }

    /// An SCTE-35 Event of a Period: its time from the Period's start, its section.
    private struct Event {
        var periodTime: MediaTime
        var section: SCTE35Section
    }

    /// Reads `text`, an MPD fetched at `now`.
    init(parsing text: String, now: Date) throws {
        let root: XMLElementNode
        do { root = try XMLTreeParser().parse(Data(text.utf8)).root } catch {
            throw StoreError.unsupported("live DASH source: the MPD is not well-formed XML: \(error)")
        }
        guard root.name == "MPD" else { throw StoreError.unsupported("live DASH source: the document is not an MPD") }
        let type = root.attribute("type") ?? "static"
        guard type == "dynamic" || type == "static" else { throw StoreError.unsupported("live DASH source: MPD@type \(type.prefix(20))") }
        ended = type == "static"
        let ast = root.attribute("availabilityStartTime").flatMap(DASH.dateTime(parsing:))
        let sinceStart = ast.map { MediaTime(seconds: now.timeIntervalSince($0), timescale: 1000) }
        let window = try min(root.attribute("timeShiftBufferDepth").map { try DASHImport.duration($0, allowingZero: true) } ?? Self.defaultWindow,
                             Self.maxWindow)
        let presentationEnd = try root.attribute("mediaPresentationDuration").map { try DASHImport.duration($0, allowingZero: false, limit: 1e10) }
        let base = DASHImport.join("", root.childText("BaseURL") ?? "")
        let periods = root.children("Period")
        guard !periods.isEmpty, periods.count <= 64 else { throw StoreError.unsupported("live DASH source: \(periods.count) Periods (1 to 64 are read)") }
        // each Period's start (from the availability start), and its end where known
        var starts: [MediaTime] = []
        for (i, p) in periods.enumerated() {
            if let s = p.attribute("start") {
                starts.append(try DASHImport.duration(s, allowingZero: true, limit: 1e10))
            } else if i == 0 {
                starts.append(.zero)
            } else if let d = periods[i - 1].attribute("duration") {
                starts.append(starts[i - 1] + (try DASHImport.duration(d, allowingZero: false, limit: 1e10)))
            } else {
                throw StoreError.unsupported("live DASH source: Period \(i + 1) has neither a start nor a Period with a duration before it")
            }
            if i > 0, starts[i] < starts[i - 1] { throw StoreError.unsupported("live DASH source: Period \(i + 1) starts before the one before it") }
        }
        var videoRuns: [[Listed]] = [], audioRuns: [Listed] = []
        var videoIDs: [[(id: String, bandwidth: Int)]] = []
        var events: [[Event]] = []
        var notes: [String] = []
        var videoProtection: [DASH.ContentProtection] = [], audioProtection: [DASH.ContentProtection] = []
        var protectionByInitialization: [String: [DASH.ContentProtection]] = [:]
        var hasAudio = false
        var mainAudio: HLS.Rendition?
        // other languages, in order of first appearance: each one's identity, rendition and runs
        var languageKeys: [String] = [], languageRenditions: [HLS.Rendition] = []
        var languageRuns: [[(period: Int, listed: Listed)]] = []
        var textKeys: [String] = [], textRenditions: [HLS.Rendition] = []
        var textRuns: [[(period: Int, listed: Listed, shift: MediaTime)]] = []
        for (i, period) in periods.enumerated() {
            var end = i + 1 < periods.count ? starts[i + 1] : presentationEnd
            if let d = period.attribute("duration") { end = starts[i] + (try DASHImport.duration(d, allowingZero: false, limit: 1e10)) }
            let bound = Bound(start: starts[i], end: end, now: sinceStart)
            let periodBase = DASHImport.join(base, period.childText("BaseURL") ?? "")
            var videos: [(listed: Listed, id: String, bandwidth: Int)] = []
            // (this Period's: a later one may say another key)
            var periodVideo: [DASH.ContentProtection] = []
            var audioSets: [XMLElementNode] = [], textSets: [XMLElementNode] = []
            for set in period.children("AdaptationSet") {
                let kind = Self.kind(set, set.children("Representation").first)
                if kind == "audio" { audioSets.append(set); continue }
                if kind == "text" || kind == "application" { textSets.append(set); continue }
                guard kind == "video" else { continue }
                let setBase = DASHImport.join(periodBase, set.childText("BaseURL") ?? "")
                let setProtection = try Self.protection(set)
                for rep in set.children("Representation") {
                    // every video Representation encrypted, or none
                    let protection = try Self.protection(rep).nonEmpty ?? setProtection
                    if videoRuns.isEmpty && videos.isEmpty { videoProtection = protection }
                    if videos.isEmpty { periodVideo = protection }
                    guard protection.isEmpty == videoProtection.isEmpty else {
                        throw StoreError.unsupported("live DASH source: some video Representations encrypted and some clear")
                    }
                    let listed = try Self.list(rep, in: set, base: setBase, bound: bound)
                    videos.append((listed, rep.attribute("id") ?? "", Int(rep.attribute("bandwidth") ?? "") ?? 0))
                }
            }
            videos.sort { $0.bandwidth > $1.bandwidth }
            videoRuns.append(videos.map(\.listed))
            videoIDs.append(videos.map { ($0.id, $0.bandwidth) })
            // the audio: the main (else first) audio AdaptationSet's highest-bandwidth
            // Representation, then each other language's
            let mainIndex = DASHImport.mainAudio(audioSets)
            let others = audioSets.indices.filter { $0 != mainIndex }
            if others.count > LiveChannel.maxLanguages, !notes.contains(where: { $0.hasPrefix("audio") }) {
                notes.append("audio: \(others.count - LiveChannel.maxLanguages) more audio AdaptationSets left out (a live channel carries \(LiveChannel.maxLanguages + 1))")
            }
            // the set's best Representation listed, on the video's media timeline
            func audioListed(_ set: XMLElementNode, main: Bool) throws -> Listed? {
                guard let rep = set.children("Representation").max(by: {
                    (Int($0.attribute("bandwidth") ?? "") ?? 0) < (Int($1.attribute("bandwidth") ?? "") ?? 0) }) else { return nil }
                let protection = try Self.protection(rep).nonEmpty ?? (try Self.protection(set))
                // (sample-encrypted video: the main sound kept as it came beside it, its descriptors said again)
                if main, !videoProtection.isEmpty, videoRuns.count == 1 { audioProtection = protection }
                // (an encrypted sound beside clear video is left out)
                if !protection.isEmpty, videoProtection.isEmpty { return nil }
                var listed = try Self.list(rep, in: set, base: DASHImport.join(periodBase, set.childText("BaseURL") ?? ""), bound: bound)
                listed.protection = protection
                if let v = videos.first?.listed {
                    let a = MediaTime(value: listed.presentationTimeOffset, timescale: listed.timescale)
                    let b = MediaTime(value: v.presentationTimeOffset, timescale: v.timescale)
                    guard (a > b ? a - b : b - a) <= MediaTime(value: 1, timescale: 1000) else {
                        throw StoreError.unsupported("live DASH source: the audio and video of Period \(i + 1) are on different media timelines (presentationTimeOffset)")
                    }
                }
                return listed
            }
            if let m = mainIndex, let listed = try audioListed(audioSets[m], main: true) {
                hasAudio = true
                mainAudio = mainAudio ?? Self.rendition(audioSets[m], place: 0)
                audioRuns.append(listed)
            }
            for v in videos where !periodVideo.isEmpty && protectionByInitialization.count < 256 {
                protectionByInitialization[v.listed.initialization] = periodVideo
            }
            for (place, o) in others.enumerated() {
                let key = audioSets[o].attribute("lang").map { "lang:" + $0.prefix(64) } ?? "place:\(place)"
                var k = languageKeys.firstIndex(of: key)
                if k == nil, languageKeys.count < LiveChannel.maxLanguages {
                    languageKeys.append(key)
                    languageRenditions.append(Self.rendition(audioSets[o], place: languageKeys.count))
                    languageRuns.append([])
                    k = languageKeys.count - 1
                }
                guard let k, let listed = try audioListed(audioSets[o], main: false) else { continue }
                languageRuns[k].append((i, listed))
            }
            // subtitles: WebVTT or TTML in MP4 segments, each set's first Representation
            for (place, set) in textSets.enumerated() {
                guard let rep = set.children("Representation").first else { continue }
                let mime = rep.attribute("mimeType") ?? set.attribute("mimeType") ?? ""
                let codecs = rep.attribute("codecs") ?? set.attribute("codecs") ?? ""
                guard mime == "application/mp4", codecs.hasPrefix("wvtt") || codecs.hasPrefix("stpp") else {
                    let note = "subtitles: a text AdaptationSet of '\(mime.prefix(40))' '\(codecs.prefix(40))' left out (WebVTT or TTML in MP4 segments are read)"
                    if !notes.contains(note) { notes.append(note) }
                    continue
                }
                guard rep.children("ContentProtection").isEmpty else { continue }
                let key = set.attribute("lang").map { "lang:" + $0.prefix(64) } ?? "place:\(place)"
                var k = textKeys.firstIndex(of: key)
                if k == nil, textKeys.count < LiveSubtitles.maxTracks {
                    textKeys.append(key)
                    var r = Self.rendition(set, place: textKeys.count - 1)
                    r.type = .subtitles; r.groupID = "subs"; r.channels = nil
                    r.name = set.childText("Label").map { String($0.prefix(64)) } ?? set.attribute("lang").map { String($0.prefix(64)) } ?? "subtitles \(textKeys.count)"
                    r.isDefault = textKeys.count == 1
                    textRenditions.append(r)
                    textRuns.append([])
                    k = textKeys.count - 1
                } else if k == nil {
                    let note = "subtitles: more than \(LiveSubtitles.maxTracks) text AdaptationSets, the rest left out"
                    if !notes.contains(note) { notes.append(note) }
                }
                guard let k else { continue }
                let listed = try Self.list(rep, in: set, base: DASHImport.join(periodBase, set.childText("BaseURL") ?? ""), bound: bound)
                // its media time onto the video's: the two offsets apart (Period time is the same)
                let videoOffset = videos.first.map { MediaTime(value: $0.listed.presentationTimeOffset, timescale: $0.listed.timescale) } ?? .zero
                let shift = videoOffset - MediaTime(value: listed.presentationTimeOffset, timescale: listed.timescale)
                textRuns[k].append((i, listed, shift))
            }
            events.append(try Self.events(period))
        }
        // the listed window: what ends within `window` of the newest video segment's end
        let newest = videoRuns.enumerated().compactMap { i, runs -> MediaTime? in
            guard let l = runs.first, let s = l.segments.last else { return nil }
            return starts[i] + MediaTime(value: s.start + s.duration - l.presentationTimeOffset, timescale: l.timescale)
        }.max()
        func kept(_ l: Listed, period i: Int) -> Listed {
            guard let newest else { return l }
            var l = l
            l.segments.removeAll { s in starts[i] + MediaTime(value: s.start + s.duration - l.presentationTimeOffset, timescale: l.timescale) + window < newest }
            return l
        }
        let renditions = videoRuns.map(\.count).max() ?? 0
        guard renditions > 0 else { throw StoreError.unsupported("live DASH source: no video Representation") }
        var videos: [Video] = []
        for k in 0..<renditions {
            var segments: [LivePlaylist.Segment] = []
            var maxDuration = MediaTime.zero
            var implied = false
            for (i, runs) in videoRuns.enumerated() where k < runs.count {
                let l = kept(runs[k], period: i)
                implied = implied || l.numbersImplied
                let presentationOffset = MediaTime(value: l.presentationTimeOffset, timescale: l.timescale)
                for (n, s) in l.segments.enumerated() {
                    let start = MediaTime(value: s.start, timescale: l.timescale), duration = MediaTime(value: s.duration, timescale: l.timescale)
                    maxDuration = MediaTime.max(maxDuration, duration)
                    // the Period's Events on the segment holding each (those before the first on the first)
                    var markers: [LiveMarker] = []
                    for e in events[i] {
                        let at = e.periodTime + presentationOffset
                        // before the first segment listed: only a break still going on there
                        let ongoing = at < start && at + Self.reach(e.section) > start
                        if (n == 0 && ongoing) || (at >= start && at < start + duration) {
                            markers.append(.splice(LiveMarker.Splice(e.section.splicing(at: UInt64(truncatingIfNeeded: at.mpegTicks)))))
                        }
                    }
                    // a later Period's first segment starts a new stream when its initialization
                    // segment is another (new encoding parameters); a timeline that jumps is
                    // re-anchored by the channel whatever this says, and one that runs on under
                    // the same initialization segment is one stream (a discontinuity there makes
                    // GStreamer's HLS reader see timestamps go back)
                    let newStream = n == 0 && !segments.isEmpty && segments.last?.map != l.initialization
                    segments.append(LivePlaylist.Segment(uri: s.uri, duration: duration, sequence: s.number,
                                                         discontinuity: newStream, map: l.initialization,
                                                         markers: markers, mediaStart: start, sampleEncrypted: !videoProtection.isEmpty))
                }
            }
            guard maxDuration <= MediaTime(seconds: 60) else { throw StoreError.unsupported("live DASH source: a segment of \(maxDuration.seconds) s (60 s at most)") }
            let target = MediaTime(seconds: max(1, maxDuration.rescaled(to: 1, rounding: .up).value))
            guard segments.count <= LivePlaylist.maxSegments else { throw StoreError.unsupported("live DASH source: over \(LivePlaylist.maxSegments) segments listed") }
            let id = videoIDs.last(where: { k < $0.count })?[k] ?? (id: "", bandwidth: 0)
            let numbersImplied = implied || videoRuns.count > 1
            if numbersImplied {
                // positions, or numbers restarting at a Period: each segment numbered by its place
                // in the listing (consecutive across Periods), found again by URI (unique in an MPD)
                for i in segments.indices { segments[i].sequence = i }
            }
            var playlist = LivePlaylist(targetDuration: target, mediaSequence: segments.first?.sequence ?? 0, ended: ended, segments: segments)
            if numbersImplied {
                playlist.numbersImplied = true
                playlist.sequenceReadable = false
            }
            videos.append(Video(id: id.id, bandwidth: id.bandwidth, playlist: playlist))
        }
        self.videos = videos
        func segments(_ l: Listed) -> [TrackSegment] {
            l.segments.map { TrackSegment(uri: $0.uri, initialization: l.initialization, start: MediaTime(value: $0.start, timescale: l.timescale),
                                          duration: MediaTime(value: $0.duration, timescale: l.timescale), protection: l.protection) }
        }
        self.audio = audioRuns.enumerated().flatMap { i, run in segments(kept(run, period: i)) }
        self.hasAudio = hasAudio
        self.mainAudio = mainAudio
        self.languages = languageRenditions.indices.map { k in
            (languageRenditions[k], languageRuns[k].flatMap { segments(kept($0.listed, period: $0.period)) })
        }
        self.texts = textRenditions.indices.map { k in
            (textRenditions[k], textRuns[k].flatMap { run in
                kept(run.listed, period: run.period).segments.map {
                    TrackSegment(uri: $0.uri, initialization: run.listed.initialization, start: MediaTime(value: $0.start, timescale: run.listed.timescale),
                                duration: MediaTime(value: $0.duration, timescale: run.listed.timescale), shift: run.shift)
                }
            })
        }
        self.notes = notes
        self.videoProtection = videoProtection
        self.audioProtection = audioProtection
        self.protectionByInitialization = protectionByInitialization
    }

    /// The `ContentProtection`s of an AdaptationSet or Representation (`ProtectedCMAF.descriptors`),
    /// refused in one line as a live source's.
    static func protection(_ node: XMLElementNode) throws -> [DASH.ContentProtection] {
        do { return try ProtectedCMAF.descriptors(node) } catch { throw StoreError.unsupported("live \(error)") }
    }

    /// An audio AdaptationSet as an HLS audio rendition: its `Label` (else its `lang`, else
    /// "audio N" by its `place`), its `lang`, its channel count (`AudioChannelConfiguration`).
    static func rendition(_ set: XMLElementNode, place: Int) -> HLS.Rendition {
        let lang = set.attribute("lang").map { String($0.prefix(64)) }
        let label = set.childText("Label").map { String($0.prefix(64)) }
        let channels = (set.children("AudioChannelConfiguration").first ?? set.children("Representation").first?.children("AudioChannelConfiguration").first)?
            .attribute("value").flatMap { Int($0) }.map(String.init)
        return HLS.Rendition(type: .audio, groupID: "audio", name: label ?? lang ?? "audio \(place + 1)", language: lang, autoselect: true,
                             channels: channels)
    }

    /// A Period's bounds: its start and end (when known) from the availability start, and now on
    /// that clock (nil without `availabilityStartTime`).
    private struct Bound {
        var start: MediaTime
        var end: MediaTime?
        var now: MediaTime?
    }

    /// `video`, `audio`, `text` … of an AdaptationSet (or its first Representation).
    static func kind(_ set: XMLElementNode, _ rep: XMLElementNode?) -> String {
        if let t = set.attribute("contentType") { return t }
        let mime = set.attribute("mimeType") ?? rep?.attribute("mimeType") ?? ""
        return mime.split(separator: "/").first.map(String.init) ?? ""
    }

    /// Most segments one Representation may list before the window is applied (a `SegmentTimeline`
    /// run's repeat count is bounded, not materialized beyond this).
    static let maxListed = 100_000

    /// The segments of `rep` (of `set`) available in `bound`, their URIs joined to `base`.
    private static func list(_ rep: XMLElementNode, in set: XMLElementNode, base: String, bound: Bound) throws -> Listed {
        guard rep.child("SegmentBase") == nil, rep.child("SegmentList") == nil, set.child("SegmentList") == nil, set.child("SegmentBase") == nil else {
            throw StoreError.unsupported("live DASH source: SegmentBase and SegmentList are not supported live (SegmentTemplate is)")
        }
        let own = rep.child("SegmentTemplate"), inherited = set.child("SegmentTemplate")
        guard own != nil || inherited != nil else { throw StoreError.unsupported("live DASH source: a Representation without a SegmentTemplate") }
        func attribute(_ name: String) -> String? { own?.attribute(name) ?? inherited?.attribute(name) }
        guard let id = rep.attribute("id"), !id.isEmpty, id.count <= 200, let initialization = attribute("initialization"), let media = attribute("media") else {
            throw StoreError.unsupported("live DASH source: a Representation without an id, or a SegmentTemplate without initialization and media")
        }
        let bandwidth = Int(rep.attribute("bandwidth") ?? "") ?? 0
        guard let timescale = Int64(attribute("timescale") ?? "1"), timescale > 0, timescale <= 10_000_000,
              let offset = Int64(attribute("presentationTimeOffset") ?? "0"), offset >= 0, offset < 1 << 60,
              let startNumber = Int(attribute("startNumber") ?? "1"), startNumber >= 0, startNumber < 1 << 48 else {
            throw StoreError.unsupported("live DASH source: a SegmentTemplate's timescale, presentationTimeOffset or startNumber is out of range")
        }
        // the Period's bounds in this template's ticks, on its media timeline (presentation time + offset)
        func ticks(_ t: MediaTime) -> Int64? {
            let v = t.rescaled(to: timescale, rounding: .down).value
            return v < 1 << 60 ? v + offset : nil
        }
        let now = bound.now.flatMap { $0 >= bound.start ? ticks($0 - bound.start) : offset }
        let end = bound.end.flatMap { $0 >= bound.start ? ticks($0 - bound.start) : offset }
        var runs: [(start: Int64, duration: Int64, count: Int64, number: Int)] = []
        if let timeline = own?.child("SegmentTimeline") ?? inherited?.child("SegmentTimeline") {
            // r="-1" runs to the next S, the Period's end, or now (the segments ended by then)
            var number = startNumber
            for run in try DASHImport.runs(timeline, timescale: timescale, end: end ?? now, whole: true, maxCount: Int64(maxListed), what: "live DASH source") {
                guard Int64(number) + run.count < 1 << 48 else { throw StoreError.unsupported("live DASH source: segment numbers past any bound") }
                runs.append((run.start, run.duration, run.count, number))
                number += Int(run.count)
            }
        } else {
            guard let d = Int64(attribute("duration") ?? ""), d > 0, d <= timescale * 3600 else {
                throw StoreError.unsupported("live DASH source: a SegmentTemplate with neither a SegmentTimeline nor a duration")
            }
            // segment k spans [k·d, (k+1)·d) of the Period: listed once its end has passed
            guard let limit = now ?? end else { throw StoreError.unsupported("live DASH source: a SegmentTemplate@duration without availabilityStartTime") }
            var count = max(0, (limit - offset) / d)
            if let end, end < limit { count = max(0, (end - offset + d - 1) / d) }
            guard Int64(startNumber) + count < 1 << 48 else { throw StoreError.unsupported("live DASH source: segment numbers past any bound") }
            if count > 0 { runs.append((offset, d, count, startNumber)) }
        }
        // materialized from the newest back (the window is applied by the caller; this bounds the work)
        var segments: [(uri: String, number: Int, start: Int64, duration: Int64)] = []
        outer: for run in runs.reversed() {
            var k = run.count - 1
            while k >= 0 {
                if segments.count >= LivePlaylist.maxSegments { break outer }
                let start = run.start + run.duration * k
                var duration = run.duration
                if let end, start + duration > end { duration = end - start }
                if let end, start >= end { k -= 1; continue }
                let number = run.number + Int(k)
                let uri = DASHImport.join(base, try DASHImport.expandTemplate(media, id: id, bandwidth: bandwidth, number: number, time: start))
                segments.append((uri, number, start, duration))
                k -= 1
            }
        }
        segments.reverse()
        let initURI = DASHImport.join(base, try DASHImport.expandTemplate(initialization, id: id, bandwidth: bandwidth, number: startNumber, time: 0))
        return Listed(initialization: initURI, timescale: timescale, presentationTimeOffset: offset, segments: segments,
                      numbersImplied: !media.contains("$Number") && attribute("startNumber") == nil)
    }

    /// Most SCTE-35 Events read of one Period (its streams together).
    static let maxEvents = 1_000

    /// The SCTE-35 Events of `period`'s EventStreams (at most `maxEvents`); those whose
    /// payload cannot be read are signalled by their duration alone, or left out.
    private static func events(_ period: XMLElementNode) throws -> [Event] {
        var out: [Event] = []
        for stream in period.children("EventStream") where eventSchemes.contains(stream.attribute("schemeIdUri") ?? "") && out.count < maxEvents {
            let scheme = stream.attribute("schemeIdUri") ?? ""
            guard let timescale = Int64(stream.attribute("timescale") ?? "1"), timescale > 0, timescale <= 10_000_000,
                  let offset = Int64(stream.attribute("presentationTimeOffset") ?? "0"), offset >= 0, offset < 1 << 60 else {
                throw StoreError.unsupported("live DASH source: an EventStream's timescale or presentationTimeOffset is out of range")
            }
            for event in stream.children("Event").prefix(maxEvents - out.count) {
                guard let t = Int64(event.attribute("presentationTime") ?? "0"), t >= offset, t < 1 << 60 else { continue }
                let duration = event.attribute("duration").flatMap { Int64($0) }.flatMap { $0 >= 0 && $0 < 1 << 50 ? $0 : nil }
                let id = UInt32(truncatingIfNeeded: Int64(event.attribute("id") ?? "") ?? Int64(t & 0xFFFF_FFFF))
                var section: SCTE35Section?
                switch scheme {
                case "urn:scte:scte35:2014:xml+bin":
                    section = binary(event.child("Signal")?.childText("Binary"))
                case "urn:scte:scte35:2013:bin":
                    section = binary(event.trimmedText)
                default:
                    section = event.child("SpliceInfoSection").flatMap(xmlSection)
                }
                if section == nil, let duration {
                    // a Event with a duration and no section this reader takes: a break of that length
                    let ticks = MediaTime(value: duration, timescale: timescale).mpegTicks
                    section = SCTE35Section(command: .spliceInsert(.init(eventID: id, outOfNetwork: true, breakDuration: UInt64(ticks), autoReturn: true)))
                }
                guard let section else { continue }
                out.append(Event(periodTime: MediaTime(value: t - offset, timescale: timescale), section: section))
            }
        }
        return out
    }

    /// How long after its splice time a section's break lasts (its break or segmentation
    /// duration; zero for an end or a section without one).
    static func reach(_ s: SCTE35Section) -> MediaTime {
        switch s.command {
        case .spliceInsert(let i) where i.outOfNetwork && !i.cancel:
            return MediaTime(value: Int64(i.breakDuration ?? 0), timescale: 90_000)
        case .timeSignal:
            let d = s.segmentation.filter { $0.kind?.isStart == true }.compactMap(\.duration).max() ?? 0
            return MediaTime(value: Int64(min(d, 1 << 40)), timescale: 90_000)
        default:
            return .zero
        }
    }

    /// A base64 SCTE-35 section (at most 4 KiB), nil when it does not decode.
    static func binary(_ text: String?) -> SCTE35Section? {
        guard let text, text.count <= 8_192,
              let bytes = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines), options: .ignoreUnknownCharacters) else { return nil }
        return try? SCTE35Section(parsing: [UInt8](bytes))
    }

    /// An SCTE 35 XML `SpliceInfoSection` (SCTE 35 2022 §11): a `SpliceInsert` or a
    /// `TimeSignal` with its `SegmentationDescriptor`s; nil for anything else.
    static func xmlSection(_ x: XMLElementNode) -> SCTE35Section? {
        func flag(_ n: XMLElementNode, _ name: String) -> Bool { ["true", "1"].contains(n.attribute(name) ?? "") }
        func number(_ n: XMLElementNode?, _ name: String) -> UInt64? { n?.attribute(name).flatMap { UInt64($0) } }
        let adjustment = number(x, "ptsAdjustment") ?? 0
        if let i = x.child("SpliceInsert") {
            guard let id = number(i, "spliceEventId"), id <= UInt64(UInt32.max) else { return nil }
            let time = number(i.child("Program")?.child("SpliceTime"), "ptsTime")
            let duration = i.child("BreakDuration")
            return SCTE35Section(ptsAdjustment: adjustment, command: .spliceInsert(.init(
                eventID: UInt32(id), cancel: flag(i, "spliceEventCancelIndicator"), outOfNetwork: flag(i, "outOfNetworkIndicator"),
                immediate: flag(i, "spliceImmediateFlag"), ptsTime: time, breakDuration: number(duration, "duration"),
                autoReturn: duration.map { flag($0, "autoReturn") } ?? false)))
        }
        if let signal = x.child("TimeSignal") {
            let descriptors = x.children("SegmentationDescriptor").prefix(16).compactMap { d -> SCTE35Section.SegmentationDescriptor? in
                guard let id = number(d, "segmentationEventId"), id <= UInt64(UInt32.max) else { return nil }
                let type = number(d, "segmentationTypeId") ?? 0
                return .init(eventID: UInt32(id), cancel: flag(d, "segmentationEventCancelIndicator"), typeID: UInt8(truncatingIfNeeded: type),
                             duration: number(d, "segmentationDuration"), segmentNum: UInt8(truncatingIfNeeded: number(d, "segmentNum") ?? 0),
                             segmentsExpected: UInt8(truncatingIfNeeded: number(d, "segmentsExpected") ?? 0))
            }
            return SCTE35Section(ptsAdjustment: adjustment, command: .timeSignal(ptsTime: number(signal.child("SpliceTime"), "ptsTime")),
                                 segmentation: descriptors)
        }
        return nil
    }
}

extension Array {
    /// Nil when empty.
    var nonEmpty: [Element]? { isEmpty ? nil : self }
}
