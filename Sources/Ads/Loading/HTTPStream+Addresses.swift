// Which hosts a redirect may not lead to.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension HTTPStream {
    /// Whether `host` (as a URL gives it, IPv6 in brackets or not) is an unspecified address:
    /// IPv4 `0.0.0.0/8` in any of the spellings curl accepts (`0`, `0x0`, `0.0.0.0`, `00.0.0.0`),
    /// IPv6 `::` (or `::ffff:0.0.0.0`). Connecting there reaches this very machine on Linux, so
    /// a redirect to one is refused, as redirects to other schemes are. A missing host is refused too.
    public static func isUnspecifiedAddress(_ host: String?) -> Bool {
        guard var h = host?.trimmingCharacters(in: .whitespaces).lowercased(), !h.isEmpty else { return true }
        if h.hasPrefix("["), h.hasSuffix("]") { h = String(h.dropFirst().dropLast()) }
        if h.hasSuffix(".") { h = String(h.dropLast()) }
        var v4 = in_addr()
        if inet_aton(h, &v4) != 0 { return UInt32(bigEndian: v4.s_addr) >> 24 == 0 }
        var v6 = in6_addr()
        if let zone = h.firstIndex(of: "%") { h = String(h[..<zone]) }
        if inet_pton(AF_INET6, h, &v6) == 1 {
            let bytes = withUnsafeBytes(of: v6) { Array($0) }
            if bytes.allSatisfy({ $0 == 0 }) { return true }
            // an IPv4-mapped unspecified address, ::ffff:0.x.x.x
            return bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF && bytes[12] == 0
        }
        return false
    }
}
