import Timing

/// The type an attribute's value must have (§4.2), as a tag's definition gives it.
enum RFC8216AttributeType: Sendable {
    /// A quoted-string.
    case quoted
    /// An enumerated-string from the set.
    case enumerated(Set<String>)
    /// A decimal-integer.
    case decimalInteger
    /// A decimal-floating-point (or a decimal-integer).
    case decimalFloat
    /// A signed-decimal-floating-point.
    case signedDecimalFloat
    /// A hexadecimal-sequence of at most this many digits (nil: any).
    case hexadecimal(maxDigits: Int?)
    /// A decimal-resolution.
    case resolution
    /// A quoted-string, or an enumerated-string from the set (CLOSED-CAPTIONS).
    case quotedOrEnumerated(Set<String>)
    /// A client-defined `X-` attribute of EXT-X-DATERANGE: quoted-string, hexadecimal-sequence or decimal-floating-point.
    case clientDefined

    /// What is wrong with `a` as a value of this type, or nil when nothing is.
    func problem(_ a: RFC8216Attribute) -> String? {
        switch self {
        case .quoted:
            return a.isQuoted ? nil : "\(a.name)=\(a.raw) is not a quoted-string"
        case .enumerated(let values):
            if a.isQuoted { return "\(a.name)=\(a.raw) is quoted; it is an enumerated-string" }
            return values.contains(a.raw) ? nil : "\(a.name)=\(a.raw) is not one of \(values.sorted().joined(separator: ", "))"
        case .decimalInteger:
            return !a.isQuoted && RFC8216Value.decimalInteger(a.raw) != nil ? nil : "\(a.name)=\(a.raw) is not a decimal-integer"
        case .decimalFloat:
            return !a.isQuoted && RFC8216Value.decimalFloat(a.raw) != nil ? nil : "\(a.name)=\(a.raw) is not a decimal-floating-point (non-negative)"
        case .signedDecimalFloat:
            return !a.isQuoted && RFC8216Value.signedDecimalFloat(a.raw) != nil ? nil : "\(a.name)=\(a.raw) is not a signed-decimal-floating-point"
        case .hexadecimal(let maxDigits):
            guard !a.isQuoted, let digits = RFC8216Value.hexadecimal(a.raw) else {
                return "\(a.name)=\(a.raw.prefix(40)) is not a hexadecimal-sequence (0x or 0X, then [0-9A-F])"
            }
            if let maxDigits, digits > maxDigits { return "\(a.name) has \(digits) hex digits, more than \(maxDigits)" }
            return nil
        case .resolution:
            return !a.isQuoted && RFC8216Value.resolution(a.raw) != nil ? nil : "\(a.name)=\(a.raw) is not a decimal-resolution (WxH)"
        case .quotedOrEnumerated(let values):
            return a.isQuoted || values.contains(a.raw) ? nil : "\(a.name)=\(a.raw) is neither a quoted-string nor one of \(values.sorted().joined(separator: ", "))"
        case .clientDefined:
            if a.isQuoted || RFC8216Value.hexadecimal(a.raw) != nil || RFC8216Value.decimalFloat(a.raw) != nil { return nil }
            return "\(a.name)=\(a.raw.prefix(40)) is not a quoted-string, a hexadecimal-sequence or a decimal-floating-point"
        }
    }
}

/// A tag whose value is an attribute-list: the rule its definition falls under, its attributes'
/// types and the required ones. Attributes it does not name are ignored (§6.3.1), except
/// EXT-X-DATERANGE's `X-` ones, which have a type of their own.
struct RFC8216TagSpec: Sendable {
    let rule: RFC8216.Rule
    let types: [String: RFC8216AttributeType]
    var required: [String] = []
    var clientAttributes = false

    /// Reads the tag's attribute-list and reports what breaks §4.2 or the definition; nil when
    /// the list cannot be read at all.
    func read(_ line: RFC8216Line, into f: inout RFC8216Findings) -> RFC8216AttributeList? {
        let name = line.tagName ?? "?"
        guard let value = line.tagValue else {
            f.add(rule, line, "\(name) needs an attribute-list"); return nil
        }
        let list: RFC8216AttributeList
        switch RFC8216AttributeList.parse(value) {
        case .success(let l): list = l
        case .failure(let e): f.add(.attributeList, line, "\(name): \(e.reason)"); return nil
        }
        for d in list.duplicateNames { f.add(.duplicateAttribute, line, "\(name) has \(d) more than once") }
        for r in required where list[r] == nil { f.add(rule, line, "\(name) lacks \(r), which is REQUIRED") }
        for a in list.attributes {
            let type = types[a.name] ?? (clientAttributes && a.name.hasPrefix("X-") ? .clientDefined : nil)
            if let type, let problem = type.problem(a) { f.add(rule, line, "\(name): \(problem)") }
        }
        return list
    }
}
