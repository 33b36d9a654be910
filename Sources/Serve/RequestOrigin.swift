import Foundation
import HTTPServer

/// The scheme and authority a request reached the service by (`http://host:port`), for a
/// document that must name itself by an absolute URL: a live MPD's `Location`, which Streamlink
/// and older Shaka Player take as the base of every later URL without resolving it (a
/// path-only `Location` leaves them with no host).
///
/// Both come from the request, so both are checked as hostile input: the authority is the `Host`
/// header when it is a host name (letters, digits, `-`, `.`), a dotted IPv4 address or a
/// bracketed IPv6 one, with an optional port of 1–65535 digits, at most 255 bytes — never a user,
/// a path or a space; the scheme is `https` only when the first `X-Forwarded-Proto` value (a TLS
/// proxy in front) says so, else `http` (what the service itself speaks).
enum RequestOrigin {
    /// `scheme://authority` of `request`; nil when its `Host` is missing or malformed.
    static func of(_ request: HTTPRequest) -> String? {
        guard let host = request.headers["host"], isAuthority(host) else { return nil }
        let forwarded = request.headers["x-forwarded-proto"]?.split(separator: ",").first?
            .trimmingCharacters(in: .whitespaces).lowercased()
        return "\(forwarded == "https" ? "https" : "http")://\(host)"
    }

    /// `text` is `host[:port]` as above.
    static func isAuthority(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= 255 else { return false }
        var host = bytes[...], port: ArraySlice<UInt8>?
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")), close > 1 else { return false }
            guard bytes[1..<close].allSatisfy({ isHex($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }) else { return false }
            host = bytes[...close]
            if close + 1 < bytes.count {
                guard bytes[close + 1] == UInt8(ascii: ":") else { return false }
                port = bytes[(close + 2)...]
            }
        } else {
            if let colon = bytes.firstIndex(of: UInt8(ascii: ":")) { host = bytes[..<colon]; port = bytes[(colon + 1)...] }
            guard !host.isEmpty, host.first != UInt8(ascii: "-"), host.first != UInt8(ascii: "."),
                  host.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }) else { return false }
        }
        if let port {
            guard (1...5).contains(port.count), port.allSatisfy({ (48...57).contains($0) }),
                  let n = Int(String(decoding: port, as: UTF8.self)), (1...65535).contains(n) else { return false }
        }
        return true
    }

    private static func isHex(_ b: UInt8) -> Bool { (48...57).contains(b) || (65...70).contains(b) || (97...102).contains(b) }
    private static func isAlphanumeric(_ b: UInt8) -> Bool { (48...57).contains(b) || (65...90).contains(b) || (97...122).contains(b) }
}
