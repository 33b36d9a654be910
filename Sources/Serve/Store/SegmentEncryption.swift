import Foundation
import Manifest

/// How an origin segment kept as it came is encrypted, and what the store read of it when it
/// took it in, since its pictures cannot be read again: an HLS segment encrypted whole (`METHOD=AES-128`:
/// the key a player needs, the origin's key URI made absolute and the IV explicit), or a CMAF
/// segment whose samples are encrypted (`cenc`/`cbcs`, a DASH origin's: no key here, the
/// content's `ContentProtection` names the key system; its initialization segment). Such a
/// segment is served byte for byte: never cut, never moved onto another clock.
public struct SegmentEncryption: Sendable, Hashable, Codable {
    /// `EXT-X-KEY` for it: `METHOD=AES-128`, an absolute http(s) `URI`, a 16-byte `IV`; nil for
    /// a CMAF segment.
    public var key: HLS.Key?
    /// The PTS of its first picture (90 kHz): read from its clear bytes at intake (AES-128), or
    /// its earliest presentation time on the origin's timeline (CMAF, as its MPD gives it).
    public var firstPTS: Int64
    /// A CMAF segment's initialization segment (store-relative path); nil for AES-128.
    public var initialization: String?

    /// An AES-128 segment's record.
    public init(key: HLS.Key, firstPTS: Int64) { self.key = key; self.firstPTS = firstPTS }

    /// An encrypted CMAF segment's record.
    public init(cmafInitialization: String, firstPTS: Int64) { self.initialization = cmafInitialization; self.firstPTS = firstPTS }

    /// Whether it is a CMAF segment (sample encryption), not a whole AES-128 one.
    public var isCMAF: Bool { initialization != nil }

    /// Whether a record read back from the store is one the store could have written: AES-128,
    /// an http(s) URI of at most 2 KiB without quotes or line ends, a 16-byte IV; or CMAF with
    /// an initialization path (checked by the package); a PTS in range.
    var isWellFormed: Bool {
        guard (0...((1 << 33) - 1)).contains(firstPTS) else { return false }
        guard let key else { return initialization != nil }
        guard initialization == nil, key.method == .aes128, let uri = key.uri, uri.utf8.count <= 2048, let scheme = URL(string: uri)?.scheme?.lowercased(),
              scheme == "http" || scheme == "https", !uri.contains(where: { $0 == "\"" || $0.isNewline }),
              key.iv?.count == 16, key.keyFormat == nil || key.keyFormat == "identity" else { return false }
        return true
    }
}
