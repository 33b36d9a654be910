import Foundation
import Manifest
import Media
import Timing

/// An HLS origin of sample-encrypted CMAF (`EXT-X-KEY:METHOD=SAMPLE-AES` — `cbcs` — or
/// `SAMPLE-AES-CTR` — `cenc` — over fMP4 under one `EXT-X-MAP`) taken in as a DASH origin's
/// encrypted CMAF is (`ProtectedCMAF`): each variant a rung of its segments as they came, the
/// `AUDIO` group's default rendition the sound (its segments as they came, their spans read from
/// their packets), the key said as DASH says it — `mp4protection` with the scheme and the
/// `default_KID` of the initialization segment's `tenc`, and, for a `KEYFORMAT` that names a DRM
/// system (`urn:uuid:…`) with its `pssh` in a `data:` URI, that system's descriptor. Served as
/// DASH (an HLS origin's own key system for HLS players is not passed through yet). Refused in
/// one line: sound muxed in the encrypted segments, FairPlay-only or `identity` keys other than
/// through their KID, variants under different keys.
extension ProtectedCMAFImport {
    /// Whether the first variant's playlist `text` is sample-encrypted CMAF.
    static func isSampleEncrypted(_ text: String) -> Bool {
        (try? HLSPlaylistText.sampleEncrypted(text)) != nil
    }

    /// Fetches the sample-encrypted origin: `variants` (their playlists at their locations, top
    /// first), the audio group of `master` (at `location`: its renditions' URIs are relative to
    /// it); `text` reads a playlist, `fetch` a file (the origin's rules, `maxBytes`).
    static func fetchHLS(_ variants: [(HLSLocation, HLSPlaylistText.Variant?)], master: HLS.MultivariantPlaylist?, at location: HLSLocation, folder: URL,
                         notes: inout [String], text: (HLSLocation) async throws -> String,
                         fetch: (HLSLocation, URL, Int64) async throws -> Void) async throws -> Fetched {
        func made(_ dir: URL) throws {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        var rungs: [(rendition: Rendition, codecs: String, segments: Int)] = []
        var key: HLS.Key?, kid: String?, cues: [Int] = []
        var names: [String] = []
        for (at, v) in variants {
            guard let (media, k) = try HLSPlaylistText.sampleEncrypted(try await text(at)) else {
                throw StoreError.unsupported("HLS source: some variants sample-encrypted and some not")
            }
            if let key, key != k { throw StoreError.unsupported("HLS source: variants under different keys") }
            key = k
            var name = v.map { "\($0.height)p" } ?? "main"
            while names.contains(name) || name == audioFolder { name += "x" }
            names.append(name)
            let dir = folder.appendingPathComponent(name)
            try made(dir)
            let initFile = dir.appendingPathComponent("init.enc.mp4")
            try await fetch(try at.resolve(media.maps[0] ?? ""), initFile, HLSImport.maxInitBytes)
            let initBytes = try Data(contentsOf: initFile)
            guard let found = Self.defaultKID(initBytes) else {
                throw StoreError.unsupported("HLS source: \(name)'s initialization segment has no tenc (not sample-encrypted CMAF)")
            }
            if let kid, kid != found { throw StoreError.unsupported("HLS source: variants under different key ids") }
            kid = found
            let pictures = try Demuxer(url: initFile.path, policy: .adMedia, probe: false)
            guard pictures.streams.filter({ $0.kind == .audio }).isEmpty else {
                throw StoreError.unsupported("HLS source: sound muxed in sample-encrypted segments (an AUDIO rendition of its own is served)")
            }
            for (i, uri) in media.segments.enumerated() {
                try await fetch(try at.resolve(uri), dir.appendingPathComponent(String(format: "seg%05d.enc.m4s", i)), HLSImport.maxSegmentBytes)
            }
            if rungs.isEmpty { cues = media.cueSegments }
            let codecs = v?.codecs ?? "avc1.640028,mp4a.40.2"
            rungs.append((Rendition(name: name, width: v?.width ?? 0, height: v?.height ?? 0,
                                    videoBitrate: HLSImport.videoBitrate(ofVariant: v?.bandwidth ?? 0), audioBitrate: 128_000), codecs, media.segments.count))
        }
        guard let key, let kid, let (keyAt, _) = variants.first else { throw StoreError.unsupported("HLS source: no variants") }
        // the AUDIO group: its default rendition (or its first with a playlist) the sound, each
        // other one a language (at most `HLSImport.maxLanguages`)
        var tracks: [ProtectedCMAF.Audio] = []
        if let master, let group = variants.first?.1?.audio {
            let all = master.renditions.filter { $0.type == .audio && $0.groupID == group && $0.uri != nil }
            let ordered = (all.first(where: \.isDefault) ?? all.first).map { d in [d] + all.filter { $0 != d } } ?? []
            if ordered.count > HLSImport.maxLanguages + 1 { notes.append("audio languages past the first \(HLSImport.maxLanguages) besides the default are left out") }
            for (n, r) in ordered.prefix(HLSImport.maxLanguages + 1).enumerated() {
                tracks.append(try await fetchAudio(r, at: location, into: n == 0 ? audioFolder : "\(audioFolder)-\(n)", folder: folder,
                                                   codecs: variants.first?.1?.codecs, text: text, fetch: fetch))
            }
        }
        // the key as HLS players will be given it (never fetched)
        let keys = ProtectedCMAF.HLSKeys(video: try HLSImport.passedOn(key, at: keyAt, cmaf: true))
        return Fetched(rungs: rungs, protection: try descriptors(key, kid: kid), audio: tracks.first, languages: Array(tracks.dropFirst()),
                       cueSegments: cues, hls: keys)
    }

    /// Audio rendition `chosen` (its URI against the master's location `base`) fetched as it
    /// came: its initialization segment and segments in `folder/<name>/`, each one's span read
    /// from its packets, its key (when it is encrypted) as players will be given it.
    private static func fetchAudio(_ chosen: HLS.Rendition, at base: HLSLocation, into track: String, folder: URL, codecs: String?,
                                   text: (HLSLocation) async throws -> String,
                                   fetch: (HLSLocation, URL, Int64) async throws -> Void) async throws -> ProtectedCMAF.Audio {
        guard let uri = chosen.uri else { throw StoreError.unsupported("HLS source: an audio rendition without a URI") }
        let at = try base.resolve(uri)
        let playlist = try await text(at)
        let protected = try HLSPlaylistText.sampleEncrypted(playlist)
        let media = try protected?.media ?? HLSPlaylistText.media(playlist)
        guard let map = media.maps.first ?? nil, media.maps.allSatisfy({ $0 == map }) else {
            throw StoreError.unsupported("HLS source: an encrypted origin's audio rendition that is not CMAF under one EXT-X-MAP")
        }
        let dir = folder.appendingPathComponent(track)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let tag = protected == nil ? "" : ".enc"
        let initFile = dir.appendingPathComponent("init\(tag).mp4")
        try await fetch(try at.resolve(map), initFile, HLSImport.maxInitBytes)
        // each segment from its first packet's time to the next one's (the last: to its own end), so
        // the track's timeline has no gap (read alone, a fragment's first AAC frame may be where the
        // initialization segment's edit list puts the track's start)
        var spans: [(path: String, start: Int64, end: Int64)] = []
        for (i, s) in media.segments.enumerated() {
            let name = String(format: "seg%05d\(tag).m4s", i)
            let file = dir.appendingPathComponent(name)
            try await fetch(try at.resolve(s), file, HLSImport.maxSegmentBytes)
            guard let span = try FragmentRemux.soundSpan(initialization: initFile, segment: file, scratch: dir) else {
                throw StoreError.unsupported("HLS source: audio segment \(i) has no sound")
            }
            spans.append(("\(track)/\(name)", span.start.rescaled(to: 90_000, rounding: .nearest).value, span.end.rescaled(to: 90_000, rounding: .nearest).value))
        }
        guard zip(spans, spans.dropFirst()).allSatisfy({ $1.start > $0.start }) else { throw StoreError.unsupported("HLS source: audio segments out of order") }
        let segments = spans.indices.map { i in
            ProtectedCMAF.Segment(path: spans[i].path, start: spans[i].start, duration: max(1, (i + 1 < spans.count ? spans[i + 1].start : spans[i].end) - spans[i].start))
        }
        let codec = codecs?.split(separator: ",").map(String.init).first { $0.hasPrefix("mp4a") || $0 == "ac-3" || $0 == "ec-3" } ?? "mp4a.40.2"
        return ProtectedCMAF.Audio(initialization: "\(track)/init\(tag).mp4", segments: segments, timescale: 90_000, zero: [0, 1],
                                   codecs: codec, bandwidth: 128_000, sampleRate: nil, channels: chosen.channels.flatMap { Int($0.prefix { $0 != "/" }) },
                                   language: chosen.language,
                                   protection: try protected.map { try descriptors($0.key, kid: defaultKID(try Data(contentsOf: initFile)) ?? "") } ?? [],
                                   hlsKey: try protected.map { try HLSImport.passedOn($0.key, at: at, cmaf: true) })
    }

    /// The DASH descriptors of HLS key `key` over segments whose `tenc` names `kid`: the scheme's
    /// (`cbcs` for SAMPLE-AES, `cenc` for SAMPLE-AES-CTR) with its key id, and a DRM system's own
    /// when the `KEYFORMAT` names one (`urn:uuid:…`) and the `URI` carries its `pssh` (`data:…;base64,`).
    static func descriptors(_ key: HLS.Key, kid: String) throws -> [DASH.ContentProtection] {
        var out = [DASH.ContentProtection(schemeIdUri: ProtectedCMAF.mp4Protection, value: key.method == .sampleAES ? "cbcs" : "cenc",
                                          defaultKID: kid.isEmpty ? nil : kid)]
        if let format = key.keyFormat?.lowercased(), format.hasPrefix("urn:uuid:"), let uri = key.uri, uri.hasPrefix("data:"),
           let comma = uri.firstIndex(of: ","), uri[..<comma].hasSuffix(";base64") {
            out.append(DASH.ContentProtection(schemeIdUri: format, pssh: String(uri[uri.index(after: comma)...])))
        }
        guard out.allSatisfy(ProtectedCMAF.isKept) else { throw StoreError.unsupported("HLS source: the key's KEYFORMAT or pssh cannot be said in DASH") }
        return out
    }

    /// The `default_KID` of the first `tenc` box of an initialization segment, as a UUID; nil when there is none.
    static func defaultKID(_ initialization: Data) -> String? {
        let b = [UInt8](initialization)
        guard let at = b.indices.dropLast(32).first(where: { b[$0 + 4] == 0x74 && b[$0 + 5] == 0x65 && b[$0 + 6] == 0x6E && b[$0 + 7] == 0x63 }) else { return nil }
        // size(4) 'tenc'(4) version+flags(4) reserved(1) crypt/skip or reserved(1) isProtected(1) IV size(1) KID(16)
        let kid = b[(at + 16)..<(at + 32)].map { String(format: "%02x", $0) }.joined()
        let h = Array(kid)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(h[$0]) }.joined(separator: "-")
    }
}
