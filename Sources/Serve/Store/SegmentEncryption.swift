import Foundation
import Manifest

/// How an origin segment kept as it came is encrypted, and what the store read of it when it
/// took it in, since its pictures cannot be read again: an HLS segment encrypted whole (`METHOD=AES-128`:
/// the key a player needs, the origin's key URI made absolute and the IV explicit), an MPEG-TS
/// segment whose samples are encrypted (`METHOD=SAMPLE-AES`: the key passed on as the origin
/// gave it, any key system, FairPlay's included, its IV explicit; no key here), or a CMAF
/// segment whose samples are encrypted (`cenc`/`cbcs`, a DASH origin's: no key here, the
/// content's `ContentProtection` names the key system; its initialization segment). Such a
/// segment is served byte for byte: never cut, never moved onto another clock.
public struct SegmentEncryption: Sendable, Hashable, Codable {
    /// `EXT-X-KEY` for it: `METHOD=AES-128` or `SAMPLE-AES`, an absolute `URI`, a 16-byte `IV`;
    /// for a CMAF segment, a live HLS origin's sample-encryption key (passed on), else nil.
    public var key: HLS.Key?
    /// The PTS of its first picture (90 kHz): read from its clear bytes at intake (AES-128; the
    /// PES headers of a SAMPLE-AES segment are clear), or
    /// its earliest presentation time on the origin's timeline (CMAF, as its MPD gives it).
    public var firstPTS: Int64
    /// A CMAF segment's initialization segment (store-relative path); nil for AES-128.
    public var initialization: String?

    /// An AES-128 or SAMPLE-AES segment's record.
    public init(key: HLS.Key, firstPTS: Int64) { self.key = key; self.firstPTS = firstPTS }

    /// A live encrypted CMAF segment's sound: the origin's audio segment of its time, kept as it
    /// came beside it (the audio rendition's segments line up with the video's, as one packager
    /// makes them), what the session's audio playlist lists in its place.
    public struct Sound: Sendable, Hashable, Codable {
        /// Store-relative path of the audio segment.
        public var path: String
        /// Store-relative path of its initialization segment.
        public var initialization: String
        /// Its `EXT-X-KEY` (sample encryption, passed on), nil when the sound is clear.
        public var key: HLS.Key?
        /// Its start and duration on its track's timeline and that timeline's ticks per second
        /// (what a DASH Period's audio timeline lists), as read from its packets.
        public var span: [Int64] = []
    }

    /// A live CMAF segment's earliest presentation time on its track's timeline as (value,
    /// timescale), as its boxes say (a DASH Period's `presentationTimeOffset` and `S@t`: the
    /// origin's own timestamps, which may be far past MPEG-TS's 33 bits); nil otherwise.
    public var mediaStart: [Int64]? = nil

    /// A live encrypted CMAF segment's sound; nil otherwise (a VOD session lists its audio by time).
    public var sound: Sound? = nil

    /// An encrypted CMAF segment's record. `key`: an HLS origin's `EXT-X-KEY` for it (sample
    /// encryption, passed on as it came), what a live session's CMAF playlist names; nil for a
    /// DASH origin's and for VOD (whose content keeps its key).
    public init(cmafInitialization: String, firstPTS: Int64, key: HLS.Key? = nil, sound: Sound? = nil) {
        self.initialization = cmafInitialization; self.firstPTS = firstPTS; self.key = key; self.sound = sound
    }

    /// Whether it is a CMAF segment (sample encryption), not a whole AES-128 one.
    public var isCMAF: Bool { initialization != nil }

    /// Whether `other` is under the same keying: the same initialization segment and key (its
    /// IV aside, which may change per segment), and its sound's the same. A live origin that
    /// rotates its key changes one of them.
    func isKeyedLike(_ other: SegmentEncryption) -> Bool {
        func keying(_ k: HLS.Key?) -> [String?] { [k.map { "\($0.method)" }, k?.uri, k?.keyFormat, k?.keyFormatVersions] }
        return initialization == other.initialization && keying(key) == keying(other.key)
            && sound?.initialization == other.sound?.initialization && keying(sound?.key) == keying(other.sound?.key)
    }

    /// Whether a record read back from the store is one the store could have written: AES-128,
    /// an http(s) URI of at most 2 KiB without quotes or line ends, a 16-byte IV; SAMPLE-AES
    /// passed on (`isPassedOn`); or CMAF with an initialization path (checked by the package); a
    /// PTS in range.
    var isWellFormed: Bool {
        guard (0...((1 << 33) - 1)).contains(firstPTS) else { return false }
        guard let key else { return initialization != nil && sound == nil }
        // a live CMAF segment's key and sound (a live viewer's record read back)
        if initialization != nil {
            guard Self.isPassedOn(key, cmaf: true) else { return false }
            guard let sound else { return true }
            return !sound.path.isEmpty && !sound.initialization.isEmpty && sound.key.map { Self.isPassedOn($0, cmaf: true) } ?? true
        }
        if key.method == .sampleAES { return Self.isPassedOn(key) }
        guard key.method == .aes128, let uri = key.uri, Self.isQuotable(uri, most: 2048), let scheme = URL(string: uri)?.scheme?.lowercased(),
              scheme == "http" || scheme == "https", key.iv?.count == 16, key.keyFormat == nil || key.keyFormat == "identity" else { return false }
        return true
    }

    /// Whether `key` is an MPEG-TS `SAMPLE-AES` key the service passes on to players as it came:
    /// an absolute URI of at most 2 KiB without quotes or line ends — http(s) for the identity
    /// key format (the player fetches the key), or for another key format (FairPlay's
    /// `com.apple.streamingkeydelivery`, …) `skd:`, http(s) or `data:` —, a 16-byte IV, and
    /// `KEYFORMAT`/`KEYFORMATVERSIONS` of at most 256 printable characters without quotes.
    /// `cmaf`: a sample-encrypted CMAF key instead (`SAMPLE-AES` or `SAMPLE-AES-CTR`, the IV in
    /// the segments' boxes: an `IV` may be given or not).
    public static func isPassedOn(_ key: HLS.Key, cmaf: Bool = false) -> Bool {
        let methods: Set<HLS.Key.Method> = cmaf ? [.sampleAES, .sampleAESCTR] : [.sampleAES]
        guard methods.contains(key.method), key.iv.map({ $0.count == 16 }) ?? cmaf, let uri = key.uri, isQuotable(uri, most: 2048),
              let scheme = URL(string: uri)?.scheme?.lowercased() else { return false }
        if let f = key.keyFormat, !isQuotable(f, most: 256) || f.isEmpty { return false }
        if let v = key.keyFormatVersions, !isQuotable(v, most: 256) || !v.allSatisfy({ $0.isNumber || $0 == "/" }) { return false }
        let identity = (key.keyFormat ?? "identity") == "identity"
        let schemes: Set<String> = identity ? ["http", "https"] : ["http", "https", "skd", "data"]
        return schemes.contains(scheme)
    }

    /// Printable ASCII of at most `most` bytes, without a quote (a quoted attribute's value).
    static func isQuotable(_ s: String, most: Int) -> Bool {
        s.utf8.count <= most && s.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 }
    }
}
