import Ads
import Foundation
import Manifest

/// A TTML document (W3C TTML2 / IMSC1 text profile, as a DASH origin gives a Period's subtitles
/// in one `application/ttml+xml` file) read as WebVTT cues, which is what the service serves in
/// HLS and DASH: each `p` with its time (`begin`, `end` or `dur`, relative to its time
/// containers' `begin`, `par` semantics; a `p` without its own takes its container's), its text
/// with `br` as a line break and every other element's text kept (styling, regions and
/// positioning are not carried). Times: clock times (`01:02:03.5`, `01:02:03:12` frames) and
/// offset times (`1.5s`, `1500ms`, `2m`, `1h`, `48f`, `90000t`), with `ttp:frameRate`,
/// `ttp:frameRateMultiplier` and `ttp:tickRate`. The document comes from a network: the
/// project's hardened XML reader (no DTD, no entities), at most `SubtitleTrack.maxCues` cues of
/// `SubtitleTrack.maxCueText` bytes, times under a day.
enum TTMLImport {
    /// The cues of `data`, times in 90 kHz ticks from the document's zero (a Period's start);
    /// throws `StoreError.unsupported` with one line when it is not TTML it can read.
    static func cues(_ data: Data, what: String) throws -> [WebVTT.Cue] {
        let tree: XMLDocumentTree
        do { tree = try XMLTreeParser(maxBytes: 4 << 20).parse(data) } catch { throw StoreError.unsupported("\(what): not well-formed XML: \(error)") }
        let root = tree.root
        guard root.name == "tt" else { throw StoreError.unsupported("\(what) is not TTML (its root is \(root.name.prefix(40)))") }
        let clock = try Clock(root, what: what)
        guard let body = root.child("body") else { return [] }
        var out: [WebVTT.Cue] = []
        func walk(_ node: XMLElementNode, begin parentBegin: Double, end parentEnd: Double?) throws {
            let begin = parentBegin + (try node.attribute("begin").map { try clock.seconds($0) } ?? 0)
            var end = parentEnd
            if let e = node.attribute("end") { end = min(parentEnd ?? .infinity, parentBegin + (try clock.seconds(e))) }
            if let d = node.attribute("dur") { end = min(end ?? .infinity, begin + (try clock.seconds(d))) }
            if node.name == "p" {
                guard let end, end > begin else { return }
                let text = Self.text(tree.innerXML(node))
                guard !text.isEmpty, text.utf8.count <= SubtitleTrack.maxCueText else { return }
                guard out.count < SubtitleTrack.maxCues else { throw StoreError.unsupported("\(what): over \(SubtitleTrack.maxCues) cues") }
                out.append(WebVTT.Cue(start: Int64((begin * 90_000).rounded()), end: Int64((end * 90_000).rounded()), text: text))
                return
            }
            for child in node.children where child.name == "div" || child.name == "p" { try walk(child, begin: begin, end: end) }
        }
        try walk(body, begin: 0, end: nil)
        return out.sorted { ($0.start, $0.end) < ($1.start, $1.end) }
    }

    /// The text of a `p`'s inner XML: `br` a line break, every tag dropped, the five predefined
    /// entities and character references decoded, runs of white space one space, blank lines gone.
    static func text(_ xml: String) -> String {
        var s = xml.replacingOccurrences(of: #"<br\s*/?>"#, with: "\n", options: .regularExpression)
        s = s.replacingOccurrences(of: #"<[^>]*>"#, with: "", options: .regularExpression)
        s = decodingReferences(s)
        let lines = s.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).joined(separator: " ")
        }
        // a payload line of WebVTT never holds "-->" nor is blank
        return lines.filter { !$0.isEmpty }.joined(separator: "\n").replacingOccurrences(of: "-->", with: "->")
    }

    /// `s` with its character references (`&#233;`, `&#xE9;`) and the five predefined entities
    /// decoded; anything else after `&` kept as written.
    static func decodingReferences(_ s: String) -> String {
        guard s.contains("&") else { return s }
        var out = "", rest = Substring(s)
        let named = ["lt": "<", "gt": ">", "quot": "\"", "apos": "'", "amp": "&"]
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            let after = rest[rest.index(after: amp)...]
            if let semi = after.prefix(10).firstIndex(of: ";") {
                let name = after[..<semi]
                var decoded: String?
                if let n = named[String(name)] { decoded = n }
                else if name.hasPrefix("#x") || name.hasPrefix("#X") { decoded = UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init).map { String(Character($0)) } }
                else if name.hasPrefix("#") { decoded = UInt32(name.dropFirst()).flatMap(Unicode.Scalar.init).map { String(Character($0)) } }
                if let decoded {
                    out += decoded
                    rest = after[after.index(after: semi)...]
                    continue
                }
            }
            out += "&"
            rest = after
        }
        return out + rest
    }

    /// The document's time parameters.
    struct Clock {
        var frameRate = 30.0, tickRate = 1.0

        init(_ root: XMLElementNode, what: String) throws {
            if let f = root.attribute("frameRate") {
                guard let v = Double(f), v > 0, v <= 1000 else { throw StoreError.unsupported("\(what): a ttp:frameRate of \(f.prefix(20))") }
                frameRate = v
            }
            if let m = root.attribute("frameRateMultiplier") {
                let parts = m.split(separator: " ").compactMap { Double($0) }
                guard parts.count == 2, parts[0] > 0, parts[1] > 0 else { throw StoreError.unsupported("\(what): a ttp:frameRateMultiplier of \(m.prefix(20))") }
                frameRate *= parts[0] / parts[1]
            }
            if let t = root.attribute("tickRate") {
                guard let v = Double(t), v > 0, v <= 1e9 else { throw StoreError.unsupported("\(what): a ttp:tickRate of \(t.prefix(20))") }
                tickRate = v
            }
        }

        /// A time expression in seconds.
        func seconds(_ text: String) throws -> Double {
            let t = text.trimmingCharacters(in: .whitespaces)
            func bad() -> StoreError { StoreError.unsupported("TTML: a time expression \(t.prefix(40))") }
            var value: Double
            if t.contains(":") {
                let parts = t.split(separator: ":", omittingEmptySubsequences: false)
                guard parts.count == 3 || parts.count == 4, let h = Double(parts[0]), let m = Double(parts[1]), let s = Double(parts[2]),
                      h >= 0, m >= 0, m < 60, s >= 0, s < 61 else { throw bad() }
                value = h * 3600 + m * 60 + s
                if parts.count == 4 { guard let f = Double(parts[3]), f >= 0 else { throw bad() }; value += f / frameRate }
            } else {
                let units: [(String, Double)] = [("ms", 0.001), ("h", 3600), ("m", 60), ("s", 1), ("f", 1 / frameRate), ("t", 1 / tickRate)]
                guard let (unit, scale) = units.first(where: { t.hasSuffix($0.0) }), let n = Double(t.dropLast(unit.count)), n >= 0 else { throw bad() }
                value = n * scale
            }
            guard value.isFinite, value < 86_400 else { throw bad() }
            return value
        }
    }
}
