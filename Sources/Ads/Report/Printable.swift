// Text from a document made safe to print: a terminal sees no byte an ad server chose.

/// Escapes what a terminal or a log would act on instead of showing: C0 and C1 control characters
/// (NUL, ESC, CR, LF, DEL, …) and the bidirectional overrides, as `\x1B` or `\u{202E}`. Every
/// message built from a document's text goes through it (the error types' initialisers do it),
/// so a NUL in an encoding name or an escape sequence in a URL reaches stderr as visible text.
///
/// ```swift
/// Printable.escaped("Shift\u{0}JIS")   // "Shift\\x00JIS"
/// ```
public enum Printable {
    /// `text` with every control character written as an escape; the rest unchanged.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = String.UnicodeScalarView()
        for s in text.unicodeScalars {
            guard needsEscape(s) else { out.append(s); continue }
            let hex = String(s.value, radix: 16, uppercase: true)
            let escape = s.value < 0x100 ? "\\x" + (hex.count < 2 ? "0" + hex : hex) : "\\u{\(hex)}"
            out.append(contentsOf: escape.unicodeScalars)
        }
        return String(out)
    }

    /// C0, DEL, C1, and the bidi embeddings, overrides and isolates.
    static func needsEscape(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0..<0x20, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
