import Ads
import Foundation
import Manifest
import Media
import Timing

/// Reads a static DASH origin (an MPD of CMAF segments) into the store as `HLSImport` reads an
/// HLS one: each video Representation a rung of MPEG-TS segments made once by
/// `FragmentRemux` (its packets copied, with the audio of the first audio AdaptationSet's best
/// Representation that falls in each segment's time), then packaged, cut and served as an HLS
/// origin is. What it takes: Periods (up to 100, each with the same video Representations, a
/// later one's timestamps moved onto the presentation's timeline: the rung is one stream);
/// `SegmentTemplate` (on the AdaptationSet or the Representation) with a `SegmentTimeline` or a
/// `@duration`, `$RepresentationID$`, `$Bandwidth$`, `$Number$` and `$Time$` (with a `%0Nd`
/// width); `SegmentList` of `SegmentURL@media` files or of `@mediaRange` byte ranges of one file;
/// `SegmentBase` (one file, its segments and exact durations in its `sidx`); a file of byte
/// ranges is fetched whole once and cut here. Nominal durations (`@duration`) are measured: each
/// segment lasts from its first picture to the next one's. Relative `BaseURL`s, each Period's
/// SCTE-35 `EventStream`s as origin cues (at the segment starting nearest each), WebVTT text
/// AdaptationSets (WebVTT, or TTML read by `TTMLImport`; a file per Period, or WebVTT or TTML
/// in MP4 segments read by `MP4TextCues`) as subtitle tracks. What it refuses in one
/// line: a dynamic MPD (a live origin: `LiveMPD`), Periods with other video Representations
/// than the first, a hierarchical `sidx`, more than 10,000 segments. Encrypted media
/// (`ContentProtection`) is kept as it came instead (`ProtectedCMAFImport`). The
/// MPD comes from a network: it is read by the project's hardened XML reader (no DTD, no entities).
enum DASHImport {
    /// One Representation's segments, as URIs relative to the MPD.
    struct Track: Equatable {
        var id: String
        var bandwidth: Int
        var width: Int
        var height: Int
        var codecs: String?
        /// The initialization segment's URI.
        var initialization: String
        /// The media segments' URIs, in order.
        var media: [String]
        /// Each media segment's duration, in `timescale` ticks.
        var durations: [Int64]
        var timescale: Int64
        /// Each media segment's start on the Period's timeline (less `presentationTimeOffset`), in `timescale` ticks.
        var starts: [Int64] = []
        /// The SegmentTemplate's `presentationTimeOffset`, in `timescale` ticks.
        var presentationTimeOffset: Int64 = 0
        /// One file holding the initialization and media segments at byte ranges (`SegmentBase`,
        /// `SegmentList@mediaRange`): its URI, fetched once and cut here (no range requests).
        var file: String? = nil
        var initRange: ClosedRange<Int64>? = nil
        var ranges: [ClosedRange<Int64>] = []
        /// `SegmentBase`: where its `sidx` is (the segments are read from it once the file is fetched).
        var indexRange: ClosedRange<Int64>? = nil
        /// The durations are nominal (a `@duration`): the segments' lengths are measured from their pictures.
        var nominal = false
        /// Its AdaptationSet's `ContentProtection`s (with its own): empty when it is clear.
        var protection: [DASH.ContentProtection] = []
        /// An audio Representation's `@lang`, `@audioSamplingRate` and channel count, as given.
        var language: String? = nil
        var sampleRate: Int? = nil
        var channels: Int? = nil
        /// The number of media segments.
        var count: Int { file == nil ? media.count : ranges.count }
    }

    /// A text AdaptationSet the import takes: a WebVTT file for the whole Period (a
    /// Representation's `BaseURL`, cue times from the Period's start).
    struct TextTrack: Equatable {
        var name: String
        var language: String?
        var url: String
        /// TTML (`application/ttml+xml`, read by `TTMLImport`) rather than WebVTT.
        var ttml = false
        /// WebVTT or TTML in MP4 segments (`wvtt`, `stpp`; `MP4TextCues`) rather than a file:
        /// the Representation's segments (cue times on its media timeline, less its
        /// `presentationTimeOffset`); nil: `url` is the Period's file.
        var segmented: Track? = nil
    }

    /// Largest WebVTT file read for a Period.
    static let maxTextBytes: Int64 = 4 << 20

    /// Most segments read of one Representation.
    static let maxSegments = 10_000

    /// Whether `text` is an MPD (rather than an HLS playlist).
    static func isMPD(_ text: String) -> Bool {
        let head = text.prefix(1024)
        return head.contains("<MPD") && !head.hasPrefix("#EXTM3U")
    }

    /// One Period's tracks: its start on the presentation's timeline, the video Representations
    /// (largest picture first), the audio one taken (the highest bandwidth of every audio
    /// Representation), its SCTE-35 cues and WebVTT files (times from the Period's start).
    struct PeriodTracks {
        var start: MediaTime
        var video: [Track]
        var audio: Track?
        var cues: [MediaTime]
        var texts: [TextTrack]
        /// The main audio AdaptationSet's language (its `Role` `main`, else the first), when
        /// there are others.
        var mainAudio: PackagedAudioTrack? = nil
        /// Each other audio AdaptationSet (another language): its best Representation.
        var languages: [(track: Track, audio: PackagedAudioTrack)] = []
    }

    /// Most Periods read.
    static let maxPeriods = 100

    /// The Periods of `text`, and what was left out (one line each).
    static func periods(_ text: String) throws -> (periods: [PeriodTracks], notes: [String]) {
        let root: XMLElementNode
        do { root = try XMLTreeParser().parse(Data(text.utf8)).root } catch {
            throw StoreError.unsupported("DASH source: the MPD is not well-formed XML: \(error)")
        }
        guard root.name == "MPD" else { throw StoreError.unsupported("DASH source: the document is not an MPD") }
        guard (root.attribute("type") ?? "static") == "static" else {
            throw StoreError.unsupported("DASH source: a dynamic MPD is a live origin (--live, not --content)")
        }
        let elements = root.children("Period")
        guard !elements.isEmpty, elements.count <= maxPeriods else {
            throw StoreError.unsupported("DASH source: \(elements.count) Periods (1 to \(maxPeriods) are read)")
        }
        let whole = try root.attribute("mediaPresentationDuration").map(duration)
        // each Period's start and length: its start (else the one before's end), to the next's start (else its duration, else the presentation's end)
        var starts: [MediaTime] = []
        for (i, p) in elements.enumerated() {
            if let s = p.attribute("start") { starts.append(try duration(s, allowingZero: true)) }
            else if i == 0 { starts.append(.zero) }
            else if let d = elements[i - 1].attribute("duration") { starts.append(starts[i - 1] + (try duration(d))) }
            else { throw StoreError.unsupported("DASH source: Period \(i + 1) has neither a start nor a Period with a duration before it") }
            if i > 0, starts[i] <= starts[i - 1] { throw StoreError.unsupported("DASH source: Period \(i + 1) does not start after the one before it") }
        }
        var out: [PeriodTracks] = [], notes: [String] = []
        for (i, period) in elements.enumerated() {
            let total = try period.attribute("duration").map(duration)
                ?? (i + 1 < elements.count ? starts[i + 1] - starts[i] : whole.map { $0 - starts[i] })
            let base = [root, period].compactMap { $0.childText("BaseURL") }.reduce("") { join($0, $1) }
            var video: [Track] = [], texts: [TextTrack] = []
            var audioSets: [(node: XMLElementNode, tracks: [Track])] = []
            for set in period.children("AdaptationSet") {
                // an encrypted AdaptationSet's descriptors (its own and its Representations'): the content is kept as it came (`ProtectedCMAFImport`)
                var protection = try ProtectedCMAF.descriptors(set)
                for rep in set.children("Representation") { for d in try ProtectedCMAF.descriptors(rep) where !protection.contains(d) { protection.append(d) } }
                let kind = set.attribute("contentType") ?? set.attribute("mimeType")?.split(separator: "/").first.map(String.init) ?? ""
                let setBase = join(base, set.childText("BaseURL") ?? "")
                if kind == "text" || kind == "application" {
                    // subtitles: a WebVTT or TTML file per Period, or WebVTT or TTML in MP4 segments; other text is left out
                    for rep in set.children("Representation") {
                        let name = set.attribute("label") ?? rep.attribute("id") ?? set.attribute("lang") ?? "text"
                        let mime = rep.attribute("mimeType") ?? set.attribute("mimeType") ?? ""
                        let codecs = rep.attribute("codecs") ?? set.attribute("codecs") ?? ""
                        if mime == "application/mp4", codecs.hasPrefix("wvtt") || codecs.hasPrefix("stpp"), protection.isEmpty {
                            guard let t = try listedTrack(rep, in: set, base: join(setBase, rep.childText("BaseURL") ?? ""), total: total) else {
                                notes.append("subtitles '\(name.prefix(64))' left out: MP4 text without a SegmentTemplate or SegmentList")
                                continue
                            }
                            texts.append(TextTrack(name: name, language: set.attribute("lang") ?? rep.attribute("lang"), url: t.initialization,
                                                   ttml: codecs.hasPrefix("stpp"), segmented: t))
                            continue
                        }
                        let file = rep.childText("BaseURL")?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
                        guard mime == "text/vtt" || mime == "application/ttml+xml", !file.isEmpty, rep.child("SegmentTemplate") == nil,
                              set.child("SegmentTemplate") == nil else {
                            notes.append("subtitles '\(name.prefix(64))' left out: a WebVTT or TTML file per Period, or WebVTT or TTML in MP4 segments, are read (\(mime.prefix(40)) \(codecs.prefix(40)))")
                            continue
                        }
                        texts.append(TextTrack(name: name, language: set.attribute("lang") ?? rep.attribute("lang"), url: join(setBase, file),
                                               ttml: mime == "application/ttml+xml"))
                    }
                    continue
                }
                for rep in set.children("Representation") {
                    let repKind = kind.isEmpty ? rep.attribute("mimeType")?.split(separator: "/").first.map(String.init) ?? "" : kind
                    guard repKind == "video" || repKind == "audio" else { continue }
                    let repBase = join(setBase, rep.childText("BaseURL") ?? "")
                    var t: Track
                    if let listed = try listedTrack(rep, in: set, base: repBase, total: total) {
                        t = listed
                    } else if let segmentBase = rep.child("SegmentBase") ?? set.child("SegmentBase") {
                        t = try baseTrack(rep, base: segmentBase, file: repBase)
                    } else {
                        throw StoreError.unsupported("DASH source: a Representation without a SegmentTemplate, SegmentList or SegmentBase")
                    }
                    guard protection.count <= ProtectedCMAF.maxDescriptors else {
                        throw StoreError.unsupported("DASH source: more than \(ProtectedCMAF.maxDescriptors) ContentProtection descriptors")
                    }
                    t.protection = protection
                    if repKind == "audio" {
                        t.language = set.attribute("lang") ?? rep.attribute("lang")
                        t.sampleRate = Int(rep.attribute("audioSamplingRate") ?? set.attribute("audioSamplingRate") ?? "")
                        t.channels = Int((rep.child("AudioChannelConfiguration") ?? set.child("AudioChannelConfiguration"))?.attribute("value") ?? "")
                    }
                    if repKind == "video" { video.append(t) }
                    else if let last = audioSets.last, last.node == set { audioSets[audioSets.count - 1].tracks.append(t) }
                    else { audioSets.append((set, [t])) }
                }
            }
            guard !video.isEmpty else { throw StoreError.unsupported("DASH source: no video Representation in Period \(i + 1)") }
            // the Period's SCTE-35 events (XML or binary in XML): where its breaks are
            var cues: [MediaTime] = []
            for stream in period.children("EventStream") where (stream.attribute("schemeIdUri") ?? "").hasPrefix("urn:scte:scte35:") {
                let timescale = Int64(stream.attribute("timescale") ?? "1") ?? 0
                let offset = Int64(stream.attribute("presentationTimeOffset") ?? "0") ?? 0
                guard timescale > 0, timescale <= 10_000_000 else { throw StoreError.unsupported("DASH source: an EventStream's timescale is out of range") }
                for event in stream.children("Event").prefix(1_000) {
                    guard let t = Int64(event.attribute("presentationTime") ?? "0"), t >= offset else { continue }
                    cues.append(MediaTime(value: t - offset, timescale: timescale))
                }
            }
            // the largest picture first (then the higher bandwidth): the top rung
            // the main audio AdaptationSet (its Role main, else the first) is the ladder's sound, each other one a language
            let main = mainAudio(audioSets.map(\.node)) ?? 0
            func best(_ set: (node: XMLElementNode, tracks: [Track])) -> Track? { set.tracks.max { $0.bandwidth < $1.bandwidth } }
            func described(_ node: XMLElementNode, isDefault: Bool) -> PackagedAudioTrack {
                let language = node.attribute("lang")
                let channels = node.child("AudioChannelConfiguration")?.attribute("value")
                    ?? node.children("Representation").first?.child("AudioChannelConfiguration")?.attribute("value")
                return PackagedAudioTrack(HLS.Rendition(type: .audio, groupID: "audio", name: node.attribute("label") ?? language ?? node.attribute("id") ?? "audio",
                                                        language: language, isDefault: isDefault, autoselect: true, channels: channels))
            }
            var period = PeriodTracks(start: starts[i], video: video.sorted { ($0.width * $0.height, $0.bandwidth) > ($1.width * $1.height, $1.bandwidth) },
                                      audio: audioSets.indices.contains(main) ? best(audioSets[main]) : nil, cues: cues.sorted(), texts: texts)
            if audioSets.count > 1 {
                period.mainAudio = described(audioSets[main].node, isDefault: true)
                for (n, set) in audioSets.enumerated() where n != main {
                    guard period.languages.count < HLSImport.maxLanguages else {
                        notes.append("audio '\((set.node.attribute("lang") ?? "?").prefix(64))' left out: more than \(HLSImport.maxLanguages + 1) audio AdaptationSets")
                        continue
                    }
                    if let t = best(set) { period.languages.append((t, described(set.node, isDefault: false))) }
                }
            }
            out.append(period)
        }
        // every Period carries the same rungs: the content is one ladder
        let shape = out[0].video.map { "\($0.width)x\($0.height)" }
        if let odd = out.firstIndex(where: { $0.video.map { "\($0.width)x\($0.height)" } != shape }) {
            throw StoreError.unsupported("DASH source: Period \(odd + 1) has other video Representations than the first (\(shape.joined(separator: ", ")))")
        }
        if out.contains(where: { ($0.audio == nil) != (out[0].audio == nil) }) {
            throw StoreError.unsupported("DASH source: some Periods have audio and some do not")
        }
        // several Periods: the same languages in each (by `lang`, in order), or only the main sound
        func languages(_ p: PeriodTracks) -> [String?] { p.languages.map(\.audio.language) }
        if out.count > 1, out.contains(where: { languages($0) != languages(out[0]) || $0.mainAudio?.language != out[0].mainAudio?.language }) {
            notes.append("audio languages besides the main one are left out: the Periods do not all have the same ones")
            for i in out.indices { out[i].languages = []; out[i].mainAudio = nil }
        }
        // several Periods: the same text tracks in each (by `lang` and name, in order), or none
        func texts(_ p: PeriodTracks) -> [String] { p.texts.map { "\($0.language ?? "")|\($0.name)|\($0.ttml)" } }
        if out.count > 1, out.contains(where: { texts($0) != texts(out[0]) }) {
            notes.append("subtitles are left out: the Periods do not all have the same text tracks")
            for i in out.indices { out[i].texts = [] }
        }
        return (out, notes)
    }

    /// One run of a `SegmentTimeline`: `count` segments of `duration` ticks from `start`.
    struct TimelineRun: Equatable {
        var start: Int64, duration: Int64, count: Int64
    }

    /// The runs of `timeline` (its `S` elements: `@t`, `@d`, `@r`), every number bounded: a
    /// duration of up to an hour, times under 2^60, at most `maxCount` segments in all. `r="-1"`
    /// repeats to the next `S`'s `@t`, else to `end` (ticks): only the segments that end by it
    /// (`whole`: live, what is available), or also one that `end` cuts short (a Period's last).
    /// `what` begins each one-line refusal ("DASH source", "live DASH source").
    static func runs(_ timeline: XMLElementNode, timescale: Int64, end: Int64?, whole: Bool, maxCount: Int64, what: String) throws -> [TimelineRun] {
        let entries = timeline.children("S")
        guard entries.count <= maxCount else { throw StoreError.unsupported("\(what): a SegmentTimeline of \(entries.count) S") }
        var out: [TimelineRun] = [], next: Int64 = 0, total: Int64 = 0
        for (j, s) in entries.enumerated() {
            guard let d = Int64(s.attribute("d") ?? ""), d > 0, d <= timescale * 3600 else {
                throw StoreError.unsupported("\(what): an S without a duration of up to an hour")
            }
            if let t = s.attribute("t") {
                guard let v = Int64(t), v >= 0, v < 1 << 60 else { throw StoreError.unsupported("\(what): an S with a bad t") }
                next = v
            }
            guard let r = Int64(s.attribute("r") ?? "0"), r >= -1 else { throw StoreError.unsupported("\(what): an S with a bad r") }
            var count = r + 1
            if r == -1 {
                let limit = j + 1 < entries.count ? entries[j + 1].attribute("t").flatMap { Int64($0) } ?? end : end
                guard let limit else { throw StoreError.unsupported("\(what): r=\"-1\" with nothing to end it") }
                count = max(0, whole ? (limit - next) / d : (limit - next + d - 1) / d)
            }
            total += count
            guard total <= maxCount else { throw StoreError.unsupported("\(what): more than \(maxCount) segments") }
            guard next + d * count < 1 << 61 else { throw StoreError.unsupported("\(what): a SegmentTimeline past any time") }
            if count > 0 { out.append(TimelineRun(start: next, duration: d, count: count)) }
            next += d * count
        }
        return out
    }

    /// Every segment of `runs`, `(start, duration)`.
    static func segments(_ runs: [TimelineRun]) -> (starts: [Int64], durations: [Int64]) {
        var starts: [Int64] = [], durations: [Int64] = []
        for run in runs {
            for k in 0..<run.count { starts.append(run.start + run.duration * k); durations.append(run.duration) }
        }
        return (starts, durations)
    }

    /// A Representation's segments from its `SegmentList`: `SegmentURL@media` (each joined to
    /// `base`), or `@mediaRange` byte ranges of the one file `base` names; times from its
    /// `SegmentTimeline`, else its `@duration` (nominal: measured from the pictures when fetched).
    static func listTrack(_ rep: XMLElementNode, list: XMLElementNode, base: String, total: MediaTime?) throws -> Track {
        guard let id = rep.attribute("id"), !id.isEmpty else { throw StoreError.unsupported("DASH source: a Representation without an id") }
        let timescale = Int64(list.attribute("timescale") ?? "1") ?? 0
        let offset = Int64(list.attribute("presentationTimeOffset") ?? "0") ?? -1
        guard timescale > 0, timescale <= 10_000_000, offset >= 0 else { throw StoreError.unsupported("DASH source: a SegmentList's timescale is out of range") }
        let urls = list.children("SegmentURL")
        guard !urls.isEmpty, urls.count <= maxSegments else { throw StoreError.unsupported("DASH source: a SegmentList of \(urls.count) segments") }
        var t = Track(id: id, bandwidth: Int(rep.attribute("bandwidth") ?? "") ?? 0, width: Int(rep.attribute("width") ?? "") ?? 0,
                      height: Int(rep.attribute("height") ?? "") ?? 0, codecs: rep.attribute("codecs"), initialization: "", media: [],
                      durations: [], timescale: timescale, presentationTimeOffset: offset)
        let initialization = list.child("Initialization")
        if urls.allSatisfy({ $0.attribute("media") == nil && $0.attribute("mediaRange") != nil }) {
            // one file, byte ranges
            t.file = base
            t.initRange = try initialization?.attribute("range").map(byteRange)
            t.ranges = try urls.map { try byteRange($0.attribute("mediaRange") ?? "") }
            guard t.initRange != nil else { throw StoreError.unsupported("DASH source: a SegmentList of byte ranges without an Initialization range") }
        } else {
            guard urls.allSatisfy({ $0.attribute("media") != nil && $0.attribute("mediaRange") == nil }),
                  let source = initialization?.attribute("sourceURL") else {
                throw StoreError.unsupported("DASH source: a SegmentList mixing files and byte ranges, or without an Initialization sourceURL")
            }
            t.initialization = join(base, source)
            t.media = urls.map { join(base, $0.attribute("media")!) }
        }
        let count = urls.count
        if let timeline = list.child("SegmentTimeline") {
            let end = total.map { $0.rescaled(to: timescale, rounding: .up).value + offset }
            (t.starts, t.durations) = segments(try runs(timeline, timescale: timescale, end: end, whole: false, maxCount: Int64(maxSegments), what: "DASH source"))
            guard t.starts.count >= count else { throw StoreError.unsupported("DASH source: a SegmentTimeline shorter than its SegmentList") }
            t.starts = Array(t.starts.prefix(count)).map { $0 - offset }
            t.durations = Array(t.durations.prefix(count))
        } else {
            guard let d = Int64(list.attribute("duration") ?? ""), d > 0 else { throw StoreError.unsupported("DASH source: a SegmentList with neither a SegmentTimeline nor a duration") }
            let ticks = total?.rescaled(to: timescale, rounding: .up).value ?? d * Int64(count)
            for i in 0..<count { t.starts.append(Int64(i) * d); t.durations.append(max(1, min(d, ticks - Int64(i) * d))) }
            t.nominal = true
        }
        return t
    }

    /// A Representation of one file (`SegmentBase`): its initialization segment at
    /// `Initialization@range`, its segments and their exact times in the `sidx` box at `@indexRange`
    /// (read once the file is fetched: `resolvingIndex`).
    static func baseTrack(_ rep: XMLElementNode, base: XMLElementNode, file: String) throws -> Track {
        guard let id = rep.attribute("id"), !id.isEmpty, !file.isEmpty else { throw StoreError.unsupported("DASH source: a SegmentBase Representation without an id or a BaseURL") }
        guard let index = base.attribute("indexRange"), let initRange = base.child("Initialization")?.attribute("range") else {
            throw StoreError.unsupported("DASH source: a SegmentBase without an indexRange and an Initialization range")
        }
        var t = Track(id: id, bandwidth: Int(rep.attribute("bandwidth") ?? "") ?? 0, width: Int(rep.attribute("width") ?? "") ?? 0,
                      height: Int(rep.attribute("height") ?? "") ?? 0, codecs: rep.attribute("codecs"), initialization: "", media: [],
                      durations: [], timescale: Int64(base.attribute("timescale") ?? "1") ?? 1,
                      presentationTimeOffset: Int64(base.attribute("presentationTimeOffset") ?? "0") ?? 0)
        t.file = file
        t.initRange = try byteRange(initRange)
        t.indexRange = try byteRange(index)
        return t
    }

    /// Which of a Period's audio AdaptationSets is its main sound: the first whose `Role` is
    /// `main`, else the first; nil for none.
    static func mainAudio(_ sets: [XMLElementNode]) -> Int? {
        sets.firstIndex { $0.children("Role").contains { $0.attribute("value") == "main" } } ?? (sets.isEmpty ? nil : 0)
    }

    /// `first-last` (bytes, both included).
    static func byteRange(_ text: String) throws -> ClosedRange<Int64> {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let a = Int64(parts[0]), let b = Int64(parts[1]), a >= 0, b >= a, b < 1 << 40 else {
            throw StoreError.unsupported("DASH source: a byte range \(text.prefix(40))")
        }
        return a...b
    }

    /// `t` with its segments read from the `sidx` box at its `indexRange` in `file` (its one
    /// file, on disk): each reference a segment (its byte range after the box, its exact
    /// duration); other tracks as they are. Only the box is read.
    static func resolvingIndex(_ t: Track, in file: URL) throws -> Track {
        guard let index = t.indexRange else { return t }
        var t = t
        func fail(_ why: String) -> StoreError { StoreError.unsupported("DASH source: the sidx of \(t.id.prefix(40)): \(why)") }
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        let fileSize = Int64(try handle.seekToEnd())
        guard index.upperBound < fileSize, index.count >= 32 else { throw fail("its indexRange is outside the file") }
        func read(_ offset: Int64, _ count: Int) throws -> [UInt8] {
            try handle.seek(toOffset: UInt64(offset))
            return [UInt8](try handle.read(upToCount: count) ?? Data())
        }
        let header = try read(index.lowerBound, 8)
        let size = header.count == 8 ? Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3]) : 0
        // a box of at most maxSegments references (12 bytes each) after its 32-byte header
        guard header.count == 8, header[4..<8].elementsEqual("sidx".utf8), size >= 32, size <= 64 + 12 * maxSegments,
              index.lowerBound + Int64(size) <= fileSize else { throw fail("no sidx box there") }
        let b = try read(index.lowerBound, size)
        guard b.count == size else { throw fail("no sidx box there") }
        var o = 8
        func u32() -> UInt64 { defer { o += 4 }; return UInt64(b[o]) << 24 | UInt64(b[o + 1]) << 16 | UInt64(b[o + 2]) << 8 | UInt64(b[o + 3]) }
        let version = b[o]; o += 4
        o += 4                                   // reference_ID
        let timescale = Int64(u32())
        guard timescale > 0, timescale <= 10_000_000 else { throw fail("a timescale out of range") }
        let earliest: UInt64, firstOffset: UInt64
        if version == 0 { earliest = u32(); firstOffset = u32() } else {
            guard o + 16 <= size else { throw fail("truncated") }
            earliest = u32() << 32 | u32(); firstOffset = u32() << 32 | u32()
        }
        guard o + 4 <= size else { throw fail("truncated") }
        o += 2                                   // reserved
        let count = Int(b[o]) << 8 | Int(b[o + 1])
        o += 2
        guard count > 0, count <= maxSegments, o + count * 12 <= size else { throw fail("\(count) references that do not fit") }
        var at = index.lowerBound + Int64(size) + Int64(firstOffset), time = Int64(earliest)
        // the SegmentBase's presentationTimeOffset, in the sidx's ticks
        let offset = MediaTime(value: t.presentationTimeOffset, timescale: max(1, t.timescale)).rescaled(to: timescale, rounding: .nearest).value
        t.timescale = timescale
        t.presentationTimeOffset = offset
        t.ranges = []; t.starts = []; t.durations = []
        for _ in 0..<count {
            let word = u32()
            guard word >> 31 == 0 else { throw fail("a reference to another sidx (a hierarchical index is not read)") }
            let length = Int64(word & 0x7FFF_FFFF), d = Int64(u32())
            o += 4                                // SAP
            guard length > 0, d > 0 else { throw fail("an empty reference") }
            t.ranges.append(at...(at + length - 1)); t.starts.append(time - offset); t.durations.append(d)
            at += length; time += d
        }
        guard at <= fileSize else { throw fail("references past the file's end") }
        t.indexRange = nil
        return t
    }

    /// One Representation's segments from its template.
    /// `rep`'s segments as its (else its AdaptationSet `set`'s) `SegmentTemplate` or
    /// `SegmentList` lists them, URIs against `base` (the Representation's); nil when it has
    /// neither (a `SegmentBase`, or nothing).
    static func listedTrack(_ rep: XMLElementNode, in set: XMLElementNode, base: String, total: MediaTime?) throws -> Track? {
        if let template = rep.child("SegmentTemplate") ?? set.child("SegmentTemplate") {
            var t = try track(rep, template: template, total: total)
            t.initialization = join(base, t.initialization)
            t.media = t.media.map { join(base, $0) }
            return t
        }
        if let list = rep.child("SegmentList") ?? set.child("SegmentList") { return try listTrack(rep, list: list, base: base, total: total) }
        return nil
    }

    static func track(_ rep: XMLElementNode, template: XMLElementNode, total: MediaTime?) throws -> Track {
        guard let id = rep.attribute("id"), !id.isEmpty, let initialization = template.attribute("initialization"),
              let media = template.attribute("media") else {
            throw StoreError.unsupported("DASH source: a Representation without an id, or a SegmentTemplate without initialization and media")
        }
        let bandwidth = Int(rep.attribute("bandwidth") ?? "") ?? 0
        let timescale = Int64(template.attribute("timescale") ?? "1") ?? 0
        let offset = Int64(template.attribute("presentationTimeOffset") ?? "0") ?? -1
        let startNumber = Int(template.attribute("startNumber") ?? "1") ?? -1
        guard timescale > 0, timescale <= 10_000_000, startNumber >= 0, offset >= 0 else { throw StoreError.unsupported("DASH source: a SegmentTemplate's timescale or startNumber is out of range") }
        var starts: [Int64] = [], durations: [Int64] = []
        if let timeline = template.child("SegmentTimeline") {
            // r="-1" runs to the end of the Period
            let end = total.map { $0.rescaled(to: timescale, rounding: .up).value + offset }
            (starts, durations) = segments(try runs(timeline, timescale: timescale, end: end, whole: false, maxCount: Int64(maxSegments), what: "DASH source"))
        } else {
            guard let d = Int64(template.attribute("duration") ?? ""), d > 0, let total else {
                throw StoreError.unsupported("DASH source: a SegmentTemplate with neither a SegmentTimeline nor a duration")
            }
            let ticks = total.rescaled(to: timescale, rounding: .up).value
            let count = Int((ticks + d - 1) / d)
            guard count > 0, count <= maxSegments else { throw StoreError.unsupported("DASH source: \(count) segments") }
            for i in 0..<count { starts.append(Int64(i) * d); durations.append(min(d, ticks - Int64(i) * d)) }
        }
        guard !starts.isEmpty else { throw StoreError.unsupported("DASH source: a Representation without segments") }
        func expand(_ pattern: String, number: Int, time: Int64) throws -> String {
            try expandTemplate(pattern, id: id, bandwidth: bandwidth, number: number, time: time)
        }
        return Track(id: id, bandwidth: bandwidth, width: Int(rep.attribute("width") ?? "") ?? 0, height: Int(rep.attribute("height") ?? "") ?? 0,
                     codecs: rep.attribute("codecs"), initialization: try expand(initialization, number: startNumber, time: 0),
                     media: try starts.indices.map { try expand(media, number: startNumber + $0, time: starts[$0]) },
                     durations: durations, timescale: timescale, starts: starts.map { $0 - offset }, presentationTimeOffset: offset,
                     nominal: template.child("SegmentTimeline") == nil)
    }

    /// A template with its identifiers replaced (ISO/IEC 23009-1 §5.3.9.4.4): `$$`,
    /// `$RepresentationID$`, `$Bandwidth$`, `$Number$`, `$Time$`, the last three with an
    /// optional `%0Nd` width.
    static func expandTemplate(_ pattern: String, id: String, bandwidth: Int, number: Int, time: Int64) throws -> String {
        var out = "", rest = Substring(pattern)
        while let open = rest.firstIndex(of: "$") {
            out += rest[..<open]
            let after = rest[rest.index(after: open)...]
            guard let close = after.firstIndex(of: "$") else { throw StoreError.unsupported("DASH source: an unclosed $ in a SegmentTemplate") }
            let name = after[..<close]
            rest = after[after.index(after: close)...]
            if name.isEmpty { out += "$"; continue }
            let parts = name.split(separator: "%", maxSplits: 1)
            var width = 0
            if parts.count == 2 {
                guard parts[1].hasPrefix("0"), parts[1].hasSuffix("d"), let w = Int(parts[1].dropFirst().dropLast()), (1...20).contains(w) else {
                    throw StoreError.unsupported("DASH source: a format tag \(name) that is not %0Nd")
                }
                width = w
            }
            func padded(_ v: Int64) -> String { let s = String(v); return String(repeating: "0", count: max(0, width - s.count)) + s }
            switch parts[0] {
            case "RepresentationID": out += id
            case "Bandwidth": out += padded(Int64(bandwidth))
            case "Number": out += padded(Int64(number))
            case "Time": out += padded(time)
            default: throw StoreError.unsupported("DASH source: an identifier $\(name)$ that DASH does not define")
            }
        }
        return out + rest
    }

    /// An ISO 8601 duration (`PT1H2M3.5S`) as a time (to the millisecond): over 0 and under
    /// `limit` seconds (0 allowed with `allowingZero`: a Period's `start`).
    static func duration(_ text: String) throws -> MediaTime { try duration(text, allowingZero: false) }

    static func duration(_ text: String, allowingZero: Bool, limit: Double = 86_400 * 2) throws -> MediaTime {
        guard text.hasPrefix("PT") || text.hasPrefix("P0DT") || text.hasPrefix("P") else { throw StoreError.unsupported("DASH source: a duration \(text.prefix(40))") }
        var seconds = 0.0, number = ""
        var inTime = false
        for c in text.dropFirst() {
            switch c {
            case "T": inTime = true
            case "0"..."9", ".": number.append(c)
            case "D", "H", "M", "S":
                guard let v = Double(number), v.isFinite, v >= 0 else { throw StoreError.unsupported("DASH source: a duration \(text.prefix(40))") }
                switch c {
                case "D": seconds += v * 86_400
                case "H": seconds += v * 3600
                case "M": seconds += inTime ? v * 60 : v * 2_592_000
                default: seconds += v
                }
                number = ""
            default: throw StoreError.unsupported("DASH source: a duration \(text.prefix(40))")
            }
        }
        guard seconds > 0 || (allowingZero && seconds == 0), seconds < limit else { throw StoreError.unsupported("DASH source: a duration of \(seconds) s") }
        return MediaTime(seconds: seconds, timescale: 1000)
    }

    /// `base` and `uri` joined as a relative reference is resolved against it (an absolute
    /// `uri` stands alone; the MPD's own URL is applied later, `HLSLocation.resolve`).
    static func join(_ base: String, _ uri: String) -> String {
        let u = uri.trimmingCharacters(in: .whitespacesAndNewlines)
        if base.isEmpty || u.contains("://") || u.hasPrefix("/") { return u.isEmpty ? base : u }
        if u.isEmpty { return base }
        return base.hasSuffix("/") ? base + u : String(base[...(base.lastIndex(of: "/") ?? base.startIndex)]) + u
    }

    /// Fetches every video Representation's segments into `folder/<rung>/segNNNNN.ts` (top first),
    /// each remuxed with its time's audio, Period after Period: a later Period's timestamps moved
    /// onto the presentation's timeline (its start less its `presentationTimeOffset`), so that the
    /// rung is one stream; the MPD at `location` read as `text`. A track of one file (byte ranges)
    /// is fetched whole once and cut here.
    static func fetchAll(_ text: String, location: HLSLocation, folder: URL, timeout: Double, maxTotalBytes: Int64) async throws -> HLSImport.Fetched {
        let (periods, periodNotes) = try periods(text)
        var total: Int64 = 0
        func fetch(_ uri: String, to file: URL, maxBytes: Int64) async throws {
            try await HLSImport.fetch(try location.resolve(uri), to: file, maxBytes: maxBytes, timeout: timeout, total: &total, cap: maxTotalBytes,
                                      source: "DASH")
        }
        // the files of one-file tracks, fetched once and kept on disk while the import runs (a
        // whole movie's track is not held in memory; each piece is read from it by its range)
        var files: [String: URL] = [:]
        defer { for f in files.values { try? FileManager.default.removeItem(at: f) } }
        func local(_ uri: String) async throws -> URL {
            if let f = files[uri] { return f }
            let file = folder.appendingPathComponent(".file\(files.count)")
            files[uri] = file
            try await fetch(uri, to: file, maxBytes: maxTotalBytes)
            return file
        }
        /// `t` ready to read: a `SegmentBase` one's segments from its file's index.
        func resolved(_ t: Track) async throws -> Track {
            guard t.indexRange != nil, let f = t.file else { return t }
            return try resolvingIndex(t, in: try await local(f))
        }
        /// Writes `t`'s initialization segment (`index` nil) or media segment `index` to `file`.
        func piece(_ t: Track, _ index: Int?, to file: URL) async throws {
            if let f = t.file {
                let handle = try FileHandle(forReadingFrom: try await local(f))
                defer { try? handle.close() }
                let size = try handle.seekToEnd()
                guard let range = index.map({ t.ranges[$0] }) ?? t.initRange, range.upperBound < Int64(size),
                      range.count <= (index == nil ? HLSImport.maxInitBytes : HLSImport.maxSegmentBytes) else {
                    throw StoreError.unsupported("DASH source: a byte range past the end of \(f.prefix(200)), or larger than a segment may be")
                }
                try handle.seek(toOffset: UInt64(range.lowerBound))
                try (try handle.read(upToCount: Int(range.count)) ?? Data()).write(to: file)
            } else if let index {
                try await fetch(t.media[index], to: file, maxBytes: HLSImport.maxSegmentBytes)
            } else {
                try await fetch(t.initialization, to: file, maxBytes: HLSImport.maxInitBytes)
            }
        }
        /// `t` whole in `file`: its initialization segment, then every media segment.
        func wholeTrack(_ t: Track, to file: URL) async throws {
            try await piece(t, nil, to: file)
            let handle = try FileHandle(forWritingTo: file)
            defer { try? handle.close() }
            try handle.seekToEnd()
            let part = folder.appendingPathComponent(".audio-part")
            defer { try? FileManager.default.removeItem(at: part) }
            for i in 0..<t.count {
                try await piece(t, i, to: part)
                try handle.write(contentsOf: try Data(contentsOf: part))
            }
        }
        var notes = periodNotes
        // the subtitles, a file per Period: a cue at time t of Period p plays at presentation time
        // start(p) + t, which is media time start(p) − start(0) + t + the first Period's
        // presentationTimeOffset, on the store's MPEG-TS clock 10 s later (`HLSImport.cmafClockShift`),
        // where the video's is (encrypted media is not moved: its own clock); a cue repeated in
        // the next Period's file kept once
        let isProtected = ProtectedCMAFImport.isProtected(periods)
        // a Period's MP4 text: its initialization, then each segment (at most `maxTextBytes` in
        // all), its cues on the Period's timeline (media time less `presentationTimeOffset`),
        // a cue the segments cut made one again
        func segmentedCues(_ t: Track, file: URL) async throws -> [WebVTT.Cue] {
            try await fetch(t.initialization, to: file, maxBytes: 64 << 10)
            let header = try FragmentedTextTrack.header(try Data(contentsOf: file))
            let offset = MediaTime(value: t.presentationTimeOffset, timescale: t.timescale).mpegTicks
            var all: [WebVTT.Cue] = [], read: Int64 = 0
            for uri in t.media {
                try await fetch(uri, to: file, maxBytes: max(1, maxTextBytes - read))
                let data = try Data(contentsOf: file)
                read += Int64(data.count)
                for var c in try MP4TextCues.cues(data, header, what: String(uri.prefix(120))) {
                    c.start -= offset; c.end -= offset
                    if c.end > 0 { c.start = max(0, c.start); all.append(c) }
                }
                guard all.count <= SubtitleTrack.maxCues else { throw StoreError.unsupported("more than \(SubtitleTrack.maxCues) cues") }
            }
            return FragmentedTextTrack.merged(all)
        }
        let first = periods[0]
        var subtitles: [HLSSubtitleImport.Track] = []
        let top = first.video[0]
        let base = MediaTime(value: top.presentationTimeOffset, timescale: top.timescale).mpegTicks + (isProtected ? 0 : HLSImport.cmafClockShift.mpegTicks)
        for (n, t) in first.texts.prefix(SubtitleTrack.maxTracks).enumerated() {
            let file = folder.appendingPathComponent(".text\(n).vtt")
            defer { try? FileManager.default.removeItem(at: file) }
            do {
                var cues: [WebVTT.Cue] = [], seen = Set<WebVTT.Cue>()
                for period in periods where period.texts.indices.contains(n) {
                    let text = period.texts[n]
                    let read: [WebVTT.Cue]
                    if let segmented = text.segmented {
                        read = try await segmentedCues(segmented, file: file)
                    } else {
                        try await fetch(text.url, to: file, maxBytes: maxTextBytes)
                        read = text.ttml ? try TTMLImport.cues(try Data(contentsOf: file), what: "the TTML file") : try HLSSubtitleImport.cues(in: file, what: "the WebVTT file")
                    }
                    let shift = base + (period.start - first.start).mpegTicks
                    for var c in read {
                        c.start += shift; c.end += shift
                        if seen.insert(c).inserted { cues.append(c) }
                    }
                    guard cues.count <= SubtitleTrack.maxCues else { throw StoreError.unsupported("more than \(SubtitleTrack.maxCues) cues") }
                }
                subtitles.append(HLSSubtitleImport.Track(rendition: HLS.Rendition(type: .subtitles, groupID: "subs", name: t.name, language: t.language,
                                                                                  isDefault: subtitles.isEmpty, autoselect: true), cues: cues))
            } catch {
                notes.append("subtitles '\(t.name.prefix(64))' left out: \(String(describing: error).prefix(200))")
            }
        }
        // encrypted media is kept as it came, never remuxed (`ProtectedCMAFImport`)
        if isProtected {
            let kept = try await ProtectedCMAFImport.fetch(periods, folder: folder, notes: &notes, resolved: resolved, piece: piece)
            return HLSImport.Fetched(variants: [], subtitles: subtitles, notes: notes, protectedCMAF: kept)
        }
        var names: [String] = []
        var out: [HLSImport.FetchedVariant] = []
        // each rung's TS continuity counters, carried from Period to Period: one stream
        var counters = [[Int: UInt8]](repeating: [:], count: periods[0].video.count)
        // each other language (by its place among the Periods' languages): its variant, its rung's
        // continuity counters; a language that failed in a Period is left out whole
        var languageVariants: [Int: HLSImport.FetchedVariant] = [:], languageCounters: [Int: [Int: UInt8]] = [:], failedLanguages = Set<Int>()
        var cueTimes: [MediaTime] = [], segmentStarts: [MediaTime] = []
        for (p, period) in periods.enumerated() {
            // the Period's audio whole: its initialization segment and every segment, one fMP4 file
            var audio: URL?, audioTrack: Track?
            if let a = period.audio {
                let t = try await resolved(a)
                audioTrack = t
                let file = folder.appendingPathComponent(".audio\(p).mp4")
                try await wholeTrack(t, to: file)
                audio = file
            }
            defer { if let audio { try? FileManager.default.removeItem(at: audio) } }
            for (k, given) in period.video.enumerated() {
                let v = try await resolved(given)
                if p == 0 {
                    var name = v.height > 0 ? "\(v.height)p" : "main"
                    while names.contains(name) { name += "x" }
                    names.append(name)
                    let audioRate = audioTrack.map { max(32_000, $0.bandwidth) } ?? 128_000
                    let codecs = v.codecs.map { c in audioTrack?.codecs.map { c + "," + $0 } ?? c }
                    out.append(HLSImport.FetchedVariant(rendition: Rendition(name: name, width: v.width, height: v.height, videoBitrate: max(1000, v.bandwidth),
                                                                             audioBitrate: audioRate),
                                                        codecs: codecs, segmentCount: 0, cueSegments: []))
                }
                let dir = folder.appendingPathComponent(names[k])
                try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                let initFile = dir.appendingPathComponent(".init.mp4")
                defer { try? FileManager.default.removeItem(at: initFile) }
                try await piece(v, nil, to: initFile)
                // the Period's media time t plays at presentation time start + t − offset: moved there from the first Period's clock
                let offset = MediaTime(value: v.presentationTimeOffset, timescale: v.timescale)
                let firstOffset = MediaTime(value: first.video[0].presentationTimeOffset, timescale: first.video[0].timescale)
                let shift = HLSImport.cmafClockShift + (period.start - first.start) - (offset - firstOffset)
                let raws = (0..<v.count).map { dir.appendingPathComponent(".segment\($0).m4s") }
                defer { for r in raws { try? FileManager.default.removeItem(at: r) } }
                for (i, raw) in raws.enumerated() { try await piece(v, i, to: raw) }
                // each segment's length: the timeline's, or (nominal durations) from its first picture to the next one's
                var lengths = v.durations.map { MediaTime(value: $0, timescale: v.timescale) }
                if v.nominal, raws.count > 1 {
                    let pictures = try raws.map { try FragmentRemux.firstPicture(initialization: initFile, segment: $0, scratch: dir) }
                    for i in 0..<(raws.count - 1) { lengths[i] = pictures[i + 1] - pictures[i] }
                }
                // each segment's sound from its first picture for its length; from the track's start
                // only for the presentation's first segment and to its end only for its last (a
                // Period's audio segments may start before it and end after it: the Period bounds them)
                for (i, raw) in raws.enumerated() {
                    let n = out[k].segmentCount
                    let file = dir.appendingPathComponent(String(format: "seg%05d.ts", n))
                    try StoreRemux.segment(raw, initialization: initFile, to: file, shift: shift,
                                           audio: audio.map { FragmentRemux.AudioSpan(file: $0, length: lengths[i], first: i == 0 && p == 0, last: i == raws.count - 1 && p == periods.count - 1) },
                                           counters: &counters[k], what: "DASH source: segment \(i) of \(v.id.prefix(40))")
                    out[k].segmentCount += 1
                    if k == 0 { segmentStarts.append(period.start + MediaTime(value: v.starts[i], timescale: v.timescale)) }
                }
                // the lowest rung also carries each other language, in a rung of its own (as an HLS origin's
                // alternate audio), Period after Period: one stream, its segments numbered on
                guard k == period.video.count - 1, !period.languages.isEmpty else { continue }
                for (n, language) in period.languages.enumerated() where !failedLanguages.contains(n) {
                    let rung = "\(names[k])-audio\(n + 1)"
                    let langDir = folder.appendingPathComponent(rung)
                    let track = try await resolved(language.track)
                    let file = folder.appendingPathComponent(".audio-language\(n).mp4")
                    defer { try? FileManager.default.removeItem(at: file) }
                    do { try await wholeTrack(track, to: file) } catch {
                        // a language missing from one Period is missing: left out whole
                        notes.append("audio '\(language.audio.name.prefix(64))' left out: \(String(describing: error).prefix(200))")
                        failedLanguages.insert(n)
                        try? FileManager.default.removeItem(at: langDir)
                        continue
                    }
                    try FileManager.default.createDirectory(at: langDir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                    let first = languageVariants[n]?.segmentCount ?? 0
                    var langCounters = languageCounters[n] ?? [:]
                    for (i, raw) in raws.enumerated() {
                        try StoreRemux.segment(raw, initialization: initFile, to: langDir.appendingPathComponent(String(format: "seg%05d.ts", first + i)), shift: shift,
                                               audio: FragmentRemux.AudioSpan(file: file, length: lengths[i], first: i == 0 && p == 0, last: i == raws.count - 1 && p == periods.count - 1),
                                               counters: &langCounters, what: "DASH source: segment \(i) of \(v.id.prefix(40))")
                    }
                    languageCounters[n] = langCounters
                    if languageVariants[n] != nil { languageVariants[n]?.segmentCount += raws.count; continue }
                    var described = language.audio
                    described.rung = rung
                    described.base = names[k]
                    var carrying = out[k].rendition
                    carrying.name = rung
                    languageVariants[n] = HLSImport.FetchedVariant(rendition: carrying, codecs: out[k].codecs, segmentCount: raws.count, cueSegments: [],
                                                                   language: described)
                }
            }
            cueTimes += period.cues.map { period.start + $0 }
        }
        // a cue goes to the segment starting nearest it (after the first: a pre-roll is not a cue)
        func distance(_ i: Int, _ t: MediaTime) -> MediaTime { segmentStarts[i] > t ? segmentStarts[i] - t : t - segmentStarts[i] }
        let cueSegments = Set(cueTimes.compactMap { t in segmentStarts.indices.min { distance($0, t) < distance($1, t) } }).filter { $0 > 0 }.sorted()
        for k in out.indices { out[k].cueSegments = cueSegments }
        let carried = languageVariants.filter { !failedLanguages.contains($0.key) }.sorted { $0.key < $1.key }.map(\.value)
        out += carried
        return HLSImport.Fetched(variants: out, subtitles: subtitles, notes: notes,
                                 defaultAudio: carried.isEmpty ? nil : first.mainAudio)
    }
}
