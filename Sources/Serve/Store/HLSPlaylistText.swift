import Foundation
import Manifest

/// What the store takes from an origin's HLS playlists, read by the one parser (`HLS.parse`):
/// a multivariant playlist's variants, a VOD media playlist's segments (MPEG-TS, or CMAF with
/// their `EXT-X-MAP` initialization segments, which the store remuxes to MPEG-TS) and its ad
/// markers. What the store cannot take is refused with a one-line reason: SAMPLE-AES MPEG-TS,
/// byte ranges, variants in different audio groups, live playlists. Sample-encrypted CMAF is
/// read by `sampleEncrypted` (kept as it came).
enum HLSPlaylistText {
    /// One `EXT-X-STREAM-INF` of a multivariant playlist.
    struct Variant: Equatable {
        var uri: String
        var bandwidth: Int
        var width: Int
        var height: Int
        var codecs: String?
        /// Its `AUDIO` group, when it names one.
        var audio: String? = nil
    }

    /// A VOD media playlist.
    struct Media: Equatable {
        var segments: [String]
        /// Each segment's initialization segment (`EXT-X-MAP` URI) when it is CMAF; nil for MPEG-TS.
        var maps: [String?]
        /// Indices of the segments an `EXT-X-CUE-OUT` or an SCTE-35 `EXT-X-DATERANGE` (`SCTE35-OUT`) starts.
        var cueSegments: [Int]
        /// Each segment's AES-128 or SAMPLE-AES key in force (URI as written, IV explicit); nil: clear.
        var keys: [HLS.Key?] = []
    }

    /// The playlist in `text`; throws a one-line `StoreError` when it is not one.
    static func parse(_ text: String) throws -> HLS.Playlist {
        do { return try HLS.parse(text) } catch { throw StoreError.unsupported("HLS source: \(error)") }
    }

    /// The variants, highest bandwidth first, or nil when the text is a media playlist; throws
    /// when it is not a playlist or cannot be served.
    static func variants(_ text: String) throws -> [Variant]? {
        guard case .multivariant(let m) = try parse(text) else { return nil }
        let out = try m.variants.map { v -> Variant in
            guard let r = v.resolution else { throw StoreError.unsupported("HLS source: a variant without BANDWIDTH and RESOLUTION") }
            return Variant(uri: v.uri, bandwidth: v.bandwidth, width: r.width, height: r.height, codecs: v.codecs, audio: v.audio)
        }
        if Set(out.map(\.audio)).count > 1 { throw StoreError.unsupported("HLS source: variants naming different AUDIO groups") }
        guard !out.isEmpty, out.count <= 16 else { throw StoreError.unsupported("HLS source: \(out.count) variants (1 to 16 are served)") }
        return out.sorted { $0.bandwidth > $1.bandwidth }
    }

    /// The segments, cue markers and key of a VOD media playlist of CMAF segments whose samples
    /// are encrypted (`METHOD=SAMPLE-AES`: `cbcs`; `SAMPLE-AES-CTR`: `cenc`) under one key and one
    /// `EXT-X-MAP`, kept as they came (`ProtectedCMAFImport`); nil when the playlist is not such
    /// (clear, AES-128, MPEG-TS SAMPLE-AES). Key rotation, a clear segment among them or another map is
    /// refused in one line.
    static func sampleEncrypted(_ text: String) throws -> (media: Media, key: HLS.Key)? {
        guard case .media(let p) = try parse(text) else { return nil }
        let keys = p.keysInForce
        guard let key = keys.compactMap({ $0 }).first(where: { $0.method == .sampleAES || $0.method == .sampleAESCTR }) else { return nil }
        // MPEG-TS SAMPLE-AES is `media`'s (kept segment by segment, its key passed on)
        guard p.mapsInForce.contains(where: { $0 != nil }) else { return nil }
        guard keys.allSatisfy({ $0 == key }) else {
            throw StoreError.unsupported("HLS source: sample-encrypted segments under more than one key, or some clear (one key for all is served)")
        }
        guard let map = p.mapsInForce.first ?? nil, p.mapsInForce.allSatisfy({ $0?.uri == map.uri }), map.byteRange == nil,
              !p.segments.contains(where: { $0.byteRange != nil }) else {
            throw StoreError.unsupported("HLS source: sample-encrypted CMAF segments under more than one EXT-X-MAP, or some of them MPEG-TS")
        }
        guard p.endList else { throw StoreError.unsupported("HLS source: not a VOD playlist (no EXT-X-ENDLIST)") }
        guard !p.segments.isEmpty, p.segments.count <= 10_000 else { throw StoreError.unsupported("HLS source: \(p.segments.count) segments (1 to 10,000)") }
        return (Media(segments: p.segments.map(\.uri), maps: p.mapsInForce.map { $0?.uri }, cueSegments: cueSegments(p)), key)
    }

    /// Indices of the segments of `p` an `EXT-X-CUE-OUT` or an SCTE-35 `EXT-X-DATERANGE` opens (not the first).
    static func cueSegments(_ p: HLS.MediaPlaylist) -> [Int] {
        p.segments.indices.dropFirst().filter { i in
            p.segments[i].markers.contains {
                switch $0 {
                case .cueOut: true
                case .dateRange(let r): r.scte35Out != nil
                default: false
                }
            }
        }
    }

    /// A VOD media playlist's segments and cue markers.
    static func media(_ text: String) throws -> Media {
        guard case .media(let p) = try parse(text) else { throw StoreError.unsupported("HLS source: a multivariant playlist where a media playlist was expected") }
        if p.segments.contains(where: { $0.byteRange != nil || $0.map?.byteRange != nil }) {
            throw StoreError.unsupported("HLS source: byte ranges are not supported (whole segments are)")
        }
        let keys = p.keysInForce
        if let other = keys.compactMap({ $0 }).first(where: { $0.method != .aes128 && $0.method != .sampleAES }) {
            throw StoreError.unsupported("HLS source: \(other.method.rawValue) segments that are not CMAF under one EXT-X-MAP are not supported")
        }
        if keys.contains(where: { $0?.method == .aes128 && ($0?.uri == nil || ($0?.keyFormat ?? "identity") != "identity") }) {
            throw StoreError.unsupported("HLS source: an AES-128 key without a URI or with a KEYFORMAT other than identity")
        }
        if keys.contains(where: { $0?.method == .sampleAES && $0?.uri == nil }) {
            throw StoreError.unsupported("HLS source: a SAMPLE-AES key without a URI")
        }
        if zip(keys, p.mapsInForce).contains(where: { $0 != nil && $1 != nil }) {
            throw StoreError.unsupported("HLS source: encrypted CMAF segments other than sample-encrypted ones under one key and one EXT-X-MAP are not supported")
        }
        guard p.endList else { throw StoreError.unsupported("HLS source: not a VOD playlist (no EXT-X-ENDLIST)") }
        guard !p.segments.isEmpty else { throw StoreError.unsupported("HLS source: 0 segments") }
        return Media(segments: p.segments.map(\.uri), maps: p.mapsInForce.map { $0?.uri }, cueSegments: cueSegments(p), keys: keys)
    }
}
