import Foundation
import Timing

/// One line of a playlist as RFC 8216 §4.1 classifies it: blank, comment, tag (`#EXT…`) or URI.
/// The checker's own reading, written from the RFC and independent of the service's writer.
struct RFC8216Line: Sendable {
    /// What the line is.
    enum Kind: Sendable, Equatable {
        /// Empty: ignored (§4.1).
        case blank
        /// Starts with `#` but not `#EXT`: ignored (§4.1).
        case comment
        /// Starts with `#EXT`: the name after `#` up to the first `:`, and what follows the `:`.
        case tag(name: String, value: String?)
        /// Anything else.
        case uri
    }

    /// 1-based line number in the playlist.
    let number: Int
    /// The line without its terminator (LF or CR LF).
    let text: String
    /// Its classification.
    let kind: Kind

    /// The tag's name (`EXTINF`, `EXT-X-KEY`, …), or nil when the line is not a tag.
    var tagName: String? { if case .tag(let name, _) = kind { return name }; return nil }
    /// The tag's value (after `:`), or nil when there is none or the line is not a tag.
    var tagValue: String? { if case .tag(_, let value) = kind { return value }; return nil }
    /// Whether the line is a URI line.
    var isURI: Bool { kind == .uri }

    /// Splits a playlist into lines: each ends at LF, and a CR right before an LF belongs to the
    /// terminator (§4.1). A final line without LF is a line too; nothing after the last LF is none.
    /// A byte order mark is not part of the first line (it is reported apart, §4.1). The split is
    /// by Unicode scalars: to Swift, CR LF is one Character.
    static func split(_ text: String) -> [RFC8216Line] {
        var scalars = Substring(text).unicodeScalars
        if scalars.first == "\u{FEFF}" { scalars = scalars.dropFirst() }
        var raw = scalars.split(separator: "\n", omittingEmptySubsequences: false)
        if raw.last?.isEmpty == true { raw.removeLast() }
        return raw.enumerated().map { index, line in
            let body = line.last == "\r" ? line.dropLast() : line
            let text = String(String.UnicodeScalarView(body))
            return RFC8216Line(number: index + 1, text: text, kind: classify(text))
        }
    }

    static func classify(_ line: String) -> Kind {
        if line.allSatisfy(isWhitespace) { return .blank }   // whitespace is reported apart
        if line.hasPrefix("#EXT") {
            let body = line.dropFirst()
            if let colon = body.firstIndex(of: ":") {
                return .tag(name: String(body[..<colon]), value: String(body[body.index(after: colon)...]))
            }
            return .tag(name: String(body), value: nil)
        }
        if line.hasPrefix("#") { return .comment }
        return .uri
    }
}

/// An attribute/value pair of an attribute-list (§4.2).
struct RFC8216Attribute: Sendable, Equatable {
    /// The AttributeName.
    let name: String
    /// The AttributeValue as written (with its quotes, if quoted).
    let raw: String
    /// Whether the value is a quoted-string.
    var isQuoted: Bool { raw.hasPrefix("\"") }
    /// The value without its quotes.
    var value: String { isQuoted ? String(raw.dropFirst().dropLast()) : raw }
}

/// An attribute-list read by the §4.2 grammar: `NAME=VALUE` pairs separated by commas, names of
/// `[A-Z0-9-]`, values either a quoted-string or an unquoted run without commas, quotes or
/// whitespace.
struct RFC8216AttributeList: Sendable {
    /// The pairs in order.
    let attributes: [RFC8216Attribute]

    /// The value of the first pair named `name`.
    subscript(_ name: String) -> RFC8216Attribute? { attributes.first { $0.name == name } }

    /// The names that appear more than once (§4.2: a name MUST NOT appear twice).
    var duplicateNames: [String] {
        var seen = Set<String>(), twice: [String] = []
        for a in attributes where !seen.insert(a.name).inserted && !twice.contains(a.name) { twice.append(a.name) }
        return twice
    }

    /// Reads `text`; on a grammar error, the reason.
    static func parse(_ text: String) -> Result<RFC8216AttributeList, RFC8216SyntaxError> {
        var pairs: [RFC8216Attribute] = []
        var rest = Substring(text)
        guard !rest.isEmpty else { return .failure(RFC8216SyntaxError("an empty attribute-list")) }
        while true {
            guard let equals = rest.firstIndex(of: "=") else {
                return .failure(RFC8216SyntaxError("`\(rest.prefix(40))` is not NAME=VALUE"))
            }
            let name = String(rest[..<equals])
            guard !name.isEmpty, name.allSatisfy(isAttributeNameCharacter) else {
                return .failure(RFC8216SyntaxError("AttributeName `\(name)` is not of [A-Z0-9-]"))
            }
            rest = rest[rest.index(after: equals)...]
            let raw: Substring
            if rest.first == "\"" {
                guard let close = rest.dropFirst().firstIndex(of: "\"") else {
                    return .failure(RFC8216SyntaxError("\(name): the quoted-string is not closed"))
                }
                raw = rest[...close]
                rest = rest[rest.index(after: close)...]
            } else {
                let end = rest.firstIndex(of: ",") ?? rest.endIndex
                raw = rest[..<end]
                rest = rest[end...]
                guard !raw.isEmpty else { return .failure(RFC8216SyntaxError("\(name) has an empty value")) }
                if raw.contains("\"") { return .failure(RFC8216SyntaxError("\(name)=\(raw): a quote inside an unquoted value")) }
                if raw.contains(where: isWhitespace) { return .failure(RFC8216SyntaxError("\(name)=\(raw): whitespace in an unquoted value")) }
            }
            pairs.append(RFC8216Attribute(name: name, raw: String(raw)))
            if rest.isEmpty { break }
            guard rest.first == "," else {
                return .failure(RFC8216SyntaxError("after \(name)=\(raw): `\(rest.prefix(20))` where a comma or the end belongs"))
            }
            rest = rest.dropFirst()
            guard !rest.isEmpty else { return .failure(RFC8216SyntaxError("a comma ends the list")) }
        }
        return .success(RFC8216AttributeList(attributes: pairs))
    }

    static func isAttributeNameCharacter(_ c: Character) -> Bool {
        ("A"..."Z").contains(c) || ("0"..."9").contains(c) || c == "-"
    }
}

/// Why a piece of playlist text does not follow the RFC's grammar.
struct RFC8216SyntaxError: Error, Sendable {
    /// One line of explanation.
    let reason: String
    init(_ reason: String) { self.reason = reason }
}

/// Whitespace as the checker counts it: space and horizontal tab.
func isWhitespace(_ c: Character) -> Bool { c == " " || c == "\t" }

/// The value types of §4.2, each as a check of an unquoted or quoted value.
enum RFC8216Value {
    /// decimal-integer: 1 to 20 digits, at most 2^64-1.
    static func decimalInteger(_ s: String) -> UInt64? {
        guard (1...20).contains(s.count), s.allSatisfy({ ("0"..."9").contains($0) }) else { return nil }
        return UInt64(s)
    }

    /// decimal-floating-point: digits and at most one `.`, at least one digit; its exact value.
    static func decimalFloat(_ s: String) -> MediaTime? {
        guard s.contains(where: { ("0"..."9").contains($0) }),
              s.allSatisfy({ ("0"..."9").contains($0) || $0 == "." }),
              s.filter({ $0 == "." }).count <= 1 else { return nil }
        return MediaTime(decimal: s)
    }

    /// signed-decimal-floating-point: an optional `-`, then a decimal-floating-point.
    static func signedDecimalFloat(_ s: String) -> MediaTime? {
        if s.hasPrefix("-") {
            guard let v = decimalFloat(String(s.dropFirst())) else { return nil }
            return -v
        }
        return decimalFloat(s)
    }

    /// hexadecimal-sequence: `0x` or `0X`, then at least one of `[0-9A-F]`; its digit count.
    static func hexadecimal(_ s: String) -> Int? {
        guard s.hasPrefix("0x") || s.hasPrefix("0X") else { return nil }
        let digits = s.dropFirst(2)
        guard !digits.isEmpty, digits.allSatisfy({ ("0"..."9").contains($0) || ("A"..."F").contains($0) }) else { return nil }
        return digits.count
    }

    /// decimal-resolution: two decimal-integers joined by `x`.
    static func resolution(_ s: String) -> (width: UInt64, height: UInt64)? {
        let parts = s.split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = decimalInteger(String(parts[0])), let h = decimalInteger(String(parts[1])) else { return nil }
        return (w, h)
    }

    /// `n[@o]` (§4.3.2.2): a length and an optional offset, both decimal-integers.
    static func byteRange(_ s: String) -> (length: UInt64, offset: UInt64?)? {
        let parts = s.split(separator: "@", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let n = decimalInteger(String(parts[0])) else { return nil }
        if parts.count == 1 { return (n, nil) }
        guard let o = decimalInteger(String(parts[1])) else { return nil }
        return (n, o)
    }
}
