// Character encodings of XML documents: XML 1.0 (§4.3.3, appendix F) requires UTF-8 and UTF-16
// and lets a document declare others; everything is turned into UTF-8 before parsing.
import Foundation

/// Detects a document's encoding (byte-order mark, the first bytes of `<?xml`, or the
/// `encoding` of its XML declaration) and transcodes it to UTF-8.
public enum XMLEncoding {
    /// The bytes as UTF-8 (a UTF-8 byte-order mark removed), or a one-line reason they cannot be.
    public static func utf8(_ bytes: [UInt8]) -> Result<[UInt8], XMLTreeError> {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return .success(Array(bytes.dropFirst(3))) }
        if bytes.starts(with: [0xFE, 0xFF]) { return transcode(Array(bytes.dropFirst(2)), .utf16BigEndian, "UTF-16") }
        if bytes.starts(with: [0xFF, 0xFE]) { return transcode(Array(bytes.dropFirst(2)), .utf16LittleEndian, "UTF-16") }
        if bytes.starts(with: [0x00, 0x3C, 0x00, 0x3F]) { return transcode(bytes, .utf16BigEndian, "UTF-16BE") }
        if bytes.starts(with: [0x3C, 0x00, 0x3F, 0x00]) { return transcode(bytes, .utf16LittleEndian, "UTF-16LE") }
        guard let declared = declaredEncoding(bytes) else { return .success(bytes) }
        switch declared.uppercased() {
        case "UTF-8", "UTF8", "US-ASCII", "ASCII":
            return .success(bytes)
        case "ISO-8859-1", "LATIN1", "LATIN-1", "ISO8859-1", "ISO_8859-1", "L1":
            return transcode(bytes, .isoLatin1, declared)
        case "WINDOWS-1252", "CP1252":
            return transcode(bytes, .windowsCP1252, declared)
        case "UTF-16", "UTF-16LE", "UTF-16BE":
            // Declared UTF-16 yet read as ASCII-compatible bytes: the declaration is wrong; take the bytes.
            return .success(bytes)
        default:
            return .failure(XMLTreeError(message: "encoding '\(declared)' is not supported (UTF-8, UTF-16, ISO-8859-1, windows-1252)",
                                         line: 1, isSecurityRejection: false))
        }
    }

    /// The `encoding` pseudo-attribute of a leading `<?xml …?>` declaration, if any.
    static func declaredEncoding(_ bytes: [UInt8]) -> String? {
        guard bytes.starts(with: Array("<?xml".utf8)) else { return nil }
        let head = bytes.prefix(200)
        guard let end = head.firstIndex(of: UInt8(ascii: ">")) else { return nil }
        let decl = String(decoding: head[..<end], as: UTF8.self)
        guard let r = decl.range(of: "encoding") else { return nil }
        var rest = decl[r.upperBound...].drop { $0 == " " || $0 == "=" || $0 == "\t" }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        rest = rest.dropFirst()
        guard let close = rest.firstIndex(of: quote) else { return nil }
        return String(rest[..<close])
    }

    private static func transcode(_ bytes: [UInt8], _ encoding: String.Encoding, _ name: String) -> Result<[UInt8], XMLTreeError> {
        guard let text = String(data: Data(bytes), encoding: encoding) else {
            return .failure(XMLTreeError(message: "document is not valid \(name)", line: 1, isSecurityRejection: false))
        }
        return .success(Array(text.utf8))
    }
}
