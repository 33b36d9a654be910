import Foundation

/// WebVTT text tracks as HLS carries them (RFC 8216 §3.5): a file's cues, and the
/// `X-TIMESTAMP-MAP` header that places its cue times on the MPEG-TS clock. One parser (for
/// origins: hostile text, read under bounds) and one writer (for the segments the service sends).
/// Times are 90 kHz ticks, the clock the map names; WebVTT writes milliseconds.
public enum WebVTT {
    /// The MIME type of a WebVTT file.
    public static let mimeType = "text/vtt"

    /// One cue.
    public struct Cue: Sendable, Hashable, Codable {
        /// Its identifier line, if any.
        public var id: String?
        /// Start, 90 kHz ticks (in a parsed file, the file's own cue time; see `File`).
        public var start: Int64
        /// End, 90 kHz ticks, after `start`.
        public var end: Int64
        /// The cue settings after the timing (`line:0 align:start` …), as written.
        public var settings: String
        /// The payload lines, joined by newlines (never a blank line, never `-->`).
        public var text: String

        /// A cue.
        public init(id: String? = nil, start: Int64, end: Int64, settings: String = "", text: String) {
            self.id = id; self.start = start; self.end = end; self.settings = settings; self.text = text
        }
    }

    /// `X-TIMESTAMP-MAP=MPEGTS:…,LOCAL:…`: cue time `local` is MPEG-TS time `mpegts`.
    public struct TimestampMap: Sendable, Hashable {
        /// The MPEG-TS time, 90 kHz ticks.
        public var mpegts: Int64
        /// The cue time it matches, 90 kHz ticks.
        public var local: Int64

        /// A map.
        public init(mpegts: Int64, local: Int64 = 0) { self.mpegts = mpegts; self.local = local }
    }

    /// A parsed file.
    public struct File: Sendable, Hashable {
        /// Its cues in file order, times as written.
        public var cues: [Cue]
        /// Its `X-TIMESTAMP-MAP`; nil when absent (RFC 8216 §3.5: cue time 0 is then MPEG-TS time 0).
        public var timestampMap: TimestampMap?

        /// The cues on the MPEG-TS clock: each time moved by the map (`mpegts - local`).
        public var cuesOnMPEGTSClock: [Cue] {
            let shift = timestampMap.map { $0.mpegts - $0.local } ?? 0
            return cues.map { var c = $0; c.start += shift; c.end += shift; return c }
        }
    }

    /// Why a text is not a WebVTT file that can be taken (one line).
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The reason.
        public var reason: String
        /// The reason.
        public var description: String { reason }
    }

    /// The largest MPEG-TS time a map may name (33 bits).
    public static let maxMPEGTS: Int64 = (1 << 33) - 1
    /// Longest cue time read: 100 hours.
    public static let maxTicks: Int64 = 100 * 3600 * 90_000

    /// Reads `text` (a BOM and CRLF line ends allowed): the `WEBVTT` signature, header lines
    /// (`X-TIMESTAMP-MAP` read, others skipped), then blocks separated by blank lines: `NOTE`,
    /// `STYLE` and `REGION` blocks skipped, cues read (an identifier line, a timing line, payload
    /// lines). A cue whose end is not after its start is dropped (it shows nothing); more than
    /// `maxCues` cues, or a timing or map that cannot be read, is an error.
    public static func parse(_ text: String, maxCues: Int = 100_000) throws -> File {
        var body = Substring(text)
        if body.hasPrefix("\u{FEFF}") { body = body.dropFirst() }
        let lines = body.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
        guard let first = lines.first, first.hasPrefix("WEBVTT"),
              first.count == 6 || first.dropFirst(6).first == " " || first.dropFirst(6).first == "\t" else {
            throw ParseError(reason: "not a WebVTT file (no WEBVTT signature)")
        }
        var i = 1
        var map: TimestampMap?
        // the header: up to the first blank line
        while i < lines.count, !lines[i].isEmpty {
            let line = lines[i]
            if line.contains("-->") { break }   // a cue right after the signature line
            if line.hasPrefix("X-TIMESTAMP-MAP=") {
                guard let m = timestampMap(line.dropFirst("X-TIMESTAMP-MAP=".count)) else {
                    throw ParseError(reason: "X-TIMESTAMP-MAP cannot be read: \(line.prefix(80))")
                }
                map = m
            }
            i += 1
        }
        var cues: [Cue] = []
        while i < lines.count {
            while i < lines.count, lines[i].isEmpty { i += 1 }
            guard i < lines.count else { break }
            let head = lines[i]
            if head.hasPrefix("NOTE") || head == "STYLE" || head.hasPrefix("STYLE ") || head == "REGION" || head.hasPrefix("REGION ") {
                while i < lines.count, !lines[i].isEmpty { i += 1 }
                continue
            }
            var id: String?
            if !head.contains("-->") {
                id = String(head)
                i += 1
                guard i < lines.count, lines[i].contains("-->") else {
                    // not a cue: skip the block
                    while i < lines.count, !lines[i].isEmpty { i += 1 }
                    continue
                }
            }
            guard let (start, end, settings) = timing(lines[i]) else {
                throw ParseError(reason: "a cue timing cannot be read: \(lines[i].prefix(80))")
            }
            i += 1
            var payload: [Substring] = []
            while i < lines.count, !lines[i].isEmpty, !lines[i].contains("-->") { payload.append(lines[i]); i += 1 }
            if end > start { cues.append(Cue(id: id, start: start, end: end, settings: settings, text: payload.joined(separator: "\n"))) }
            guard cues.count <= maxCues else { throw ParseError(reason: "more than \(maxCues) cues") }
        }
        return File(cues: cues, timestampMap: map)
    }

    /// A WebVTT file of `cues` (times as given, at least 0), with `X-TIMESTAMP-MAP` when `map` is set.
    public static func write(_ cues: [Cue], map: TimestampMap? = nil) -> String {
        var out = "WEBVTT\n"
        if let map { out += "X-TIMESTAMP-MAP=MPEGTS:\(map.mpegts),LOCAL:\(timestamp(map.local))\n" }
        for c in cues {
            out += "\n"
            if let id = c.id, !id.isEmpty { out += id + "\n" }
            out += timestamp(c.start) + " --> " + timestamp(c.end)
            if !c.settings.isEmpty { out += " " + c.settings }
            out += "\n"
            if !c.text.isEmpty { out += c.text + "\n" }
        }
        return out
    }

    /// `hh:mm:ss.ttt` of `ticks` (90 kHz), to the nearest millisecond; negative times written as 0.
    public static func timestamp(_ ticks: Int64) -> String {
        let ms = (max(0, ticks) + 45) / 90
        let h = ms / 3_600_000, m = ms / 60_000 % 60, s = ms / 1000 % 60, t = ms % 1000
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let three = t < 10 ? "00\(t)" : t < 100 ? "0\(t)" : "\(t)"
        return "\(two(h)):\(two(m)):\(two(s)).\(three)"
    }

    /// A WebVTT timestamp (`[hh:]mm:ss.ttt`) in 90 kHz ticks, nil when it is not one or past `maxTicks`.
    static func ticks(_ s: Substring) -> Int64? {
        let parts = s.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3, let last = parts.last else { return nil }
        let secs = last.split(separator: ".", omittingEmptySubsequences: false)
        guard secs.count == 2, secs[0].count == 2, secs[1].count == 3 else { return nil }
        func number(_ d: Substring, maxDigits: Int) -> Int64? {
            guard !d.isEmpty, d.count <= maxDigits, d.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            return Int64(d)
        }
        guard let sec = number(secs[0], maxDigits: 2), sec < 60, let ms = number(secs[1], maxDigits: 3),
              let min = number(parts[parts.count - 2], maxDigits: 2), min < 60, parts[parts.count - 2].count == 2 else { return nil }
        var hours: Int64 = 0
        if parts.count == 3 {
            guard let h = number(parts[0], maxDigits: 3), parts[0].count >= 2 else { return nil }
            hours = h
        }
        let total = ((hours * 60 + min) * 60 + sec) * 1000 + ms
        let t = total * 90
        return t <= maxTicks ? t : nil
    }

    /// A timing line: start, end and the settings after them.
    static func timing(_ line: Substring) -> (Int64, Int64, String)? {
        let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard fields.count >= 3, fields[1] == "-->", let start = ticks(fields[0]), let end = ticks(fields[2]) else { return nil }
        return (start, end, fields.dropFirst(3).joined(separator: " "))
    }

    /// `MPEGTS:n,LOCAL:t` (either order).
    static func timestampMap(_ value: Substring) -> TimestampMap? {
        var mpegts: Int64?, local: Int64?
        for field in value.split(separator: ",") {
            let f = field.trimmingCharacters(in: .whitespaces)
            if f.hasPrefix("MPEGTS:") {
                let digits = f.dropFirst(7)
                guard !digits.isEmpty, digits.count <= 12, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let v = Int64(digits), v <= maxMPEGTS else { return nil }
                mpegts = v
            } else if f.hasPrefix("LOCAL:") {
                guard let t = ticks(Substring(f.dropFirst(6))) else { return nil }
                local = t
            } else {
                return nil
            }
        }
        guard let mpegts, let local else { return nil }
        return TimestampMap(mpegts: mpegts, local: local)
    }
}
