import Foundation
import Timing

/// An attribute list (RFC 8216 §4.2): `NAME=value` pairs separated by commas, in order.
/// Written only through its typed appends, so every value has its kind's form; read by
/// `parse`, which keeps each value's raw text and whether it was quoted.
struct HLSAttributeList {
    /// One attribute as read.
    struct Attribute {
        var name: String
        /// The value's text (a quoted string without its quotes).
        var value: Substring
        var quoted: Bool
    }

    private(set) var text = ""
    private(set) var attributes: [Attribute] = []

    /// An empty list to write into.
    init() {}

    private mutating func append(_ name: String, _ value: String) {
        if !text.isEmpty { text += "," }
        text += name + "=" + value
    }

    /// `NAME="value"`.
    mutating func quoted(_ name: String, _ value: String?) {
        if let value { append(name, "\"" + HLSText.quotable(value) + "\"") }
    }

    /// `NAME=VALUE` (an enumerated string).
    mutating func enumerated(_ name: String, _ value: String?) {
        if let value { append(name, HLSText.enumerated(value)) }
    }

    /// `NAME=YES` when set.
    mutating func yes(_ name: String, _ flag: Bool) {
        if flag { append(name, "YES") }
    }

    /// `NAME=123`.
    mutating func integer(_ name: String, _ value: Int?) {
        if let value { append(name, String(value)) }
    }

    /// `NAME=1.500` (seconds to the millisecond).
    mutating func seconds(_ name: String, _ value: MediaTime?) {
        if let value { append(name, HLSText.seconds(value)) }
    }

    /// `NAME=0x…`.
    mutating func hex(_ name: String, _ value: [UInt8]?) {
        if let value { append(name, HLSText.hex(value)) }
    }

    /// `NAME=WxH`.
    mutating func resolution(_ name: String, _ value: HLS.Resolution?) {
        if let value { append(name, "\(value.width)x\(value.height)") }
    }

    /// `NAME=29.970` (three decimals).
    mutating func frameRate(_ name: String, _ value: Rational?) {
        if let value, value.denominator > 0 {
            append(name, HLSText.seconds(MediaTime(value: value.numerator, timescale: value.denominator)))
        }
    }

    /// A client attribute in its kind's form.
    mutating func client(_ a: HLS.ClientAttribute) {
        switch a.value {
        case .string(let s): quoted(a.name, s)
        case .hex(let b): hex(a.name, b)
        case .number(let t): seconds(a.name, t)
        }
    }

    // MARK: reading

    /// The attributes of `s`, in order; nil when it is not an attribute list (a name that is
    /// not `[A-Z0-9-]+`, a missing `=`, an unterminated quoted string, more than `limit`
    /// attributes, or a name given twice).
    static func parse(_ s: Substring, limit: Int = 64) -> HLSAttributeList? {
        var list = HLSAttributeList()
        var i = s.startIndex
        var names = Set<String>()
        while i < s.endIndex {
            let nameStart = i
            while i < s.endIndex, s[i] != "=" {
                let c = s[i]
                guard c.isASCII, c.isUppercase || c.isNumber || c == "-" else { return nil }
                i = s.index(after: i)
            }
            guard i < s.endIndex, i > nameStart else { return nil }
            let name = String(s[nameStart..<i])
            i = s.index(after: i)
            let value: Substring, quoted: Bool
            if i < s.endIndex, s[i] == "\"" {
                let start = s.index(after: i)
                guard let end = s[start...].firstIndex(of: "\"") else { return nil }
                value = s[start..<end]; quoted = true
                i = s.index(after: end)
                guard i == s.endIndex || s[i] == "," else { return nil }
            } else {
                let end = s[i...].firstIndex(of: ",") ?? s.endIndex
                value = s[i..<end]; quoted = false
                i = end
            }
            guard names.insert(name).inserted, list.attributes.count < limit else { return nil }
            list.attributes.append(Attribute(name: name, value: value, quoted: quoted))
            if i < s.endIndex { i = s.index(after: i) }   // the comma
        }
        return list
    }

    /// The value of `name`, if present.
    subscript(_ name: String) -> Substring? { attributes.first { $0.name == name }?.value }

    /// The quoted-string value of `name` (nil if absent or not quoted).
    func string(_ name: String) -> String? {
        attributes.first { $0.name == name && $0.quoted }.map { String($0.value) }
    }

    /// The enumerated-string value of `name` (nil if absent or quoted).
    func enumeration(_ name: String) -> String? {
        attributes.first { $0.name == name && !$0.quoted }.map { String($0.value) }
    }

    /// A decimal-integer in `range`.
    func integer(_ name: String, in range: ClosedRange<Int> = 0...Int(Int32.max)) -> Int? {
        guard let v = enumeration(name), v.count <= 18, v.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int(v),
              range.contains(n) else { return nil }
        return n
    }

    /// A non-negative decimal floating-point number of seconds.
    func seconds(_ name: String) -> MediaTime? { enumeration(name).flatMap { HLSText.seconds(parsing: Substring($0)) } }

    /// `YES`.
    func yes(_ name: String) -> Bool { enumeration(name) == "YES" }
}
