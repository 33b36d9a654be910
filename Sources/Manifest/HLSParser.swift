import Foundation
import Timing

extension HLS {
    /// Bounds on what `parse` reads: everything from a network is hostile.
    public struct ParseLimits: Sendable {
        /// Most segments (or variants) in one playlist.
        public var maxSegments: Int
        /// Largest `EXT-X-TARGETDURATION`, seconds.
        public var maxTargetDuration: Int
        /// Largest `EXT-X-MEDIA-SEQUENCE` / `EXT-X-DISCONTINUITY-SEQUENCE`: well inside 64 bits, so
        /// that a sequence plus any count of segments is exact.
        public var maxSequence: Int
        /// Longest line, characters.
        public var maxLineLength: Int

        /// Limits (the defaults suit origins and the service's own playlists).
        public init(maxSegments: Int = 20_000, maxTargetDuration: Int = 3_600, maxSequence: Int = 1 << 48,
                    maxLineLength: Int = 64 * 1024) {
            self.maxSegments = maxSegments; self.maxTargetDuration = maxTargetDuration; self.maxSequence = maxSequence
            self.maxLineLength = maxLineLength
        }
    }

    /// Why text is not a playlist that can be used: one line, with the line number.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// 1-based line, 0 for the whole text.
        public var line: Int
        /// The reason.
        public var reason: String
        /// `line N: reason`.
        public var description: String { line > 0 ? "line \(line): \(reason)" : reason }

        /// An error at `line` (0: the whole text).
        public init(line: Int, reason: String) { self.line = line; self.reason = reason }
    }

    /// Parses a playlist. What makes it unusable throws a `ParseError` (no `#EXTM3U`, a segment
    /// without `EXTINF`, an `EXTINF` that is not a duration, a missing or out-of-range
    /// `EXT-X-TARGETDURATION`, sequence numbers out of range, a line or a count over `limits`,
    /// media and multivariant tags mixed). A malformed marker (date range, cue tag) or a tag
    /// that cannot be read is left out and reported to `warn` with its line number. Unknown
    /// tags and comments are ignored (RFC 8216 §4).
    public static func parse(_ text: String, limits: ParseLimits = ParseLimits(),
                             warn: (ParseError) -> Void = { _ in }) throws -> Playlist {
        var parser = HLSParser(limits: limits)
        let playlist = try parser.run(text)
        parser.warnings.forEach(warn)
        return playlist
    }
}

/// The state of one parse.
struct HLSParser {
    let limits: HLS.ParseLimits
    var lineNumber = 0
    /// Tags left out, with why.
    var warnings: [HLS.ParseError] = []

    init(limits: HLS.ParseLimits) { self.limits = limits }

    func fail(_ reason: String) -> HLS.ParseError { HLS.ParseError(line: lineNumber, reason: reason) }

    mutating func run(_ text: String) throws -> HLS.Playlist {
        var lines: [Substring] = []
        var body = Substring(text)
        if body.hasPrefix("\u{FEFF}") { body = body.dropFirst() }
        for l in body.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            lines.append(l)
        }
        guard lines.first.map({ $0.trimmingCharacters(in: .whitespaces) == "#EXTM3U" }) == true else {
            throw HLS.ParseError(line: 1, reason: "not a playlist: the first line is not #EXTM3U")
        }
        let multivariant = lines.contains { $0.hasPrefix("#EXT-X-STREAM-INF:") || $0.hasPrefix("#EXT-X-MEDIA:") || $0.hasPrefix("#EXT-X-I-FRAME-STREAM-INF:") }
        return multivariant ? .multivariant(try multivariantPlaylist(lines)) : .media(try mediaPlaylist(lines))
    }

    /// Each non-blank line after the first with its number, trimmed of surrounding whitespace.
    mutating func each(_ lines: [Substring], _ body: (inout HLSParser, Substring) throws -> Void) throws {
        for (i, raw) in lines.enumerated().dropFirst() {
            lineNumber = i + 1
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            guard line.count <= limits.maxLineLength else { throw fail("a line of over \(limits.maxLineLength) characters") }
            try body(&self, Substring(line))
        }
    }

    // MARK: media playlists

    mutating func mediaPlaylist(_ lines: [Substring]) throws -> HLS.MediaPlaylist {
        var target: Int?, sequence = 0, discontinuities = 0
        var type: HLS.PlaylistType?, independent = false, iFrames = false, endList = false
        var segments: [HLS.Segment] = []
        var next = HLS.Segment(uri: "", duration: .zero)
        var duration: MediaTime?
        try each(lines) { p, line in
            guard line.hasPrefix("#") else {
                guard let d = duration else { throw p.fail("a segment URI without EXTINF before it") }
                guard !endList else { throw p.fail("a segment after EXT-X-ENDLIST") }
                next.uri = String(line); next.duration = d
                segments.append(next)
                guard segments.count <= p.limits.maxSegments else { throw p.fail("over \(p.limits.maxSegments) segments") }
                next = HLS.Segment(uri: "", duration: .zero); duration = nil
                return
            }
            let (tag, value) = Self.split(line)
            switch tag {
            case "#EXTINF":
                let number = value.map { $0.prefix { $0 != "," } } ?? ""
                guard let d = HLSText.seconds(parsing: number) else { throw p.fail("EXTINF '\(number.prefix(20))' is not a duration") }
                duration = d
                if let v = value, let comma = v.firstIndex(of: ",") { next.title = String(v[v.index(after: comma)...]) }
            case "#EXT-X-TARGETDURATION":
                guard let t = p.integer(value, max: p.limits.maxTargetDuration) else {
                    throw p.fail("EXT-X-TARGETDURATION is not a whole number of seconds up to \(p.limits.maxTargetDuration)")
                }
                target = t
            case "#EXT-X-MEDIA-SEQUENCE":
                guard let n = p.integer(value, max: p.limits.maxSequence) else { throw p.fail("EXT-X-MEDIA-SEQUENCE out of range (0 to \(p.limits.maxSequence))") }
                sequence = n
            case "#EXT-X-DISCONTINUITY-SEQUENCE":
                guard let n = p.integer(value, max: p.limits.maxSequence) else { throw p.fail("EXT-X-DISCONTINUITY-SEQUENCE out of range (0 to \(p.limits.maxSequence))") }
                discontinuities = n
            case "#EXT-X-PLAYLIST-TYPE":
                guard let t = value.flatMap({ HLS.PlaylistType(rawValue: String($0)) }) else { p.skip("EXT-X-PLAYLIST-TYPE is neither VOD nor EVENT"); return }
                type = t
            case "#EXT-X-ENDLIST": endList = true
            case "#EXT-X-INDEPENDENT-SEGMENTS": independent = true
            case "#EXT-X-I-FRAMES-ONLY": iFrames = true
            case "#EXT-X-DISCONTINUITY": next.discontinuity = true
            case "#EXT-X-GAP": next.gap = true
            case "#EXT-X-PROGRAM-DATE-TIME":
                guard let d = value.flatMap(HLSText.date(parsing:)) else { p.skip("EXT-X-PROGRAM-DATE-TIME is not an ISO 8601 date with a time zone"); return }
                next.programDateTime = d
            case "#EXT-X-BYTERANGE":
                guard let r = value.flatMap(Self.byteRange) else { throw p.fail("EXT-X-BYTERANGE is not <length>[@<offset>]") }
                next.byteRange = r
            case "#EXT-X-KEY":
                guard let k = value.flatMap(Self.key) else { throw p.fail("EXT-X-KEY cannot be read") }
                next.key = k
            case "#EXT-X-MAP":
                guard let a = value.flatMap({ HLSAttributeList.parse($0) }), let uri = a.string("URI") else { throw p.fail("EXT-X-MAP without a URI") }
                next.map = HLS.Map(uri: uri, byteRange: a.string("BYTERANGE").flatMap { Self.byteRange(Substring($0)) })
            case "#EXT-X-DATERANGE":
                guard let r = value.flatMap(Self.dateRange) else { p.skip("EXT-X-DATERANGE without a quoted ID and START-DATE, or malformed"); return }
                next.markers.append(.dateRange(r))
            case "#EXT-X-CUE-OUT": next.markers.append(.cueOut(duration: Self.cueOutDuration(value)))
            case "#EXT-X-CUE-OUT-CONT":
                let (e, d) = Self.cueOutCont(value)
                next.markers.append(.cueOutCont(elapsed: e, duration: d))
            case "#EXT-X-CUE-IN": next.markers.append(.cueIn)
            case "#EXT-X-STREAM-INF", "#EXT-X-MEDIA", "#EXT-X-I-FRAME-STREAM-INF":
                throw p.fail("a multivariant tag in a media playlist")
            default: break   // EXT-X-VERSION, EXT-X-START, unknown tags, comments
            }
        }
        guard let target else { throw HLS.ParseError(line: 0, reason: "a media playlist without EXT-X-TARGETDURATION") }
        return HLS.MediaPlaylist(targetDuration: target, mediaSequence: sequence, discontinuitySequence: discontinuities,
                                 playlistType: type, independentSegments: independent, iFramesOnly: iFrames, segments: segments,
                                 trailingMarkers: next.markers, endList: endList)
    }

    /// Reports a tag left out.
    mutating func skip(_ reason: String) { warnings.append(fail(reason)) }

    /// `#TAG:value` as (`#TAG`, value), or (`#TAG`, nil).
    static func split(_ line: Substring) -> (Substring, Substring?) {
        guard let colon = line.firstIndex(of: ":") else { return (line, nil) }
        return (line[..<colon], line[line.index(after: colon)...])
    }

    /// A decimal-integer from 0 to `max`.
    func integer(_ value: Substring?, max: Int) -> Int? {
        guard let v = value, !v.isEmpty, v.count <= 18, v.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(v), n <= max else { return nil }
        return n
    }

    static func byteRange(_ s: Substring) -> HLS.ByteRange? {
        let parts = s.split(separator: "@", omittingEmptySubsequences: false)
        func n(_ t: Substring) -> Int? {
            guard !t.isEmpty, t.count <= 15, t.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return Int(t)
        }
        guard parts.count <= 2, let length = n(parts[0]) else { return nil }
        if parts.count == 2 { guard let o = n(parts[1]) else { return nil }; return HLS.ByteRange(length: length, offset: o) }
        return HLS.ByteRange(length: length)
    }

    static func key(_ s: Substring) -> HLS.Key? {
        guard let a = HLSAttributeList.parse(s), let method = a.enumeration("METHOD").flatMap(HLS.Key.Method.init(rawValue:)) else { return nil }
        let iv = a.enumeration("IV").flatMap { HLSText.hex(parsing: Substring($0), limit: 16) }
        if a["IV"] != nil && iv?.count != 16 { return nil }
        if method != .none && a.string("URI") == nil { return nil }
        return HLS.Key(method: method, uri: a.string("URI"), iv: iv, keyFormat: a.string("KEYFORMAT"),
                       keyFormatVersions: a.string("KEYFORMATVERSIONS"))
    }

    static func dateRange(_ s: Substring) -> HLS.DateRange? {
        guard let a = HLSAttributeList.parse(s, limit: 128), let id = a.string("ID"),
              let start = a.string("START-DATE").flatMap({ HLSText.date(parsing: Substring($0)) }) else { return nil }
        var r = HLS.DateRange(id: id, rangeClass: a.string("CLASS"), startDate: start)
        if a["END-DATE"] != nil { guard let e = a.string("END-DATE").flatMap({ HLSText.date(parsing: Substring($0)) }) else { return nil }; r.endDate = e }
        if a["DURATION"] != nil { guard let d = a.seconds("DURATION") else { return nil }; r.duration = d }
        if a["PLANNED-DURATION"] != nil { guard let d = a.seconds("PLANNED-DURATION") else { return nil }; r.plannedDuration = d }
        for (name, slot) in [("SCTE35-CMD", \HLS.DateRange.scte35Cmd), ("SCTE35-OUT", \.scte35Out), ("SCTE35-IN", \.scte35In)] {
            guard a[name] != nil else { continue }
            guard let bytes = a.enumeration(name).flatMap({ HLSText.hex(parsing: Substring($0)) }) else { return nil }
            r[keyPath: slot] = bytes
        }
        r.endOnNext = a.yes("END-ON-NEXT")
        for attr in a.attributes where attr.name.hasPrefix("X-") {
            if attr.quoted { r.clientAttributes.append(.init(attr.name, .string(String(attr.value)))) }
            else if let h = HLSText.hex(parsing: attr.value) { r.clientAttributes.append(.init(attr.name, .hex(h))) }
            else if let n = HLSText.seconds(parsing: attr.value) { r.clientAttributes.append(.init(attr.name, .number(n))) }
            else { return nil }
        }
        return r
    }

    /// `EXT-X-CUE-OUT`'s duration: `DURATION=d`, a bare `d`, or none.
    static func cueOutDuration(_ value: Substring?) -> MediaTime? {
        guard let v = value, !v.isEmpty else { return nil }
        if v.contains("=") { return lenientAttributes(v)["DURATION"].flatMap(HLSText.seconds(parsing:)) }
        return HLSText.seconds(parsing: v)
    }

    /// `EXT-X-CUE-OUT-CONT`'s elapsed time and duration: `ElapsedTime=e,Duration=d` or `e/d`.
    static func cueOutCont(_ value: Substring?) -> (MediaTime?, MediaTime?) {
        guard let v = value, !v.isEmpty else { return (nil, nil) }
        if v.contains("=") {
            let a = lenientAttributes(v)
            return (a["ElapsedTime"].flatMap(HLSText.seconds(parsing:)), a["Duration"].flatMap(HLSText.seconds(parsing:)))
        }
        let parts = v.split(separator: "/")
        return (parts.first.flatMap(HLSText.seconds(parsing:)), parts.count > 1 ? HLSText.seconds(parsing: parts[1]) : nil)
    }

    /// `Name=value` pairs of the cue tags, which do not keep §4.2's upper-case names.
    static func lenientAttributes(_ s: Substring) -> [String: Substring] {
        var out: [String: Substring] = [:]
        for pair in s.split(separator: ",").prefix(32) {
            guard let eq = pair.firstIndex(of: "=") else { continue }
            let value = pair[pair.index(after: eq)...]
            out[String(pair[..<eq]).trimmingCharacters(in: .whitespaces)] = value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2
                ? value.dropFirst().dropLast() : value
        }
        return out
    }

    // MARK: multivariant playlists

    mutating func multivariantPlaylist(_ lines: [Substring]) throws -> HLS.MultivariantPlaylist {
        var playlist = HLS.MultivariantPlaylist(independentSegments: false, variants: [])
        var pending: HLS.Variant?
        try each(lines) { p, line in
            if !line.hasPrefix("#") {
                guard var v = pending else { throw p.fail("a URI without EXT-X-STREAM-INF before it") }
                v.uri = String(line)
                playlist.variants.append(v)
                pending = nil
                guard playlist.variants.count <= p.limits.maxSegments else { throw p.fail("over \(p.limits.maxSegments) variants") }
                return
            }
            let (tag, value) = Self.split(line)
            switch tag {
            case "#EXT-X-STREAM-INF":
                guard let a = value.flatMap({ HLSAttributeList.parse($0) }), let bw = a.integer("BANDWIDTH", in: 1...Int(Int32.max)) else {
                    throw p.fail("EXT-X-STREAM-INF without a positive BANDWIDTH, or malformed")
                }
                var v = HLS.Variant(uri: "", bandwidth: bw, averageBandwidth: a.integer("AVERAGE-BANDWIDTH", in: 1...Int(Int32.max)),
                                    codecs: a.string("CODECS"), resolution: a.enumeration("RESOLUTION").flatMap(Self.resolution),
                                    audio: a.string("AUDIO"), video: a.string("VIDEO"), subtitles: a.string("SUBTITLES"))
                if let f = a.seconds("FRAME-RATE"), f > .zero { v.frameRate = Rational(f.value, f.timescale) }
                if a.enumeration("CLOSED-CAPTIONS") == "NONE" { v.closedCaptions = HLS.ClosedCaptions.none }
                else if let g = a.string("CLOSED-CAPTIONS") { v.closedCaptions = .group(g) }
                pending = v
            case "#EXT-X-MEDIA":
                guard let a = value.flatMap({ HLSAttributeList.parse($0) }), let type = a.enumeration("TYPE").flatMap(HLS.MediaType.init(rawValue:)),
                      let group = a.string("GROUP-ID"), let name = a.string("NAME") else {
                    p.skip("EXT-X-MEDIA without TYPE, GROUP-ID and NAME, or malformed"); return
                }
                playlist.renditions.append(HLS.Rendition(
                    type: type, groupID: group, name: name, language: a.string("LANGUAGE"), assocLanguage: a.string("ASSOC-LANGUAGE"),
                    isDefault: a.yes("DEFAULT"), autoselect: a.yes("AUTOSELECT"), forced: a.yes("FORCED"), instreamID: a.string("INSTREAM-ID"),
                    characteristics: a.string("CHARACTERISTICS"), channels: a.string("CHANNELS"), uri: a.string("URI")))
            case "#EXT-X-I-FRAME-STREAM-INF":
                guard let a = value.flatMap({ HLSAttributeList.parse($0) }), let uri = a.string("URI"),
                      let bw = a.integer("BANDWIDTH", in: 1...Int(Int32.max)) else { p.skip("EXT-X-I-FRAME-STREAM-INF without URI and BANDWIDTH"); return }
                playlist.iFrameVariants.append(HLS.IFrameVariant(uri: uri, bandwidth: bw, codecs: a.string("CODECS"),
                                                                 resolution: a.enumeration("RESOLUTION").flatMap(Self.resolution)))
            case "#EXT-X-INDEPENDENT-SEGMENTS": playlist.independentSegments = true
            case "#EXTINF", "#EXT-X-TARGETDURATION", "#EXT-X-MEDIA-SEQUENCE":
                throw p.fail("a media playlist tag in a multivariant playlist")
            default: break
            }
        }
        if pending != nil { throw HLS.ParseError(line: lines.count, reason: "EXT-X-STREAM-INF without a URI after it") }
        return playlist
    }

    static func resolution(_ s: String) -> HLS.Resolution? {
        let parts = s.split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (1...65_535).contains(w), (1...65_535).contains(h) else { return nil }
        return HLS.Resolution(width: w, height: h)
    }
}
