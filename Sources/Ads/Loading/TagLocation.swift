// Turning tag strings into URLs: relative and protocol-relative resolution, scheme policy.
import Foundation

/// Resolves tag URIs against the document they came from and enforces the scheme policy:
/// only http, https and file; file only for the root tag or from a local document, never from
/// a document fetched over the network.
public enum TagLocation {
    /// Turns a root tag (a path or a URL) into a URL; nil when it is neither.
    public static func rootURL(_ tag: String) -> URL? {
        let t = tag.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !t.isEmpty else { return nil }
        if let r = t.range(of: "://"), t[..<r.lowerBound].allSatisfy({ $0.isLetter || $0 == "+" || $0 == "-" || $0 == "." }) {
            return url(from: t, base: nil)
        }
        if t.hasPrefix("//") { return url(from: "https:" + t, base: nil) }
        return URL(fileURLWithPath: t)
    }

    /// Resolves `template` (macros already expanded) against `base`; explains a refusal.
    public static func resolve(_ template: String, base: URL?) -> Result<URL, TagRefusal> {
        let t = template.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !t.isEmpty else { return .failure(TagRefusal(message: "empty tag URI")) }
        var candidate = t
        if t.hasPrefix("//") {
            let scheme = base?.scheme?.lowercased()
            candidate = (scheme == "http" ? "http:" : "https:") + t
        }
        guard let url = url(from: candidate, base: base) else { return .failure(TagRefusal(message: "'\(t)' is not a URL")) }
        let scheme = url.scheme?.lowercased() ?? ""
        switch scheme {
        case "http", "https":
            return .success(url)
        case "file":
            if let base, !base.isFileURL {
                return .failure(TagRefusal(message: "file URL '\(t)' refused in a document fetched from \(base.scheme ?? "the network")"))
            }
            return .success(url)
        default:
            return .failure(TagRefusal(message: "scheme '\(scheme)' refused (only http, https and file)"))
        }
    }

    static func url(from s: String, base: URL?) -> URL? {
        if let u = URL(string: s, relativeTo: base)?.absoluteURL, u.scheme != nil { return u }
        // Templates keep characters URL(string:) rejects (spaces, brackets, braces): escape them and retry.
        var escaped = ""
        for ch in s.unicodeScalars {
            switch ch {
            case " ", "[", "]", "{", "}", "|", "\\", "^", "`", "\"", "<", ">":
                escaped += String(format: "%%%02X", ch.value)
            default:
                if ch.value > 0x7E || ch.value < 0x21 {
                    escaped += String(ch).utf8.map { String(format: "%%%02X", $0) }.joined()
                } else {
                    escaped.unicodeScalars.append(ch)
                }
            }
        }
        if let u = URL(string: escaped, relativeTo: base)?.absoluteURL, u.scheme != nil { return u }
        return nil
    }
}

/// Why a tag URI was not followed.
public struct TagRefusal: Error, Sendable, Hashable {
    /// One line for a person.
    public var message: String
}
