import Timing

/// A media playlist as the checker reads it (§4.3.2, §4.3.3): its segments with what applies to
/// each, and its playlist-wide tags. `read` also reports every §4 and §7 rule it breaks.
struct RFC8216MediaPlaylist: Sendable {
    /// A resolved sub-range of a resource (§4.3.2.2).
    struct ByteRange: Equatable, Sendable, CustomStringConvertible {
        let length: UInt64
        let offset: UInt64
        var description: String { "\(length)@\(offset)" }
    }

    /// A media segment: its URI and the tags that apply to it.
    struct Segment: Sendable {
        /// Its media sequence number (§4.3.3.2).
        var sequence: UInt64 = 0
        /// The URI line.
        var uri: RFC8216Line
        /// The EXTINF line, when there is one.
        var extinf: RFC8216Line?
        /// The EXTINF duration (zero when missing or unreadable).
        var duration: MediaTime
        /// EXT-X-DISCONTINUITY tags before its URI line in this playlist.
        var discontinuitiesBefore: Int
        /// Its discontinuity sequence number (§6.2.1): EXT-X-DISCONTINUITY-SEQUENCE plus those.
        var discontinuityNumber: UInt64 = 0
        /// Its byte range, resolved.
        var byteRange: ByteRange?
        /// The tag lines since the previous URI line.
        var block: [RFC8216Line]
        /// Its EXT-X-PROGRAM-DATE-TIME, when one applies to it directly.
        var date: MediaTime?
        /// The date of its first sample: its own, or extrapolated from the nearest (§6.3.3).
        var start: MediaTime?
        /// The EXT-X-KEY lines that apply to it.
        var keys: [String]
        /// The EXT-X-MAP line that applies to it.
        var map: String?
    }

    var lines: [RFC8216Line] = []
    var segments: [Segment] = []
    /// Tag lines after the last URI line.
    var trailing: [RFC8216Line] = []
    var version: UInt64?
    var targetDuration: UInt64?
    var targetDurationLine: RFC8216Line?
    var mediaSequence: UInt64 = 0
    var hasMediaSequenceTag = false
    var discontinuitySequence: UInt64 = 0
    var hasDiscontinuitySequenceTag = false
    var hasEndList = false
    var playlistType: String?
    var iFramesOnly = false
    var hasDiscontinuity = false
    var hasProgramDateTime = false
    var dateRanges: [RFC8216DateRange] = []
    /// The lines of the playlist-wide tags that must never change (§6.2.1).
    var headerLines: [String] = []

    /// The sum of its EXTINF durations (§4.1).
    var duration: MediaTime { segments.reduce(.zero) { $0 + $1.duration } }

    /// Its tag and URI lines, without blank lines and comments.
    var significantLines: [RFC8216Line] { lines.filter { $0.kind != .blank && $0.kind != .comment } }

    /// Tags that describe the whole playlist (§4.3.1, §4.3.3, §4.3.5), not a segment.
    static let playlistWide: Set<String> = ["EXTM3U", "EXT-X-VERSION", "EXT-X-TARGETDURATION", "EXT-X-MEDIA-SEQUENCE",
                                            "EXT-X-DISCONTINUITY-SEQUENCE", "EXT-X-ENDLIST", "EXT-X-PLAYLIST-TYPE",
                                            "EXT-X-I-FRAMES-ONLY", "EXT-X-INDEPENDENT-SEGMENTS", "EXT-X-START"]
    /// Media playlist tags of RFC 8216 (§4.3.3): at most one of each.
    static let onceTags: Set<String> = ["EXT-X-TARGETDURATION", "EXT-X-MEDIA-SEQUENCE", "EXT-X-DISCONTINUITY-SEQUENCE",
                                        "EXT-X-ENDLIST", "EXT-X-PLAYLIST-TYPE", "EXT-X-I-FRAMES-ONLY"]

    static let keySpec = RFC8216TagSpec(rule: .key, types: [
        "METHOD": .enumerated(["NONE", "AES-128", "SAMPLE-AES"]), "URI": .quoted, "IV": .hexadecimal(maxDigits: 32),
        "KEYFORMAT": .quoted, "KEYFORMATVERSIONS": .quoted], required: ["METHOD"])
    static let mapSpec = RFC8216TagSpec(rule: .map, types: ["URI": .quoted, "BYTERANGE": .quoted], required: ["URI"])

    /// Reads `text` as a media playlist, reporting into `f` what breaks §4 and §7.
    static func read(_ text: String, into f: inout RFC8216Findings) -> RFC8216MediaPlaylist {
        var p = RFC8216MediaPlaylist()
        let (lines, version, versionReadable) = RFC8216Text.checkLines(text, into: &f)
        p.lines = lines
        p.version = version
        RFC8216Text.checkKind(lines, expected: .media, into: &f)

        var needs: [(version: UInt64, what: String, line: RFC8216Line)] = []
        var counts: [String: Int] = [:]
        var extinf: (line: RFC8216Line, duration: MediaTime)?
        var range: (line: RFC8216Line, length: UInt64, offset: UInt64?)?
        var block: [RFC8216Line] = []
        var discontinuities = 0
        var date: MediaTime?
        var keys: [String: (line: RFC8216Line, list: RFC8216AttributeList)] = [:]   // by KEYFORMAT
        var map: RFC8216Line?
        var mapLines: [RFC8216Line] = []

        for line in lines {
            switch line.kind {
            case .blank, .comment: continue
            case .uri:
                var resolved: ByteRange?
                if let r = range {
                    if let o = r.offset {
                        resolved = ByteRange(length: r.length, offset: o)
                    } else if let previous = p.segments.last, previous.uri.text == line.text, let pr = previous.byteRange {
                        resolved = ByteRange(length: r.length, offset: pr.offset &+ pr.length)
                    } else {
                        f.add(.byteRange, r.line, "no offset, but the previous segment is not a sub-range of `\(line.text)` (a client MUST fail to parse this)")
                    }
                }
                if extinf == nil { f.add(.extinfRequired, line, "a media segment URI without an EXTINF (it is REQUIRED for each segment)") }
                p.segments.append(Segment(
                    uri: line, extinf: extinf?.line, duration: extinf?.duration ?? .zero, discontinuitiesBefore: discontinuities,
                    byteRange: resolved, block: block, date: date,
                    keys: keys.keys.sorted().map { keys[$0]!.line.text }, map: map?.text))
                extinf = nil; range = nil; date = nil; block = []
                continue
            case .tag: break
            }
            let name = line.tagName!
            block.append(line)
            if onceTags.contains(name) {
                counts[name, default: 0] += 1
                if counts[name] == 2 { f.add(.onceInMediaPlaylist, line, "\(name) appears more than once in a media playlist") }
            }
            if ["EXT-X-VERSION", "EXT-X-PLAYLIST-TYPE", "EXT-X-I-FRAMES-ONLY", "EXT-X-INDEPENDENT-SEGMENTS", "EXT-X-START"].contains(name) {
                p.headerLines.append(line.text)
            }
            let firstSegmentSeen = !p.segments.isEmpty
            switch name {
            case "EXTINF":
                if extinf != nil { f.add(.extinf, line, "a second EXTINF before the segment's URI line (it applies only to the next segment)") }
                let value = line.tagValue ?? ""
                guard let comma = value.firstIndex(of: ",") else {
                    f.add(.extinf, line, "no comma after the duration (the form is #EXTINF:<duration>,[<title>])")
                    extinf = (line, RFC8216Value.decimalFloat(value) ?? .zero)
                    break
                }
                let text = String(value[..<comma])
                if let d = RFC8216Value.decimalFloat(text) {
                    extinf = (line, d)
                    if text.contains(".") { needs.append((3, "a floating-point EXTINF duration", line)) }
                } else {
                    f.add(.extinf, line, "`\(text)` is not a decimal-floating-point or decimal-integer duration")
                    extinf = (line, .zero)
                }
            case "EXT-X-BYTERANGE":
                needs.append((4, "EXT-X-BYTERANGE", line))
                if range != nil { f.add(.byteRange, line, "a second EXT-X-BYTERANGE before one URI line") }
                if let v = line.tagValue, let r = RFC8216Value.byteRange(v) {
                    range = (line, r.length, r.offset)
                } else {
                    f.add(.byteRange, line, "not n[@o] with decimal-integers")
                }
            case "EXT-X-DISCONTINUITY":
                if line.tagValue != nil { f.add(.discontinuity, line, "EXT-X-DISCONTINUITY takes no value") }
                discontinuities += 1
                p.hasDiscontinuity = true
            case "EXT-X-KEY":
                guard let list = keySpec.read(line, into: &f) else { break }
                checkKey(list, line: line, session: false, into: &f)
                if list["IV"] != nil { needs.append((2, "the IV attribute of EXT-X-KEY", line)) }
                if list["KEYFORMAT"] != nil || list["KEYFORMATVERSIONS"] != nil {
                    needs.append((5, "KEYFORMAT or KEYFORMATVERSIONS of EXT-X-KEY", line))
                }
                // Allowed reading: METHOD=NONE ends every key in force, whatever its KEYFORMAT.
                // §4.3.2.4 ends a key at the next tag "with the same KEYFORMAT", yet forbids NONE
                // any other attribute, so read literally no playlist could return to clear segments
                // (a clear ad) after a FairPlay or Widevine key; the HLS readers here (FFmpeg's,
                // GStreamer's) keep one key in force, which NONE clears.
                // NONE is no key: nothing is in force after it until the next key.
                if list["METHOD"]?.raw == "NONE" { keys = [:] } else { keys[list["KEYFORMAT"]?.value ?? "identity"] = (line, list) }
            case "EXT-X-MAP":
                mapLines.append(line)
                map = line
                guard let list = mapSpec.read(line, into: &f) else { break }
                if let r = list["BYTERANGE"], r.isQuoted, RFC8216Value.byteRange(r.value) == nil {
                    f.add(.map, line, "BYTERANGE=\(r.raw) is not \"n[@o]\"")
                }
                for (_, k) in keys where k.list["METHOD"]?.raw == "AES-128" && k.list["IV"] == nil {
                    f.add(.map, line, "an AES-128 EXT-X-KEY without IV applies to this EXT-X-MAP (line \(k.line.number)); the IV is REQUIRED")
                }
            case "EXT-X-PROGRAM-DATE-TIME":
                p.hasProgramDateTime = true
                if let v = line.tagValue, let d = RFC8216Date.parse(v) {
                    date = d.instant
                    if !d.hasTimeZone { f.add(.timeZone, line, "the date names no time zone") }
                } else {
                    f.add(.programDateTime, line, "not an ISO 8601 date-time (YYYY-MM-DDThh:mm:ss[.SSS][Z|±hh:mm])")
                }
            case "EXT-X-DATERANGE":
                if let range = RFC8216DateRange.read(line, into: &f) { p.dateRanges.append(range) }
            case "EXT-X-GAP":
                if line.tagValue != nil { f.add(.gap, line, "EXT-X-GAP takes no value") }
            case "EXT-X-TARGETDURATION":
                if let v = line.tagValue.flatMap(RFC8216Value.decimalInteger) {
                    if p.targetDuration == nil { p.targetDuration = v; p.targetDurationLine = line }
                } else {
                    f.add(.targetDuration, line, "not a decimal-integer number of seconds")
                }
            case "EXT-X-MEDIA-SEQUENCE":
                if firstSegmentSeen { f.add(.mediaSequenceTag, line, "after the first media segment (it MUST appear before)") }
                if let v = line.tagValue.flatMap(RFC8216Value.decimalInteger) {
                    if !p.hasMediaSequenceTag { p.mediaSequence = v; p.hasMediaSequenceTag = true }
                } else {
                    f.add(.mediaSequenceTag, line, "not a decimal-integer")
                }
            case "EXT-X-DISCONTINUITY-SEQUENCE":
                if firstSegmentSeen { f.add(.discontinuitySequenceTag, line, "after the first media segment (it MUST appear before)") }
                if discontinuities > 0 { f.add(.discontinuitySequenceTag, line, "after an EXT-X-DISCONTINUITY (it MUST appear before any)") }
                if let v = line.tagValue.flatMap(RFC8216Value.decimalInteger) {
                    if !p.hasDiscontinuitySequenceTag { p.discontinuitySequence = v; p.hasDiscontinuitySequenceTag = true }
                } else {
                    f.add(.discontinuitySequenceTag, line, "not a decimal-integer")
                }
            case "EXT-X-ENDLIST":
                if line.tagValue != nil { f.add(.endList, line, "EXT-X-ENDLIST takes no value") }
                p.hasEndList = true
            case "EXT-X-PLAYLIST-TYPE":
                if let v = line.tagValue, v == "EVENT" || v == "VOD" {
                    if p.playlistType == nil { p.playlistType = v }
                } else {
                    f.add(.playlistType, line, "the type is EVENT or VOD")
                }
            case "EXT-X-I-FRAMES-ONLY":
                if line.tagValue != nil { f.add(.iFramesOnly, line, "EXT-X-I-FRAMES-ONLY takes no value") }
                p.iFramesOnly = true
                needs.append((4, "EXT-X-I-FRAMES-ONLY", line))
            default: break
            }
        }
        p.trailing = block
        if let extinf { f.add(.segment, extinf.line, "EXTINF with no URI line after it") }
        if let range { f.add(.segment, range.line, "EXT-X-BYTERANGE with no URI line after it") }

        for i in p.segments.indices {
            p.segments[i].sequence = p.mediaSequence &+ UInt64(i)
            p.segments[i].discontinuityNumber = p.discontinuitySequence &+ UInt64(p.segments[i].discontinuitiesBefore)
        }
        p.extrapolateDates()

        if let target = p.targetDuration {
            for s in p.segments {
                let rounded = s.duration.rescaled(to: 1, rounding: .nearest).value
                if rounded > Int64(clamping: target) {
                    f.add(.extinfExceedsTarget, s.extinf ?? s.uri,
                          "EXTINF rounds to \(rounded) s, more than EXT-X-TARGETDURATION \(target) (line \(p.targetDurationLine?.number ?? 0))")
                }
            }
        } else if !lines.contains(where: { $0.tagName == "EXT-X-TARGETDURATION" }) {
            f.add(.targetDuration, lines.first, "no EXT-X-TARGETDURATION (it is REQUIRED)")
        }
        for m in mapLines { needs.append((p.iFramesOnly ? 5 : 6, p.iFramesOnly ? "EXT-X-MAP with EXT-X-I-FRAMES-ONLY" : "EXT-X-MAP without EXT-X-I-FRAMES-ONLY", m)) }
        if versionReadable { reportVersions(needs, declared: version, into: &f) }
        if p.playlistType == "VOD" && !p.hasEndList {
            f.add(.vodEndList, lines.first { $0.tagName == "EXT-X-PLAYLIST-TYPE" },
                  "EXT-X-PLAYLIST-TYPE:VOD but no EXT-X-ENDLIST: a playlist that cannot change holds the final segment, so it MUST have EXT-X-ENDLIST (§6.2.1)")
        }
        RFC8216DateRange.checkTogether(p.dateRanges, hasProgramDateTime: p.hasProgramDateTime, into: &f)
        return p
    }

    /// EXT-X-KEY's rules (§4.3.2.4), also EXT-X-SESSION-KEY's (§4.3.4.5) when `session`.
    static func checkKey(_ list: RFC8216AttributeList, line: RFC8216Line, session: Bool, into f: inout RFC8216Findings) {
        let rule: RFC8216.Rule = session ? .sessionKey : .key
        let tag = session ? "EXT-X-SESSION-KEY" : "EXT-X-KEY"
        guard let method = list["METHOD"]?.raw else { return }
        if method == "NONE" {
            if session { f.add(rule, line, "METHOD MUST NOT be NONE in EXT-X-SESSION-KEY") }
            let others = list.attributes.map(\.name).filter { $0 != "METHOD" }
            if !others.isEmpty { f.add(rule, line, "METHOD=NONE with \(others.joined(separator: ", ")) (other attributes MUST NOT be present)") }
        } else if list["URI"] == nil {
            f.add(rule, line, "\(tag) with METHOD=\(method) lacks URI (REQUIRED unless NONE)")
        }
        if let versions = list["KEYFORMATVERSIONS"], versions.isQuoted {
            let parts = versions.value.split(separator: "/", omittingEmptySubsequences: false)
            if !parts.allSatisfy({ (RFC8216Value.decimalInteger(String($0)) ?? 0) > 0 }) {
                f.add(rule, line, "KEYFORMATVERSIONS=\(versions.raw) is not positive integers separated by /")
            }
        }
    }

    /// §7: each feature used needs EXT-X-VERSION at least so high (1 when absent); one report per feature.
    static func reportVersions(_ needs: [(version: UInt64, what: String, line: RFC8216Line)], declared: UInt64?,
                               into f: inout RFC8216Findings) {
        let version = declared ?? 1
        var reported: [String: Int] = [:]
        for n in needs where n.version > version { reported[n.what, default: 0] += 1 }
        for n in needs where n.version > version {
            guard let count = reported[n.what] else { continue }
            reported[n.what] = nil
            let more = count > 1 ? " (and \(count - 1) more like it)" : ""
            f.add(.versionCompatibility, n.line, "\(n.what) needs EXT-X-VERSION \(n.version) or higher; the playlist has \(declared.map { "\($0)" } ?? "none (so 1)")\(more)")
        }
    }

    /// Gives each segment the date of its first sample: its own EXT-X-PROGRAM-DATE-TIME, or the
    /// nearest earlier one plus the durations between, or for segments before the first date,
    /// that date minus the durations (§6.3.3's extrapolation).
    mutating func extrapolateDates() {
        guard let first = segments.firstIndex(where: { $0.date != nil }) else { return }
        var t = segments[first].date!
        for i in stride(from: first - 1, through: 0, by: -1) {
            t = t - segments[i].duration
            segments[i].start = t
        }
        var next: MediaTime?
        for i in first..<segments.count {
            segments[i].start = segments[i].date ?? next
            next = segments[i].start.map { $0 + segments[i].duration }
        }
    }
}
