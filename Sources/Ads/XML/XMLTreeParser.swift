// A small, strict, non-validating XML parser in pure Swift, built for hostile ad responses.
//
// Why not FoundationXML's XMLParser: on Linux it is libxml2, whose DTD and entity machinery is the
// attack surface (XXE, billion laughs); it needs namespace processing off to survive undeclared
// prefixes; and it is opaque to libFuzzer's coverage. This parser has no DTD support at all: any
// `<!DOCTYPE` or `<!ENTITY` is refused, only the five predefined entities and character references
// are decoded, nesting depth and size are capped, and every error is a thrown value, never a crash.
import Foundation

/// Parses bytes into an `XMLDocumentTree`; refuses DTDs, entity declarations and oversized input.
public struct XMLTreeParser: Sendable {
    /// Largest document accepted, in bytes.
    public var maxBytes: Int
    /// Deepest element nesting accepted.
    public var maxDepth: Int

    /// A parser with the given caps (defaults: 2 MiB, 256 levels).
    public init(maxBytes: Int = 2 << 20, maxDepth: Int = 256) {
        self.maxBytes = maxBytes
        self.maxDepth = maxDepth
    }

    /// Parses a whole document. Throws `XMLTreeError` for anything that is not well-formed or is refused.
    public func parse(_ data: Data) throws(XMLTreeError) -> XMLDocumentTree {
        try parse(bytes: [UInt8](data))
    }

    /// Parses a whole document from bytes.
    public func parse(bytes input: [UInt8]) throws(XMLTreeError) -> XMLDocumentTree {
        guard input.count <= maxBytes else {
            throw XMLTreeError(message: "document is \(input.count) bytes, over the \(maxBytes)-byte cap", line: 1,
                               isSecurityRejection: true)
        }
        let bytes: [UInt8]
        switch XMLEncoding.utf8(input) {
        case .success(let b): bytes = b
        case .failure(let e): throw e
        }
        if let bad = XMLTreeParser.securityScan(bytes) {
            throw XMLTreeError(message: bad, line: 1, isSecurityRejection: true)
        }
        var state = State(bytes: bytes, maxDepth: maxDepth)
        let root = try state.run()
        return XMLDocumentTree(root: root, source: bytes)
    }

    /// Returns a refusal message when the bytes contain a DTD or entity declaration, before any
    /// parsing. Text inside comments and CDATA sections is content, not markup (an HTML companion
    /// resource may well start with `<!DOCTYPE html>`), and is skipped.
    public static func securityScan(_ bytes: [UInt8]) -> String? {
        // "<!DOCTYPE" / "<!ENTITY" as markup (case-insensitive): no legitimate ad response needs either.
        let doctype = Array("<!DOCTYPE".utf8), entity = Array("<!ENTITY".utf8)
        let cdata = Array("<![CDATA[".utf8), comment = Array("<!--".utf8)
        var i = 0
        let n = bytes.count
        while i + 1 < n {
            if bytes[i] == UInt8(ascii: "<") && bytes[i + 1] == UInt8(ascii: "!") {
                if bytes[i...].starts(with: cdata) {
                    guard let end = firstIndex(of: Array("]]>".utf8), in: bytes, from: i + cdata.count) else { return nil }
                    i = end + 3
                    continue
                }
                if bytes[i...].starts(with: comment) {
                    guard let end = firstIndex(of: Array("-->".utf8), in: bytes, from: i + comment.count) else { return nil }
                    i = end + 3
                    continue
                }
                if matchesCaseInsensitive(bytes, at: i, doctype) { return "DTD (<!DOCTYPE) refused: no DTDs or external entities" }
                if matchesCaseInsensitive(bytes, at: i, entity) { return "entity declaration (<!ENTITY) refused" }
            }
            i += 1
        }
        return nil
    }

    private static func firstIndex(of pattern: [UInt8], in b: [UInt8], from: Int) -> Int? {
        var p = from
        while p + pattern.count <= b.count {
            if b[p] == pattern[0], b[p..<(p + pattern.count)].elementsEqual(pattern) { return p }
            p += 1
        }
        return nil
    }

    private static func matchesCaseInsensitive(_ b: [UInt8], at i: Int, _ pattern: [UInt8]) -> Bool {
        guard i + pattern.count <= b.count else { return false }
        for k in 0..<pattern.count {
            var c = b[i + k]
            if c >= 97 && c <= 122 { c -= 32 }
            if c != pattern[k] { return false }
        }
        return true
    }

    // MARK: - The scanner

    private struct Frame {
        var qualifiedName: String
        var attributes: [XMLAttribute]
        var children: [XMLElementNode]
        var text: [UInt8]
        var start: Int
        var innerStart: Int
    }

    private struct State {
        let b: [UInt8]
        let maxDepth: Int
        var i = 0
        var stack: [Frame] = []
        var root: XMLElementNode?

        init(bytes: [UInt8], maxDepth: Int) {
            self.b = bytes
            self.maxDepth = maxDepth
        }

        func fail(_ message: String, security: Bool = false) -> XMLTreeError {
            var line = 1
            var k = 0
            let end = Swift.min(i, b.count)
            while k < end { if b[k] == 10 { line += 1 }; k += 1 }
            return XMLTreeError(message: message, line: line, isSecurityRejection: security)
        }

        func starts(with s: StaticString, at pos: Int) -> Bool {
            let n = s.utf8CodeUnitCount
            guard pos + n <= b.count else { return false }
            return s.withUTF8Buffer { buf in
                for k in 0..<n where b[pos + k] != buf[k] { return false }
                return true
            }
        }

        /// Index of the first occurrence of `s` at or after `from`, or nil.
        func find(_ s: StaticString, from: Int) -> Int? {
            let n = s.utf8CodeUnitCount
            return s.withUTF8Buffer { buf -> Int? in
                guard n > 0 else { return from }
                var p = from
                let first = buf[0]
                while p + n <= b.count {
                    if b[p] == first {
                        var ok = true
                        for k in 1..<n where b[p + k] != buf[k] { ok = false; break }
                        if ok { return p }
                    }
                    p += 1
                }
                return nil
            }
        }

        static func isSpace(_ c: UInt8) -> Bool { c == 32 || c == 9 || c == 10 || c == 13 }
        static func isNameStart(_ c: UInt8) -> Bool {
            (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 95 || c == 58 || c >= 0x80
        }
        static func isNameChar(_ c: UInt8) -> Bool {
            isNameStart(c) || (c >= 48 && c <= 57) || c == 45 || c == 46
        }

        mutating func run() throws(XMLTreeError) -> XMLElementNode {
            while i < b.count {
                let c = b[i]
                if c == UInt8(ascii: "<") {
                    if starts(with: "<?", at: i) {
                        guard let e = find("?>", from: i + 2) else { throw fail("unterminated processing instruction") }
                        i = e + 2
                    } else if starts(with: "<!--", at: i) {
                        guard let e = find("-->", from: i + 4) else { throw fail("unterminated comment") }
                        i = e + 3
                    } else if starts(with: "<![CDATA[", at: i) {
                        guard !stack.isEmpty else { throw fail("CDATA outside the document element") }
                        guard let e = find("]]>", from: i + 9) else { throw fail("unterminated CDATA section") }
                        stack[stack.count - 1].text.append(contentsOf: b[(i + 9)..<e])
                        i = e + 3
                    } else if starts(with: "<!", at: i) {
                        throw fail("markup declaration refused (no DTDs)", security: true)
                    } else if starts(with: "</", at: i) {
                        try closeTag()
                    } else {
                        try openTag()
                    }
                } else {
                    try textRun()
                }
            }
            if !stack.isEmpty { throw fail("unexpected end of document inside <\(stack.last!.qualifiedName)>") }
            guard let root else { throw fail("no document element") }
            return root
        }

        mutating func textRun() throws(XMLTreeError) {
            let start = i
            while i < b.count && b[i] != UInt8(ascii: "<") { i += 1 }
            if stack.isEmpty {
                for k in start..<i where !State.isSpace(b[k]) {
                    i = k
                    throw fail(root == nil ? "text before the document element" : "text after the document element")
                }
                return
            }
            var out: [UInt8] = []
            out.reserveCapacity(i - start)
            try decode(b[start..<i], into: &out, at: start)
            stack[stack.count - 1].text.append(contentsOf: out)
        }

        /// Decodes entity and character references; refuses anything but the five predefined entities.
        func decode(_ slice: ArraySlice<UInt8>, into out: inout [UInt8], at base: Int) throws(XMLTreeError) {
            var k = slice.startIndex
            while k < slice.endIndex {
                let c = slice[k]
                if c != UInt8(ascii: "&") { out.append(c); k += 1; continue }
                var e = k + 1
                while e < slice.endIndex && slice[e] != UInt8(ascii: ";") && e - k < 12 { e += 1 }
                guard e < slice.endIndex, slice[e] == UInt8(ascii: ";") else {
                    throw XMLTreeError(message: "bare '&' or unterminated entity reference", line: lineOf(k), isSecurityRejection: false)
                }
                let name = String(decoding: slice[(k + 1)..<e], as: UTF8.self)
                switch name {
                case "lt": out.append(UInt8(ascii: "<"))
                case "gt": out.append(UInt8(ascii: ">"))
                case "amp": out.append(UInt8(ascii: "&"))
                case "quot": out.append(UInt8(ascii: "\""))
                case "apos": out.append(UInt8(ascii: "'"))
                default:
                    var scalarValue: UInt32?
                    if name.hasPrefix("#x") || name.hasPrefix("#X") {
                        scalarValue = UInt32(name.dropFirst(2), radix: 16)
                    } else if name.hasPrefix("#") {
                        scalarValue = UInt32(name.dropFirst(1), radix: 10)
                    }
                    guard let v = scalarValue, v != 0, let scalar = Unicode.Scalar(v) else {
                        throw XMLTreeError(message: "undefined entity '&\(name);'", line: lineOf(k), isSecurityRejection: false)
                    }
                    out.append(contentsOf: Array(String(Character(scalar)).utf8))
                }
                k = e + 1
            }
        }

        func lineOf(_ pos: Int) -> Int {
            var line = 1
            var k = 0
            while k < Swift.min(pos, b.count) { if b[k] == 10 { line += 1 }; k += 1 }
            return line
        }

        mutating func readName() throws(XMLTreeError) -> String {
            let start = i
            guard i < b.count, State.isNameStart(b[i]) else { throw fail("expected a name") }
            while i < b.count && State.isNameChar(b[i]) { i += 1 }
            return String(decoding: b[start..<i], as: UTF8.self)
        }

        mutating func skipSpace() { while i < b.count && State.isSpace(b[i]) { i += 1 } }

        mutating func openTag() throws(XMLTreeError) {
            let start = i
            i += 1
            if root != nil && stack.isEmpty { throw fail("second document element") }
            let qname = try readName()
            var attributes: [XMLAttribute] = []
            var seen = Set<String>()   // duplicate check in constant time: linear in attributes, not quadratic
            while true {
                let hadSpace = i < b.count && State.isSpace(b[i])
                skipSpace()
                guard i < b.count else { throw fail("unterminated start tag <\(qname)>") }
                if b[i] == UInt8(ascii: ">") { i += 1; break }
                if b[i] == UInt8(ascii: "/") {
                    guard i + 1 < b.count, b[i + 1] == UInt8(ascii: ">") else { throw fail("expected '/>' in <\(qname)>") }
                    i += 2
                    let node = XMLElementNode(name: localName(qname), qualifiedName: qname, attributes: attributes,
                                              children: [], text: "", outerRange: start..<i, innerRange: i..<i)
                    attach(node)
                    return
                }
                guard hadSpace else { throw fail("expected whitespace between attributes in <\(qname)>") }
                let aname = try readName()
                skipSpace()
                guard i < b.count, b[i] == UInt8(ascii: "=") else { throw fail("attribute '\(aname)' has no value") }
                i += 1
                skipSpace()
                guard i < b.count, b[i] == UInt8(ascii: "\"") || b[i] == UInt8(ascii: "'") else {
                    throw fail("attribute '\(aname)' value is not quoted")
                }
                let quote = b[i]
                i += 1
                let vstart = i
                while i < b.count && b[i] != quote {
                    if b[i] == UInt8(ascii: "<") { throw fail("'<' in the value of attribute '\(aname)'") }
                    i += 1
                }
                guard i < b.count else { throw fail("unterminated value of attribute '\(aname)'") }
                var value: [UInt8] = []
                try decode(b[vstart..<i], into: &value, at: vstart)
                i += 1
                guard seen.insert(aname).inserted else { throw fail("duplicate attribute '\(aname)'") }
                // Attribute-value normalisation of literal whitespace characters.
                let normalized = value.map { ($0 == 9 || $0 == 10 || $0 == 13) ? UInt8(32) : $0 }
                attributes.append(XMLAttribute(name: localName(aname), qualifiedName: aname,
                                               value: String(decoding: normalized, as: UTF8.self)))
            }
            guard stack.count < maxDepth else { throw fail("elements nested deeper than \(maxDepth) levels", security: true) }
            stack.append(Frame(qualifiedName: qname, attributes: attributes, children: [], text: [], start: start, innerStart: i))
        }

        mutating func closeTag() throws(XMLTreeError) {
            let tagStart = i
            i += 2
            let qname = try readName()
            skipSpace()
            guard i < b.count, b[i] == UInt8(ascii: ">") else { throw fail("malformed end tag </\(qname)>") }
            guard let top = stack.last else { throw fail("end tag </\(qname)> without a start tag") }
            guard top.qualifiedName == qname else { throw fail("end tag </\(qname)> does not match <\(top.qualifiedName)>") }
            i += 1
            stack.removeLast()
            let node = XMLElementNode(name: localName(qname), qualifiedName: qname, attributes: top.attributes,
                                      children: top.children, text: String(decoding: top.text, as: UTF8.self),
                                      outerRange: top.start..<i, innerRange: top.innerStart..<tagStart)
            attach(node)
        }

        mutating func attach(_ node: XMLElementNode) {
            if stack.isEmpty { root = node } else { stack[stack.count - 1].children.append(node) }
        }

        func localName(_ q: String) -> String {
            if let colon = q.lastIndex(of: ":") { return String(q[q.index(after: colon)...]) }
            return q
        }
    }
}
