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
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 { out += String(format: "\\u%04x", u.value) } else { out.unicodeScalars.append(u) }
            }
        }
        out += "\""
    }
}
