import Foundation
import Manifest

/// How an origin segment kept as it came is encrypted (HLS `METHOD=AES-128`, whole segments):
/// the key a player needs (the origin's key URI, absolute, and the IV made explicit) and what
/// the store read of its clear bytes when it took it in, since its own bytes cannot be read
/// again. Such a segment is served byte for byte: never cut, never moved onto another clock.
public struct SegmentEncryption: Sendable, Hashable, Codable {
    /// `EXT-X-KEY` for it: `METHOD=AES-128`, an absolute http(s) `URI`, a 16-byte `IV`.
    public var key: HLS.Key
    /// The PTS of its first picture (90 kHz), read from its clear bytes at intake.
    public var firstPTS: Int64

    /// An encrypted segment's record.
    public init(key: HLS.Key, firstPTS: Int64) { self.key = key; self.firstPTS = firstPTS }

    /// Whether a record read back from the store is one the store could have written: AES-128,
    /// an http(s) URI of at most 2 KiB without quotes or line ends, a 16-byte IV, a PTS in range.
    var isWellFormed: Bool {
        guard key.method == .aes128, let uri = key.uri, uri.utf8.count <= 2048, let scheme = URL(string: uri)?.scheme?.lowercased(),
              scheme == "http" || scheme == "https", !uri.contains(where: { $0 == "\"" || $0.isNewline }),
              key.iv?.count == 16, key.keyFormat == nil || key.keyFormat == "identity" else { return false }
        return (0...((1 << 33) - 1)).contains(firstPTS)
    }
}
