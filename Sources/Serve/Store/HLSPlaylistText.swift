import Foundation

/// The parts of HLS playlists the store reads from an origin: a multivariant playlist's variants,
/// a VOD media playlist's MPEG-TS segments and its ad markers. What the store cannot serve
/// byte for byte is refused with a one-line reason: encryption, fMP4 (`EXT-X-MAP`), byte ranges,
/// alternate audio renditions, live playlists.
enum HLSPlaylistText {
    /// One `EXT-X-STREAM-INF` of a multivariant playlist.
    struct Variant: Equatable {
        var uri: String
        var bandwidth: Int
        var width: Int
        var height: Int
        var codecs: String?
    }

    /// A VOD media playlist.
    struct Media: Equatable {
        var segments: [String]
        /// Indices of the segments an `EXT-X-CUE-OUT` or an SCTE-35 `EXT-X-DATERANGE` (`SCTE35-OUT`) starts.
        var cueSegments: [Int]
    }

    /// The variants, or nil when the text is a media playlist; throws when it is not a playlist.
    static func variants(_ text: String) throws -> [Variant]? {
        let lines = try playlistLines(text)
        guard lines.contains(where: { $0.hasPrefix("#EXT-X-STREAM-INF:") }) else { return nil }
        if lines.contains(where: { $0.hasPrefix("#EXT-X-MEDIA:") && $0.contains("TYPE=AUDIO") && $0.contains("URI=") }) {
            throw StoreError.unsupported("HLS source: alternate audio renditions are not supported (audio must be muxed in each variant)")
        }
        var out: [Variant] = []
        var pending: [String: String]?
        for line in lines {
            if line.hasPrefix("#EXT-X-STREAM-INF:") {
                pending = attributes(String(line.dropFirst("#EXT-X-STREAM-INF:".count)))
            } else if let a = pending, !line.hasPrefix("#") {
                let size = (a["RESOLUTION"] ?? "").split(separator: "x").compactMap { Int($0) }
                guard let bw = a["BANDWIDTH"].flatMap({ Int($0) }), bw > 0, size.count == 2, size[0] > 0, size[1] > 0 else {
                    throw StoreError.unsupported("HLS source: a variant without BANDWIDTH and RESOLUTION")
                }
                out.append(Variant(uri: line, bandwidth: bw, width: size[0], height: size[1], codecs: a["CODECS"]))
                pending = nil
            }
        }
        guard !out.isEmpty, out.count <= 16 else { throw StoreError.unsupported("HLS source: \(out.count) variants (1 to 16 are served)") }
        return out.sorted { $0.bandwidth > $1.bandwidth }
    }

    /// A VOD media playlist's segments and cue markers.
    static func media(_ text: String) throws -> Media {
        let lines = try playlistLines(text)
        for (tag, why) in [("#EXT-X-MAP", "fMP4 segments"), ("#EXT-X-BYTERANGE", "byte ranges")] where lines.contains(where: { $0.hasPrefix(tag) }) {
            throw StoreError.unsupported("HLS source: \(why) are not supported; MPEG-TS segments are")
        }
        if lines.contains(where: { $0.hasPrefix("#EXT-X-KEY:") && !$0.contains("METHOD=NONE") }) {
            throw StoreError.unsupported("HLS source: encrypted segments are not supported")
        }
        guard lines.contains("#EXT-X-ENDLIST") else { throw StoreError.unsupported("HLS source: not a VOD playlist (no EXT-X-ENDLIST)") }
        var segments: [String] = [], cues: [Int] = []
        var sawInfo = false, cueNext = false
        for line in lines {
            if line.hasPrefix("#EXTINF:") { sawInfo = true }
            else if line.hasPrefix("#EXT-X-CUE-OUT") && !line.hasPrefix("#EXT-X-CUE-OUT-CONT") { cueNext = true }
            else if line.hasPrefix("#EXT-X-DATERANGE:") && line.contains("SCTE35-OUT=") { cueNext = true }
            else if !line.hasPrefix("#") {
                guard sawInfo else { throw StoreError.unsupported("HLS source: a segment without EXTINF") }
                if cueNext, segments.count > 0 { cues.append(segments.count) }
                cueNext = false
                sawInfo = false
                segments.append(line)
            }
        }
        guard !segments.isEmpty, segments.count <= 20_000 else { throw StoreError.unsupported("HLS source: \(segments.count) segments") }
        return Media(segments: segments, cueSegments: Array(Set(cues)).sorted())
    }

    static func playlistLines(_ text: String) throws -> [String] {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard lines.first == "#EXTM3U" else { throw StoreError.unsupported("HLS source: not a playlist (no #EXTM3U)") }
        return lines
    }

    /// `KEY=value,KEY="quoted, value"` attribute lists.
    static func attributes(_ s: String) -> [String: String] {
        var out: [String: String] = [:]
        var key = "", value = "", inKey = true, quoted = false
        func flush() { if !key.isEmpty { out[key] = value }; key = ""; value = ""; inKey = true }
        for c in s {
            if inKey { if c == "=" { inKey = false } else if c != "," { key.append(c) } ; continue }
            if c == "\"" { quoted.toggle(); continue }
            if c == "," && !quoted { flush(); continue }
            value.append(c)
        }
        flush()
        return out
    }
}
