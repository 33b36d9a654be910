import Foundation
import Media

/// Signs the beacon parameters of ad segment URLs (HMAC-SHA256 over `session|rendition|break|ad|segment`,
/// the first 16 hex digits in `t=`), so that only a URL a session's playlist gave fires that
/// ad's beacons: a content segment fetched with made-up `?s=…&b=&a=&k=` fires nothing.
/// The key is random per process, or shared by a fleet through Redis (`interlude:urlkey`).
public struct SegmentSignature: Sendable {
    private let key: [UInt8]

    /// A signer with `key` (at least 16 bytes; longer than 64 is hashed first, as HMAC does).
    public init(key: [UInt8]) {
        precondition(key.count >= 16, "a signing key is at least 16 bytes")
        self.key = key.count > 64 ? Self.digest(key) : key
    }

    /// A signer with 32 random bytes.
    public static func random() -> SegmentSignature {
        var g = SystemRandomNumberGenerator()
        return SegmentSignature(key: (0..<32).map { _ in UInt8.random(in: 0...255, using: &g) })
    }

    /// The key as 64 hex digits (what a fleet stores in Redis).
    public var hexKey: String { key.map { String(format: "%02x", $0) }.joined() }

    /// A signer from 32 or more hex digits; nil otherwise.
    public init?(hexKey: String) {
        let b = Array(hexKey.utf8)
        guard b.count >= 32, b.count % 2 == 0, b.count <= 128 else { return nil }
        var out: [UInt8] = []
        var i = 0
        while i < b.count {
            guard let v = UInt8(String(decoding: b[i..<i + 2], as: UTF8.self), radix: 16) else { return nil }
            out.append(v); i += 2
        }
        self.init(key: out)
    }

    /// The tag of `message`: 16 hex digits.
    public func tag(_ message: String) -> String {
        var inner = key.map { $0 ^ 0x36 } + [UInt8](repeating: 0x36, count: 64 - key.count)
        var outer = key.map { $0 ^ 0x5C } + [UInt8](repeating: 0x5C, count: 64 - key.count)
        inner += Array(message.utf8)
        outer += Self.digest(inner)
        return Self.digest(outer).prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// Whether `tag` is `message`'s (compared in constant time).
    public func verify(_ message: String, tag: String) -> Bool {
        let expected = Array(self.tag(message).utf8), given = Array(tag.utf8)
        guard expected.count == given.count else { return false }
        return zip(expected, given).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// SHA-256 through libavutil (`ContentHash`).
    static func digest(_ bytes: [UInt8]) -> [UInt8] {
        let hex = (try? ContentHash.sha256(Data(bytes))) ?? ""
        let b = Array(hex.utf8)
        var out: [UInt8] = []
        var i = 0
        while i + 1 < b.count { out.append(UInt8(String(decoding: b[i..<i + 2], as: UTF8.self), radix: 16) ?? 0); i += 2 }
        return out
    }
}
