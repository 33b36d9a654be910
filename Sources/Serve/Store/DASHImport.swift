import Ads
import Foundation
import Manifest
import Media
import Timing

/// Reads a static DASH origin (an MPD of CMAF segments) into the store as `HLSImport` reads an
/// HLS one: each video Representation a rung of MPEG-TS segments made once by
/// `FragmentRemux` (its packets copied, with the audio of the first audio AdaptationSet's best
/// Representation that falls in each segment's time), then packaged, cut and served as an HLS
/// origin is. What it takes: one Period, `SegmentTemplate` (on the AdaptationSet or the
/// Representation) with a `SegmentTimeline` or a `@duration`, `$RepresentationID$`,
/// `$Bandwidth$`, `$Number$` and `$Time$` (with a `%0Nd` width), relative `BaseURL`s, the
/// Period's SCTE-35 `EventStream`s as origin cues (at the segment starting nearest each), its
/// WebVTT text AdaptationSets (a file per Period) as subtitle tracks. What it
/// refuses in one line: a dynamic MPD, several Periods, `SegmentBase`/`SegmentList`, content
/// protection, more than 10,000 segments. The MPD comes from a network: it is read by the
/// project's hardened XML reader (no DTD, no entities).
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
    }

    /// A text AdaptationSet the import takes: a WebVTT file for the whole Period (a
    /// Representation's `BaseURL`, cue times from the Period's start).
    struct TextTrack: Equatable {
        var name: String
        var language: String?
        var url: String
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

    /// The video Representations (largest picture first) and the audio one taken (the highest
    /// bandwidth of every audio Representation), of `text`.
    static func tracks(_ text: String) throws -> (video: [Track], audio: Track?, cues: [MediaTime], texts: [TextTrack], notes: [String]) {
        let root: XMLElementNode
        do { root = try XMLTreeParser().parse(Data(text.utf8)).root } catch {
            throw StoreError.unsupported("DASH source: the MPD is not well-formed XML: \(error)")
        }
        guard root.name == "MPD" else { throw StoreError.unsupported("DASH source: the document is not an MPD") }
        guard (root.attribute("type") ?? "static") == "static" else {
            throw StoreError.unsupported("DASH source: a dynamic MPD (live DASH origins are not supported yet)")
        }
        let periods = root.children("Period")
        guard periods.count == 1, let period = periods.first else {
            throw StoreError.unsupported("DASH source: \(periods.count) Periods (one is supported)")
        }
        let total = try root.attribute("mediaPresentationDuration").map(duration) ?? period.attribute("duration").map(duration)
        let base = [root, period].compactMap { $0.childText("BaseURL") }.reduce("") { join($0, $1) }
        var video: [Track] = [], audio: [Track] = [], texts: [TextTrack] = [], notes: [String] = []
        for set in period.children("AdaptationSet") {
            guard set.children("ContentProtection").isEmpty else { throw StoreError.unsupported("DASH source: encrypted content is not supported") }
            let kind = set.attribute("contentType") ?? set.attribute("mimeType")?.split(separator: "/").first.map(String.init) ?? ""
            let setBase = join(base, set.childText("BaseURL") ?? "")
            if kind == "text" || kind == "application" {
                // subtitles: a WebVTT sidecar file per Period is taken; segmented or fMP4 text is left out
                for rep in set.children("Representation") {
                    let name = set.attribute("label") ?? rep.attribute("id") ?? set.attribute("lang") ?? "text"
                    let mime = rep.attribute("mimeType") ?? set.attribute("mimeType") ?? ""
                    let file = rep.childText("BaseURL")?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
                    guard mime == "text/vtt", !file.isEmpty, rep.child("SegmentTemplate") == nil, set.child("SegmentTemplate") == nil else {
                        notes.append("subtitles '\(name.prefix(64))' left out: only a WebVTT file per Period is read (\(mime.prefix(40)))")
                        continue
                    }
                    texts.append(TextTrack(name: name, language: set.attribute("lang") ?? rep.attribute("lang"), url: join(setBase, file)))
                }
                continue
            }
            for rep in set.children("Representation") {
                guard rep.children("ContentProtection").isEmpty else { throw StoreError.unsupported("DASH source: encrypted content is not supported") }
                let repKind = kind.isEmpty ? rep.attribute("mimeType")?.split(separator: "/").first.map(String.init) ?? "" : kind
                guard repKind == "video" || repKind == "audio" else { continue }
                guard rep.child("SegmentBase") == nil, rep.child("SegmentList") == nil, set.child("SegmentList") == nil else {
                    throw StoreError.unsupported("DASH source: SegmentBase and SegmentList are not supported (SegmentTemplate is)")
                }
                guard let template = rep.child("SegmentTemplate") ?? set.child("SegmentTemplate") else {
                    throw StoreError.unsupported("DASH source: a Representation without a SegmentTemplate")
                }
                var t = try track(rep, template: template, total: total)
                let repBase = join(setBase, rep.childText("BaseURL") ?? "")
                t.initialization = join(repBase, t.initialization)
                t.media = t.media.map { join(repBase, $0) }
                if repKind == "video" { video.append(t) } else { audio.append(t) }
            }
        }
        guard !video.isEmpty else { throw StoreError.unsupported("DASH source: no video Representation") }
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
        return (video.sorted { ($0.width * $0.height, $0.bandwidth) > ($1.width * $1.height, $1.bandwidth) }, audio.max { $0.bandwidth < $1.bandwidth },
                cues.sorted(), texts, notes)
    }

    /// One Representation's segments from its template.
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
            var next: Int64 = 0
            for s in timeline.children("S") {
                guard let d = Int64(s.attribute("d") ?? ""), d > 0, d <= timescale * 3600 else { throw StoreError.unsupported("DASH source: an S without a duration") }
                if let t = s.attribute("t") { guard let v = Int64(t), v >= 0 else { throw StoreError.unsupported("DASH source: an S with a bad t") }; next = v }
                var repeats = Int(s.attribute("r") ?? "0") ?? 0
                if repeats < 0 {
                    // to the end of the Period
                    guard let total else { throw StoreError.unsupported("DASH source: r=-1 without a known duration") }
                    let end = total.rescaled(to: timescale, rounding: .up).value
                    repeats = Int(max(0, (end - next + d - 1) / d)) - 1
                }
                guard repeats >= 0, starts.count + repeats < maxSegments else { throw StoreError.unsupported("DASH source: more than \(maxSegments) segments") }
                for _ in 0...repeats { starts.append(next); durations.append(d); next += d }
            }
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
                     durations: durations, timescale: timescale, starts: starts.map { $0 - offset }, presentationTimeOffset: offset)
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
    /// each remuxed with its time's audio; the MPD at `location` read as `text`.
    static func fetchAll(_ text: String, location: HLSLocation, folder: URL, timeout: Double, maxTotalBytes: Int64) async throws -> HLSImport.Fetched {
        let (video, audioTrack, cueTimes, texts, textNotes) = try tracks(text)
        var total: Int64 = 0
        func fetch(_ uri: String, to file: URL, maxBytes: Int64) async throws {
            try await HLSImport.fetch(try location.resolve(uri), to: file, maxBytes: maxBytes, timeout: timeout, total: &total, cap: maxTotalBytes,
                                      source: "DASH")
        }
        // the audio whole: its initialization segment and every fragment, one fMP4 file
        var audio: URL?
        if let a = audioTrack {
            let file = folder.appendingPathComponent(".audio.mp4")
            try await HLSImport.wholeTrack(initialization: a.initialization, media: a.media, to: file) { try await fetch($0, to: $1, maxBytes: $2) }
            audio = file
        }
        defer { if let audio { try? FileManager.default.removeItem(at: audio) } }
        let audioRate = audioTrack.map { max(32_000, $0.bandwidth) } ?? 128_000
        var out: [HLSImport.FetchedVariant] = []
        for v in video {
            var name = v.height > 0 ? "\(v.height)p" : "main"
            while out.contains(where: { $0.rendition.name == name }) { name += "x" }
            let dir = folder.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let initFile = dir.appendingPathComponent(".init.mp4"), raw = dir.appendingPathComponent(".segment.m4s")
            defer { try? FileManager.default.removeItem(at: initFile); try? FileManager.default.removeItem(at: raw) }
            try await fetch(v.initialization, to: initFile, maxBytes: HLSImport.maxInitBytes)
            var counters: [Int: UInt8] = [:]
            for (i, uri) in v.media.enumerated() {
                let file = dir.appendingPathComponent(String(format: "seg%05d.ts", i))
                try await fetch(uri, to: raw, maxBytes: HLSImport.maxSegmentBytes)
                let length = MediaTime(value: v.durations[i], timescale: v.timescale)
                try StoreRemux.segment(raw, initialization: initFile, to: file, shift: HLSImport.cmafClockShift,
                                       audio: audio.map { FragmentRemux.AudioSpan(file: $0, length: length, first: i == 0, last: i == v.media.count - 1) },
                                       counters: &counters, what: "DASH source: segment \(uri.prefix(200))")
            }
            let rendition = Rendition(name: name, width: v.width, height: v.height, videoBitrate: max(1000, v.bandwidth), audioBitrate: audioRate)
            let codecs = v.codecs.map { c in audioTrack?.codecs.map { c + "," + $0 } ?? c }
            // a cue goes to the segment starting nearest it (after the first: a pre-roll is not a cue)
            let starts = v.starts.map { MediaTime(value: $0, timescale: v.timescale) }
            func distance(_ i: Int, _ t: MediaTime) -> MediaTime { starts[i] > t ? starts[i] - t : t - starts[i] }
            let cueSegments = Set(cueTimes.compactMap { t in starts.indices.min { distance($0, t) < distance($1, t) } })
            out.append(HLSImport.FetchedVariant(rendition: rendition, codecs: codecs, segmentCount: v.media.count,
                                                cueSegments: cueSegments.filter { $0 > 0 }.sorted()))
        }
        // the subtitles: a cue at Period time t is media time t + presentationTimeOffset, on the
        // store's MPEG-TS clock 10 s later (`HLSImport.cmafClockShift`), where the video's is
        var notes = textNotes, subtitles: [HLSSubtitleImport.Track] = []
        let top = video[0]
        let shift = MediaTime(value: top.presentationTimeOffset, timescale: top.timescale).mpegTicks + HLSImport.cmafClockShift.mpegTicks
        for (n, t) in texts.prefix(SubtitleTrack.maxTracks).enumerated() {
            let file = folder.appendingPathComponent(".text\(n).vtt")
            defer { try? FileManager.default.removeItem(at: file) }
            do {
                try await fetch(t.url, to: file, maxBytes: maxTextBytes)
                let cues = try HLSSubtitleImport.cues(in: file, what: "the WebVTT file")
                    .map { c -> WebVTT.Cue in var c = c; c.start += shift; c.end += shift; return c }
                subtitles.append(HLSSubtitleImport.Track(rendition: HLS.Rendition(type: .subtitles, groupID: "subs", name: t.name, language: t.language,
                                                                                  isDefault: subtitles.isEmpty, autoselect: true), cues: cues))
            } catch {
                notes.append("subtitles '\(t.name.prefix(64))' left out: \(String(describing: error).prefix(200))")
            }
        }
        return HLSImport.Fetched(variants: out, subtitles: subtitles, notes: notes)
    }
}
