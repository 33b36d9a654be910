// A tiny ordered JSON value and serializer: stable key order, explicit nulls.
import Foundation

/// A JSON value with ordered object keys, for reports whose layout people read and diff.
public indirect enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` / `false`.
    case bool(Bool)
    /// An integer.
    case int(Int)
    /// A number (finite; non-finite values print as null).
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object with keys in insertion order.
    case object([(String, JSONValue)])

    /// Equal when both serialize to the same JSON text (key order counts).
    public static func == (l: JSONValue, r: JSONValue) -> Bool { l.serialized() == r.serialized() }
    /// Hashes the serialized JSON text.
    public func hash(into h: inout Hasher) { h.combine(serialized()) }

    /// A string, or null when nil.
    public static func string(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }

    /// The value under `key` of an object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let pairs) = self { return pairs.first { $0.0 == key }?.1 }
        return nil
    }

    /// Compact (or pretty, two-space indented) JSON text.
    public func serialized(pretty: Bool = false) -> String {
        var out = ""
        write(into: &out, pretty: pretty, indent: 0)
        return out
    }

    private func write(into out: inout String, pretty: Bool, indent: Int) {
        let nl = pretty ? "\n" : ""
        let pad = pretty ? String(repeating: "  ", count: indent + 1) : ""
        let endPad = pretty ? String(repeating: "  ", count: indent) : ""
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .number(let d):
            if !d.isFinite { out += "null" }
            else if d == d.rounded(), abs(d) < 1e15 { out += String(Int64(d)) }
            else { out += String(d) }
        case .string(let s): JSONValue.quote(s, into: &out)
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            out += "[" + nl
            for (i, v) in items.enumerated() {
                out += pad
                v.write(into: &out, pretty: pretty, indent: indent + 1)
                out += (i + 1 < items.count ? "," : "") + nl
            }
            out += endPad + "]"
        case .object(let pairs):
            if pairs.isEmpty { out += "{}"; return }
            out += "{" + nl
            for (i, (k, v)) in pairs.enumerated() {
                out += pad
                JSONValue.quote(k, into: &out)
                out += pretty ? ": " : ":"
                v.write(into: &out, pretty: pretty, indent: indent + 1)
                out += (i + 1 < pairs.count ? "," : "") + nl
            }
            out += endPad + "}"
        }
    }

    static func quote(_ s: String, into out: inout String) {
        out += "\""
        escape(s, into: &out)
        out += "\""
    }

    /// `s` as the inside of a JSON string, in the reports' style (`JSONEscaping.reports`),
    /// appended to `out`.
    package static func escape(_ s: String, into out: inout String) {
        var bytes: [UInt8] = []
        escape(s, .reports, into: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }

    /// `s` as the inside of a JSON string, escaped in `style`, appended to `out` as UTF-8: the
    /// one JSON string escaper of the package (the reports, the service's log lines, a POSTed
    /// ad request's body). Only ASCII bytes are escaped; other UTF-8 passes through whole.
    package static func escape(_ s: String, _ style: JSONEscaping, into out: inout [UInt8]) {
        var s = s
        s.withUTF8 { bytes in
            out.reserveCapacity(out.count + bytes.count + 8)
            // runs of bytes that need no escape are appended whole (a request path's log line
            // appended byte by byte was a tenth of a kept playlist's instructions)
            var run = 0
            for i in bytes.indices {
                let b = bytes[i]
                switch b {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0..<0x20: break
                case UInt8(ascii: "/") where style.slash: break
                default: continue
                }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<i]))
                run = i + 1
                switch b {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(UInt8(ascii: "\\")); out.append(b)
                case 0x0A: out += #"\n"#.utf8
                case 0x0D: out += #"\r"#.utf8
                case 0x09: out += #"\t"#.utf8
                case 0x08 where style.shortControls: out += #"\b"#.utf8
                case 0x0C where style.shortControls: out += #"\f"#.utf8
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    out += "\\u00".utf8
                    out.append(hex[Int(b >> 4)]); out.append(hex[Int(b & 15)])
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run...]))
        }
    }
}

/// How `JSONValue.escape` writes a string: quotes, backslashes, LF, CR and tab always escaped,
/// other control characters as `\u00XX`; `slash` escapes `/` too and `shortControls` writes
/// backspace and form feed as `\b` and `\f` (what Foundation's JSONSerialization does).
package struct JSONEscaping: Sendable {
    /// Escape `/`.
    package var slash: Bool
    /// `\b` and `\f` for backspace and form feed.
    package var shortControls: Bool

    /// The reports' JSON (`JSONValue`'s text).
    package static let reports = JSONEscaping(slash: false, shortControls: false)
    /// As JSONSerialization writes it (the service's log lines, which also hold its objects).
    package static let foundation = JSONEscaping(slash: true, shortControls: true)
}
