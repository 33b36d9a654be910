import Foundation

/// An RFC 8216 (HTTP Live Streaming) checker for tests, written from the RFC's text alone (not
/// from any playlist code of this project): the MUST rules of §4 for media and multivariant
/// playlists, §7's version rules, and, refresh by refresh, §6.2.1/§6.2.2's rules for a live
/// playlist (`RefreshChecker`). Each check returns the violations found; an empty list means none.
///
/// A test that must tolerate a rule names it with a reason (`Allowance`); such violations are
/// still returned, marked allowed, so nothing is dropped silently:
///
///     let problems = RFC8216.check(media: text, allowing: [.init(rule: "4.3.2.6-time-zone", why: "…")])
///     #expect(problems.failures.isEmpty, "\(problems.failures.report)")
public enum RFC8216 {
    /// A broken rule: which one, where, and what was found.
    public struct Violation: Sendable, Equatable, CustomStringConvertible {
        /// The rule's stable identifier (`Rule.rawValue`), e.g. `6.2.2-window`.
        public let rule: String
        /// The RFC section that states the rule.
        public let section: String
        /// The 1-based line of the playlist (the latest refresh, for refresh rules), when one is to blame.
        public let line: Int?
        /// That line's text.
        public let text: String?
        /// What is wrong, in one line.
        public let message: String
        /// The reason given by the allowance that tolerates this rule, or nil when none does.
        public let allowedBecause: String?

        /// Whether an allowance tolerates it.
        public var isAllowed: Bool { allowedBecause != nil }

        /// One line: `§6.2.2 [6.2.2-window] line 3 `#EXT…`: message (allowed: why)`.
        public var description: String {
            var s = "§\(section) [\(rule)]"
            if let line { s += " line \(line)" }
            if let text { s += " `\(text.count > 160 ? text.prefix(157) + "..." : Substring(text))`" }
            s += ": \(message)"
            if let allowedBecause { s += " (allowed: \(allowedBecause))" }
            return s
        }
    }

    /// A rule a test tolerates, with the reason written down.
    public struct Allowance: Sendable, Equatable {
        /// The rule's identifier (`Rule.rawValue`).
        public let rule: String
        /// Why it is tolerated.
        public let why: String

        /// Tolerates `rule` (an identifier such as `4.3.2.6-time-zone`) because of `why`.
        public init(rule: String, why: String) {
            self.rule = rule
            self.why = why
        }

        /// Tolerates `rule` because of `why`.
        public init(_ rule: Rule, why: String) { self.init(rule: rule.rawValue, why: why) }
    }

    /// The two kinds of playlist (§4.1).
    public enum Kind: Sendable, Equatable {
        /// Its URI lines are media segments.
        case media
        /// Its URI lines are media playlists (RFC 8216's "master playlist").
        case multivariant
    }

    /// The MUST rules of §4 and §7 for a media playlist.
    public static func check(media text: String, allowing allowances: [Allowance] = []) -> [Violation] {
        var findings = RFC8216Findings()
        _ = RFC8216MediaPlaylist.read(text, into: &findings)
        return findings.finish(allowing: allowances)
    }

    /// The MUST rules of §4 and §7 for a multivariant playlist.
    public static func check(multivariant text: String, allowing allowances: [Allowance] = []) -> [Violation] {
        var findings = RFC8216Findings()
        RFC8216Multivariant.check(text, into: &findings)
        return findings.finish(allowing: allowances)
    }

    /// The rules for whichever kind `text` is (`kind(of:)`).
    public static func check(playlist text: String, allowing allowances: [Allowance] = []) -> [Violation] {
        switch kind(of: text) {
        case .media: return check(media: text, allowing: allowances)
        case .multivariant: return check(multivariant: text, allowing: allowances)
        }
    }

    /// The kind a playlist's tags say it is: multivariant when it has EXT-X-STREAM-INF,
    /// EXT-X-I-FRAME-STREAM-INF or EXT-X-MEDIA and no EXTINF; media otherwise.
    public static func kind(of text: String) -> Kind {
        var multivariant = false, segments = false
        for line in RFC8216Line.split(text) {
            switch line.tagName {
            case "EXT-X-STREAM-INF", "EXT-X-I-FRAME-STREAM-INF", "EXT-X-MEDIA": multivariant = true
            case "EXTINF": segments = true
            default: break
            }
        }
        return multivariant && !segments ? .multivariant : .media
    }
}

extension Array where Element == RFC8216.Violation {
    /// The violations no allowance tolerates.
    public var failures: [RFC8216.Violation] { filter { !$0.isAllowed } }

    /// One violation a line, for a test's failure message.
    public var report: String { map(\.description).joined(separator: "\n") }
}

/// The violations of one check as they are found, with allowances applied at the end.
struct RFC8216Findings {
    private var found: [(rule: RFC8216.Rule, line: Int?, text: String?, message: String)] = []

    /// Notes a violation of `rule` at `line` (nil: the playlist as a whole).
    mutating func add(_ rule: RFC8216.Rule, _ line: RFC8216Line?, _ message: String) {
        found.append((rule, line?.number, line?.text, message))
    }

    /// Notes a violation at a line given by number and text.
    mutating func add(_ rule: RFC8216.Rule, line: Int?, text: String?, _ message: String) {
        found.append((rule, line, text, message))
    }

    /// The most violations of one rule reported one by one; the rest are counted in one more.
    static let perRule = 12

    /// The violations, each marked allowed when an allowance names its rule; an allowance naming
    /// no rule of the checker is itself reported.
    func finish(allowing allowances: [RFC8216.Allowance]) -> [RFC8216.Violation] {
        var out: [RFC8216.Violation] = []
        var counts: [RFC8216.Rule: Int] = [:]
        func why(_ rule: RFC8216.Rule) -> String? { allowances.first { $0.rule == rule.rawValue }?.why }
        for f in found {
            counts[f.rule, default: 0] += 1
            guard counts[f.rule]! <= Self.perRule else { continue }
            out.append(.init(rule: f.rule.rawValue, section: f.rule.section, line: f.line, text: f.text,
                             message: f.message, allowedBecause: why(f.rule)))
        }
        for (rule, count) in counts.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where count > Self.perRule {
            out.append(.init(rule: rule.rawValue, section: rule.section, line: nil, text: nil,
                             message: "\(count - Self.perRule) more like the above", allowedBecause: why(rule)))
        }
        for a in allowances where RFC8216.Rule(rawValue: a.rule) == nil {
            let rule = RFC8216.Rule.unknownAllowance
            out.append(.init(rule: rule.rawValue, section: rule.section, line: nil, text: nil,
                             message: "an allowance names `\(a.rule)`, which is no rule of this checker", allowedBecause: nil))
        }
        return out
    }
}

/// The tags RFC 8216 defines, by where they may appear, and what every playlist line must be.
enum RFC8216Text {
    /// Basic tags (§4.3.1): in both kinds.
    static let basic: Set<String> = ["EXTM3U", "EXT-X-VERSION"]
    /// Media segment tags (§4.3.2), with EXT-X-GAP, EXT-X-BITRATE and EXT-X-PART of the second edition.
    static let mediaSegment: Set<String> = ["EXTINF", "EXT-X-BYTERANGE", "EXT-X-DISCONTINUITY", "EXT-X-KEY", "EXT-X-MAP",
                                            "EXT-X-PROGRAM-DATE-TIME", "EXT-X-DATERANGE", "EXT-X-GAP", "EXT-X-BITRATE", "EXT-X-PART"]
    /// Media playlist tags (§4.3.3), with the second edition's low-latency ones.
    static let mediaPlaylist: Set<String> = ["EXT-X-TARGETDURATION", "EXT-X-MEDIA-SEQUENCE", "EXT-X-DISCONTINUITY-SEQUENCE",
                                             "EXT-X-ENDLIST", "EXT-X-PLAYLIST-TYPE", "EXT-X-I-FRAMES-ONLY", "EXT-X-PART-INF",
                                             "EXT-X-SERVER-CONTROL", "EXT-X-SKIP", "EXT-X-PRELOAD-HINT", "EXT-X-RENDITION-REPORT"]
    /// Master (multivariant) playlist tags (§4.3.4), with the second edition's content steering.
    static let multivariant: Set<String> = ["EXT-X-MEDIA", "EXT-X-STREAM-INF", "EXT-X-I-FRAME-STREAM-INF",
                                            "EXT-X-SESSION-DATA", "EXT-X-SESSION-KEY", "EXT-X-CONTENT-STEERING"]
    /// Media or master playlist tags (§4.3.5): at most once each.
    static let either: Set<String> = ["EXT-X-INDEPENDENT-SEGMENTS", "EXT-X-START"]

    /// Whether RFC 8216 (or its second edition, for the names above) defines the tag.
    static func isDefined(_ name: String) -> Bool {
        basic.contains(name) || mediaSegment.contains(name) || mediaPlaylist.contains(name) || multivariant.contains(name) || either.contains(name)
    }

    /// The checks every playlist gets, line by line: §4.1's characters and whitespace, EXTM3U
    /// first, tag names and balanced quotes, EXT-X-VERSION, and the §4.3.5 tags. Returns the
    /// lines, the EXT-X-VERSION value (nil when absent or unreadable), and whether the version
    /// is known (absent counts as 1; an unreadable one is already reported and compares to nothing).
    static func checkLines(_ text: String, into f: inout RFC8216Findings) -> (lines: [RFC8216Line], version: UInt64?, versionReadable: Bool) {
        let lines = RFC8216Line.split(text)
        if text.unicodeScalars.first == "\u{FEFF}" { f.add(.encoding, lines.first, "the playlist starts with a byte order mark") }
        if lines.first?.text != "#EXTM3U" {
            f.add(.extm3u, lines.first, lines.isEmpty ? "the playlist is empty" : "the first line is not #EXTM3U")
        }
        var version: UInt64?, versions = 0, readable = true
        var once: [String: Int] = [:]
        for line in lines {
            checkCharacters(line, into: &f)
            if line.kind == .blank || line.kind == .comment { continue }
            guard let name = line.tagName else { continue }
            checkTagSyntax(line, name: name, into: &f)
            switch name {
            case "EXTM3U":
                if line.tagValue != nil { f.add(.extm3u, line, "#EXTM3U takes no value") }
                if line.number != 1 { f.add(.extm3u, line, "#EXTM3U again after the first line") }
            case "EXT-X-VERSION":
                versions += 1
                if versions > 1 { f.add(.version, line, "a second EXT-X-VERSION (a playlist MUST NOT contain more than one)") }
                if let v = line.tagValue.flatMap(RFC8216Value.decimalInteger), v >= 1 {
                    if versions == 1 { version = v }
                } else {
                    f.add(.version, line, "EXT-X-VERSION is not a protocol version (a decimal-integer from 1)")
                    if versions == 1 { readable = false }
                }
            case "EXT-X-INDEPENDENT-SEGMENTS":
                if line.tagValue != nil { f.add(.independentSegments, line, "EXT-X-INDEPENDENT-SEGMENTS takes no value") }
            case "EXT-X-START":
                let spec = RFC8216TagSpec(rule: .start, types: ["TIME-OFFSET": .signedDecimalFloat, "PRECISE": .enumerated(["YES", "NO"])],
                                          required: ["TIME-OFFSET"])
                _ = spec.read(line, into: &f)
            default: break
            }
            if either.contains(name) {
                once[name, default: 0] += 1
                if once[name] == 2 { f.add(.onceInPlaylist, line, "\(name) appears more than once") }
            }
        }
        return (lines, version, readable)
    }

    /// §4.1: no control characters but the line terminators, normalization form C; whitespace
    /// only inside quoted-strings and the EXTINF title (for any tag line), none in a URI line.
    static func checkCharacters(_ line: RFC8216Line, into f: inout RFC8216Findings) {
        if let bad = line.text.unicodeScalars.first(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            f.add(.encoding, line, String(format: "a control character U+%04X", bad.value))
        }
        if !line.text.precomposedStringWithCanonicalMapping.unicodeScalars.elementsEqual(line.text.unicodeScalars) {
            f.add(.encoding, line, "the line is not in Unicode normalization form C")
        }
        switch line.kind {
        case .comment: return
        case .blank:
            if !line.text.isEmpty { f.add(.whitespace, line, "a line of whitespace") }
        case .uri:
            if line.text.contains(where: isWhitespace) { f.add(.whitespace, line, "whitespace in a URI line") }
            if let bad = line.text.first(where: { !isURICharacter($0) && !isWhitespace($0) }) {
                f.add(.uri, line, "`\(bad)` is not a URI character (RFC 3986: percent-encode it)")
            }
        case .tag(let name, _):
            var quoted = false
            for c in line.text {
                if c == "\"" { quoted.toggle() }
                if name == "EXTINF" && c == "," && !quoted { break }   // the title is free text
                if isWhitespace(c) && !quoted {
                    f.add(.whitespace, line, "whitespace outside a quoted-string"); break
                }
            }
        }
    }

    /// A tag line, known or not: `#EXT` and a name of `[A-Z0-9-]`, then nothing or a non-empty
    /// `:value` whose quotes pair up (§4.1's tags; §6.3.1 lets clients ignore unknown ones, so
    /// their form is all that can be asked of them).
    static func checkTagSyntax(_ line: RFC8216Line, name: String, into f: inout RFC8216Findings) {
        if !name.allSatisfy(RFC8216AttributeList.isAttributeNameCharacter) {
            f.add(.tagSyntax, line, "the tag name `\(name)` is not of [A-Z0-9-] (tags are case sensitive)")
        }
        if let value = line.tagValue {
            if value.isEmpty { f.add(.tagSyntax, line, "a colon with no value after it") }
            if value.filter({ $0 == "\"" }).count % 2 == 1 && name != "EXTINF" { f.add(.tagSyntax, line, "an unpaired double quote") }
        }
    }

    /// RFC 3986's characters: unreserved, reserved, and `%`.
    static func isURICharacter(_ c: Character) -> Bool {
        guard c.isASCII, let v = c.asciiValue else { return false }
        if (0x30...0x39).contains(v) || (0x41...0x5A).contains(v) || (0x61...0x7A).contains(v) { return true }
        return "-._~:/?#[]@!$&'()*+,;=%".contains(c)
    }

    /// Reports each tag of the other kind of playlist (§4.1: a playlist is one or the other;
    /// §4.3.2, §4.3.3, §4.3.4: their tags MUST NOT mix).
    static func checkKind(_ lines: [RFC8216Line], expected: RFC8216.Kind, into f: inout RFC8216Findings) {
        for line in lines {
            guard let name = line.tagName else { continue }
            switch expected {
            case .media where multivariant.contains(name):
                f.add(.kind, line, "\(name) is a multivariant playlist tag, in a media playlist")
            case .multivariant where mediaSegment.contains(name) || mediaPlaylist.contains(name):
                f.add(.kind, line, "\(name) is a media \(mediaSegment.contains(name) ? "segment" : "playlist") tag, in a multivariant playlist")
            default: break
            }
        }
    }
}
