import Ads
import Foundation
import Manifest
import Media
import Threads
import Timing

/// Where an HLS source's playlists and segments are read from. A remote playlist's URIs are
/// resolved against it and must be http(s): a remote playlist never reaches a local file. Only a
/// source given as a local path may name local files.
enum HLSLocation: Sendable, Equatable {
    case file(String)
    case remote(URL)

    /// The location of a SOURCE (a path or an http(s) URL).
    static func source(_ s: String) throws -> HLSLocation {
        if s.contains("://") {
            guard let u = URL(string: s), let scheme = u.scheme?.lowercased() else { throw StoreError.unsupported("HLS source \(s) is not a URL") }
            if scheme == "file" { return .file(u.path) }
            guard scheme == "http" || scheme == "https" else { throw StoreError.unsupported("HLS source \(s): scheme '\(scheme)' refused (http, https or a path)") }
            return .remote(u)
        }
        return .file(s)
    }

    /// `uri` as named by the playlist at this location.
    func resolve(_ uri: String) throws -> HLSLocation {
        switch self {
        case .remote(let base):
            guard let u = URL(string: uri, relativeTo: base)?.absoluteURL, let scheme = u.scheme?.lowercased(),
                  scheme == "http" || scheme == "https" else {
                throw StoreError.unsupported("HLS source: a remote playlist names '\(uri)' (only http and https are followed)")
            }
            return .remote(u)
        case .file(let path):
            if uri.contains("://") { return try HLSLocation.source(uri) }
            if uri.hasPrefix("/") { return .file(uri) }
            return .file(URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent(uri).standardizedFileURL.path)
        }
    }

    var description: String {
        switch self { case .file(let p): return p; case .remote(let u): return u.absoluteString }
    }
}

/// Reads an HLS origin into the store: every variant's segments fetched once (size caps,
/// timeouts, `HTTPStream`'s hardening for remote ones) and kept byte for byte as the origin
/// segments (CMAF segments remuxed to MPEG-TS, their packets copied: `FragmentRemux`), the
/// variant's frames and keyframes read from them, its cue markers as origin cues.
enum HLSImport {
    /// Largest playlist read.
    static let maxPlaylistBytes: Int64 = 1 << 20
    /// Largest segment read.
    static let maxSegmentBytes: Int64 = 64 << 20
    /// Largest CMAF initialization segment read.
    static let maxInitBytes: Int64 = 1 << 20
    /// What a CMAF origin's timestamps are moved by in the store's MPEG-TS: its first decode
    /// times may lie before zero (B-frames under an edit list or negative composition offsets),
    /// which MPEG-TS cannot carry.
    static let cmafClockShift = MediaTime(seconds: 10)
    /// Part of the key of an import in the store: bumped when an import reads more of an origin
    /// (".2": subtitle renditions; ".3": a DASH origin's segments measured where its MPD gives
    /// nominal durations; ".4": an audio group's default without a URI is the variants' own sound,
    /// MPEG-TS renditions; ".5": a low variant's ads at three quarters of its BANDWIDTH, not
    /// 1 kb/s; sample-encrypted CMAF; ".6": MPEG-TS SAMPLE-AES, a sample-encrypted CMAF
    /// origin's keys kept for its HLS sessions), so that the next start takes the origin in again.
    static let revision = ".6"

    /// Fetches `location` into `file` (at most `maxBytes`) as one of an origin's files: its size
    /// added to `total`, which may not pass `cap` (`source` names the origin's kind in the error).
    static func fetch(_ location: HLSLocation, to file: URL, maxBytes: Int64, timeout: Double, total: inout Int64, cap: Int64,
                      source: String = "HLS") async throws {
        try await fetch(location, to: file, maxBytes: maxBytes, timeout: timeout)
        total += (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value ?? 0
        guard total <= cap else { throw StoreError.unsupported("\(source) source: more than \(cap) bytes of segments") }
    }

    /// Fetches `location` into `file` (at most `maxBytes`).
    static func fetch(_ location: HLSLocation, to file: URL, maxBytes: Int64, timeout: Double) async throws {
        switch location {
        case .file(let path):
            var st = stat()
            guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { throw StoreError.unsupported("HLS source: \(path) is not a readable file") }
            guard Int64(st.st_size) <= maxBytes else { throw StoreError.unsupported("HLS source: \(path) is larger than \(maxBytes) bytes") }
            try FileManager.default.copyItem(atPath: path, toPath: file.path)
        case .remote(let url):
            guard FileManager.default.createFile(atPath: file.path, contents: nil, attributes: [.posixPermissions: 0o600]),
                  let handle = FileHandle(forWritingAtPath: file.path) else { throw StoreError.folder("cannot write \(file.path)") }
            let sink = Sink(handle)
            defer { sink.close() }
            do {
                _ = try await HTTPStream.fetch(url, timeout: timeout, maxBytes: maxBytes) { try sink.write($0) }
            } catch {
                throw StoreError.unsupported("HLS source: \(url.absoluteString): \(error)")
            }
        }
    }

    /// A playlist's text.
    static func text(_ location: HLSLocation, scratch: URL, timeout: Double) async throws -> String {
        let file = scratch.appendingPathComponent("playlist-\(UUID().uuidString).m3u8")
        defer { try? FileManager.default.removeItem(at: file) }
        try await fetch(location, to: file, maxBytes: maxPlaylistBytes, timeout: timeout)
        guard let text = String(data: try Data(contentsOf: file), encoding: .utf8) else {
            throw StoreError.unsupported("HLS source: \(location.description) is not UTF-8 text")
        }
        return text
    }

    /// What was fetched of one variant.
    struct FetchedVariant {
        var rendition: Rendition
        var codecs: String?
        var segmentCount: Int
        var cueSegments: [Int]
        /// Each segment's key (absolute URI, explicit IV); nil: clear. An encrypted segment is kept
        /// as it came; of an AES-128 one a clear copy (`clearName`) is read to scan it, a
        /// SAMPLE-AES one is read as it is.
        var keys: [HLS.Key?] = []
        /// For a language rung (the lowest variant's video with another audio rendition's
        /// sound): that rendition; nil for a variant of the ladder.
        var language: PackagedAudioTrack? = nil
    }

    /// The video's share of a variant's `BANDWIDTH` (which counts its sound too): what the
    /// rung's ads are encoded at. Less 128 kb/s of sound, but never under three quarters of it (a
    /// low rung's ads at 1 kb/s were unwatchable).
    static func videoBitrate(ofVariant bandwidth: Int) -> Int { max(1000, bandwidth * 3 / 4, bandwidth - 128_000) }

    /// Most audio renditions carried besides the default.
    static let maxLanguages = 8

    /// Largest key read.
    static let maxKeyBytes: Int64 = 64

    /// The name of the clear copy of encrypted segment `i` (removed once scanned).
    static func clearName(_ i: Int) -> String { String(format: ".seg%05d.clear.ts", i) }

    /// The stored name of origin segment `i`: `segNNNNN.ts`, or `segNNNNN.aes.ts` when it is
    /// kept encrypted (`SegmentPath.isEncrypted`: served as it came, never rewritten).
    static func storedName(_ i: Int, encrypted: Bool) -> String { String(format: encrypted ? "seg%05d.aes.ts" : "seg%05d.ts", i) }

    /// The key `key` names (16 bytes), fetched once per URI into `keys`; its URI made absolute.
    /// A key a player cannot fetch (not http(s)) is refused.
    static func keyBytes(_ key: HLS.Key, at location: HLSLocation, scratch: URL, timeout: Double,
                         keys: inout [String: [UInt8]]) async throws -> (HLS.Key, [UInt8]) {
        guard let uri = key.uri, case .remote(let url) = try location.resolve(uri) else {
            throw StoreError.unsupported("HLS source: the key URI '\((key.uri ?? "").prefix(120))' is not http(s) (a player fetches it)")
        }
        var absolute = key
        absolute.uri = url.absoluteString
        if let known = keys[url.absoluteString] { return (absolute, known) }
        let file = scratch.appendingPathComponent("key-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try await fetch(.remote(url), to: file, maxBytes: maxKeyBytes, timeout: timeout)
        let bytes = [UInt8](try Data(contentsOf: file))
        guard bytes.count == 16 else { throw StoreError.unsupported("HLS source: the key at \(url.absoluteString.prefix(120)) is \(bytes.count) bytes, not 16") }
        keys[url.absoluteString] = bytes
        return (absolute, bytes)
    }

    /// A SAMPLE-AES key as players will be given it: a relative URI made absolute against the
    /// playlist at `location` (another scheme, FairPlay's `skd:` among them, kept as it is), and
    /// refused in one line unless `SegmentEncryption.isPassedOn` (the IV is explicit already).
    /// `cmaf`: a sample-encrypted CMAF key (`SAMPLE-AES` or `SAMPLE-AES-CTR`, its IV optional).
    static func passedOn(_ key: HLS.Key, at location: HLSLocation, cmaf: Bool = false) throws -> HLS.Key {
        var absolute = key
        if let uri = key.uri, URL(string: uri)?.scheme == nil, case .remote(let url) = try location.resolve(uri) { absolute.uri = url.absoluteString }
        guard SegmentEncryption.isPassedOn(absolute, cmaf: cmaf) else {
            throw StoreError.unsupported("HLS source: the \(key.method.rawValue) key '\((key.uri ?? "").prefix(120))' (KEYFORMAT \((key.keyFormat ?? "identity").prefix(64))) is not one players can be sent to (an absolute http(s) URI; skd:, http(s) or data: for another key format; quoted values of at most 2 KiB)")
        }
        return absolute
    }

    /// What was fetched of an origin: its variants (top first), its subtitle tracks, and a note
    /// for each thing left out.
    struct Fetched {
        var variants: [FetchedVariant]
        var subtitles: [HLSSubtitleImport.Track] = []
        var notes: [String] = []
        /// The default audio rendition, when the origin has alternate audio.
        var defaultAudio: PackagedAudioTrack? = nil
        /// An encrypted DASH origin, kept as it came (no variants then).
        var protectedCMAF: ProtectedCMAFImport.Fetched? = nil
    }

    /// Fetches every variant's segments into `folder/<rung>/segNNNNN.ts` (top variant first) and
    /// the subtitle tracks' cues.
    static func fetchAll(_ source: String, folder: URL, timeout: Double, maxTotalBytes: Int64) async throws -> Fetched {
        let location = try HLSLocation.source(source)
        let master = try await text(location, scratch: folder, timeout: timeout)
        // a DASH origin: its Representations made MPEG-TS rungs (`DASHImport`), packaged as an HLS origin's
        if DASHImport.isMPD(master) {
            return try await DASHImport.fetchAll(master, location: location, folder: folder, timeout: timeout, maxTotalBytes: maxTotalBytes)
        }
        let variants: [(HLSLocation, HLSPlaylistText.Variant?)]
        if let list = try HLSPlaylistText.variants(master) {
            variants = try list.map { (try location.resolve($0.uri), $0) }
        } else {
            variants = [(location, nil)]
        }
        var out: [FetchedVariant] = []
        var total: Int64 = 0
        var cmaf = false
        var keyCache: [String: [UInt8]] = [:]
        let multivariant: HLS.MultivariantPlaylist?
        if case .multivariant(let m) = try HLSPlaylistText.parse(master) { multivariant = m } else { multivariant = nil }
        // each variant's playlist read once (the first is read first, to tell how it is encrypted)
        var read: [(at: HLSLocation, text: String)] = [(location, master)]
        func playlist(_ at: HLSLocation) async throws -> String {
            if let known = read.first(where: { $0.at == at }) { return known.text }
            let t = try await text(at, scratch: folder, timeout: timeout)
            read.append((at, t))
            return t
        }
        // sample-encrypted CMAF: kept as it came (`ProtectedCMAFImport`), never remuxed
        if let (at, _) = variants.first, ProtectedCMAFImport.isSampleEncrypted(try await playlist(at)) {
            var notes: [String] = []
            let kept = try await ProtectedCMAFImport.fetchHLS(variants, master: multivariant, at: location, folder: folder, notes: &notes,
                                                              text: { try await playlist($0) },
                                                              fetch: { at, file, most in
                                                                  try await fetch(at, to: file, maxBytes: most, timeout: timeout, total: &total, cap: maxTotalBytes)
                                                              })
            // its WebVTT renditions (clear) on the segments' own clock
            var subtitles: (tracks: [HLSSubtitleImport.Track], notes: [String]) = ([], [])
            if let m = multivariant {
                subtitles = await HLSSubtitleImport.fetch(m, location: location, scratch: folder, timeout: timeout, clockShift: 0, total: &total, cap: maxTotalBytes)
            }
            return Fetched(variants: [], subtitles: subtitles.tracks, notes: notes + subtitles.notes, protectedCMAF: kept)
        }
        // an alternate audio group: its default muxed into every variant's segments, each other
        // rendition into a language rung of the lowest variant
        var notes: [String] = []
        var group = AudioGroup()
        if let m = multivariant, let name = variants.first?.1?.audio {
            group = try await audioGroup(m, named: name, at: location, folder: folder, timeout: timeout, total: &total, cap: maxTotalBytes)
            notes += group.notes
        }
        let audioTrack = group.main?.file, languages = group.languages
        defer { for f in [audioTrack].compactMap({ $0 }) + languages.map(\.file) { try? FileManager.default.removeItem(at: f) } }
        var languageVariants: [FetchedVariant] = []
        for (where_, v) in variants {
            let media = try HLSPlaylistText.media(try await playlist(where_))
            if out.isEmpty { cmaf = media.maps.first.map { $0 != nil } ?? false }
            let isTS = media.maps.contains { $0 == nil }
            if let main = group.main, main.file != nil, isTS != main.isTS {
                throw StoreError.unsupported("HLS source: an alternate audio rendition in \(main.isTS ? "MPEG-TS" : "CMAF") with \(isTS ? "MPEG-TS" : "CMAF") variants is not supported (in the variants' container it is)")
            }
            // the lowest variant also carries each other language in its container, in a rung of its own
            let isLowest = where_ == variants.last?.0
            let carried = isLowest ? languages.filter { $0.isTS == isTS } : []
            if isLowest {
                for l in languages where l.isTS != isTS {
                    notes.append("audio '\(l.track.name.prefix(64))' left out: it is \(l.isTS ? "MPEG-TS" : "CMAF"), the variants are not")
                }
            }
            // segments joined with a sound of their time once every segment's first picture is known
            // (`owned`: a fetched copy, removed after; else the stored segment itself)
            var joins: [(raw: URL, initialization: URL?, uri: String, file: URL, owned: Bool)] = []
            defer { for j in joins where j.owned { try? FileManager.default.removeItem(at: j.raw) } }
            var name = v.map { "\($0.height)p" } ?? "main"
            while out.contains(where: { $0.rendition.name == name }) { name += "x" }
            let dir = folder.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            var inits: [String: URL] = [:]
            var counters: [Int: UInt8] = [:]
            var keys: [HLS.Key?] = []
            defer { for f in inits.values { try? FileManager.default.removeItem(at: f) } }
            for (i, uri) in media.segments.enumerated() {
                let file = dir.appendingPathComponent(storedName(i, encrypted: media.keys[i] != nil))
                if let key = media.keys[i], key.method == .sampleAES {
                    // SAMPLE-AES: kept as it came, its key passed on (never fetched: its PES and
                    // NAL unit headers are clear, which is all the scan reads)
                    keys.append(try passedOn(key, at: where_))
                    try await fetch(try where_.resolve(uri), to: file, maxBytes: maxSegmentBytes, timeout: timeout, total: &total, cap: maxTotalBytes)
                    let head = try FileHandle(forReadingFrom: file).read(upToCount: 1)
                    guard head?.first == 0x47 else { throw StoreError.unsupported("HLS source: segment \(uri.prefix(120)) is not MPEG-TS") }
                    continue
                }
                if let key = media.keys[i] {
                    // AES-128: kept as it came; a clear copy to scan (removed once read)
                    let (absolute, bytes) = try await keyBytes(key, at: where_, scratch: folder, timeout: timeout, keys: &keyCache)
                    keys.append(absolute)
                    try await fetch(try where_.resolve(uri), to: file, maxBytes: maxSegmentBytes, timeout: timeout, total: &total, cap: maxTotalBytes)
                    let clear: Data
                    do { clear = try AES128.decryptCBC(try Data(contentsOf: file), key: bytes, iv: absolute.iv ?? []) } catch {
                        throw StoreError.unsupported("HLS source: segment \(uri.prefix(120)) cannot be decrypted: \(error)")
                    }
                    guard clear.first == 0x47 else { throw StoreError.unsupported("HLS source: segment \(uri.prefix(120)) decrypted is not MPEG-TS") }
                    try clear.write(to: dir.appendingPathComponent(clearName(i)))
                    continue
                }
                keys.append(nil)
                if let map = media.maps[i] {
                    // CMAF: the segment with its initialization segment, remuxed to MPEG-TS (packets copied)
                    let initFile: URL
                    if let known = inits[map] { initFile = known } else {
                        initFile = dir.appendingPathComponent(".init\(inits.count).mp4")
                        inits[map] = initFile
                        try await fetch(try where_.resolve(map), to: initFile, maxBytes: maxInitBytes, timeout: timeout, total: &total, cap: maxTotalBytes)
                    }
                    let raw = dir.appendingPathComponent(String(format: ".seg%05d.m4s", i))
                    try await fetch(try where_.resolve(uri), to: raw, maxBytes: maxSegmentBytes, timeout: timeout, total: &total, cap: maxTotalBytes)
                    if audioTrack == nil {
                        try StoreRemux.segment(raw, initialization: initFile, to: file, shift: cmafClockShift, counters: &counters,
                                               what: "HLS source: CMAF segment \(uri.prefix(200))")
                    }
                    if audioTrack != nil || !carried.isEmpty { joins.append((raw, initFile, uri, file, true)) } else { try? FileManager.default.removeItem(at: raw) }
                    continue
                }
                // MPEG-TS: kept byte for byte, unless the group's sound replaces its own
                let target = audioTrack == nil ? file : dir.appendingPathComponent(String(format: ".seg%05d.ts", i))
                try await fetch(try where_.resolve(uri), to: target, maxBytes: maxSegmentBytes, timeout: timeout, total: &total, cap: maxTotalBytes)
                let head = try FileHandle(forReadingFrom: target).read(upToCount: 1)
                guard head?.first == 0x47 else { throw StoreError.unsupported("HLS source: segment \(uri) is not MPEG-TS") }
                if audioTrack != nil || !carried.isEmpty { joins.append((target, nil, uri, file, target != file)) }
            }
            let rendition = Rendition(name: name, width: v?.width ?? 0, height: v?.height ?? 0,
                                      videoBitrate: videoBitrate(ofVariant: v?.bandwidth ?? 0), audioBitrate: 128_000)
            if !joins.isEmpty {
                // each segment with the audio from its first picture to the next one's (to the end for the last)
                let firsts = try joins.map { j in
                    do { return try FragmentRemux.firstPicture(initialization: j.initialization, segment: j.raw, scratch: dir) } catch {
                        throw StoreError.unsupported("HLS source: segment \(j.uri.prefix(200)): \(error)")
                    }
                }
                func join(_ audio: URL, into folder: URL) throws {
                    var counters: [Int: UInt8] = [:]
                    for (k, j) in joins.enumerated() {
                        let length = k + 1 < firsts.count ? firsts[k + 1] - firsts[k] : MediaTime(seconds: 3600)
                        // CMAF is moved onto the store's MPEG-TS clock; MPEG-TS keeps its own
                        try StoreRemux.segment(j.raw, initialization: j.initialization, to: folder.appendingPathComponent(j.file.lastPathComponent),
                                               shift: j.initialization == nil ? .zero : cmafClockShift,
                                               audio: FragmentRemux.AudioSpan(file: audio, length: length, first: k == 0, last: k == joins.count - 1),
                                               counters: &counters, what: "HLS source: segment \(j.uri.prefix(200))")
                    }
                }
                if let audioTrack { try join(audioTrack, into: dir) }
                for (n, l) in carried.enumerated() {
                    let rung = "\(name)-audio\(n + 1)"
                    let langDir = folder.appendingPathComponent(rung)
                    try FileManager.default.createDirectory(at: langDir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                    try join(l.file, into: langDir)
                    var track = l.track
                    track.rung = rung
                    track.base = name
                    var carrying = rendition
                    carrying.name = rung
                    languageVariants.append(FetchedVariant(rendition: carrying, codecs: v?.codecs, segmentCount: media.segments.count,
                                                           cueSegments: [], language: track))
                }
            }
            out.append(FetchedVariant(rendition: rendition, codecs: v?.codecs, segmentCount: media.segments.count, cueSegments: media.cueSegments, keys: keys))
        }
        out += languageVariants
        guard let m = multivariant else { return Fetched(variants: out, notes: notes) }
        let subtitles = await HLSSubtitleImport.fetch(m, location: location, scratch: folder, timeout: timeout,
                                                      clockShift: cmaf ? cmafClockShift.mpegTicks : 0, total: &total, cap: maxTotalBytes)
        return Fetched(variants: out, subtitles: subtitles.tracks, notes: notes + subtitles.notes, defaultAudio: group.main?.track)
    }

    /// An origin's audio group as fetched: its default rendition (its sound fetched whole, or nil
    /// when the variants carry it: a default without a URI) and each other one, each a whole
    /// track in the import's folder (fMP4, or MPEG-TS: `isTS`), and a note per rendition left out.
    struct AudioGroup {
        var main: (track: PackagedAudioTrack, file: URL?, isTS: Bool)?
        var languages: [(track: PackagedAudioTrack, file: URL, isTS: Bool)] = []
        var notes: [String] = []
    }

    /// The audio group `name` of `m` (its renditions with their own playlists): the default (or
    /// the first) fetched whole, which must be read (its sound is the ladder's); up to
    /// `maxLanguages` others, one that cannot be read left out with a note. A default without a
    /// URI is the variants' own sound.
    static func audioGroup(_ m: HLS.MultivariantPlaylist, named name: String, at location: HLSLocation, folder: URL, timeout: Double,
                           total: inout Int64, cap: Int64) async throws -> AudioGroup {
        var group = AudioGroup()
        let all = m.renditions.filter { $0.type == .audio && $0.groupID == name }
        let inGroup = all.filter { $0.uri != nil }
        guard !inGroup.isEmpty, let chosen = all.first(where: \.isDefault) ?? inGroup.first else { return group }
        if let uri = chosen.uri {
            let main = try await alternateAudio(uri, at: location, folder: folder, name: ".audio", timeout: timeout, total: &total, cap: cap)
            group.main = (PackagedAudioTrack(chosen), main.file, main.isTS)
        } else {
            group.main = (PackagedAudioTrack(chosen), nil, false)
        }
        for r in inGroup where r != chosen {
            guard let u = r.uri, group.languages.count < maxLanguages else {
                group.notes.append("audio '\(r.name.prefix(64))' left out: more than \(maxLanguages + 1) audio renditions")
                continue
            }
            do {
                let t = try await alternateAudio(u, at: location, folder: folder, name: ".audio\(group.languages.count + 1)", timeout: timeout,
                                                 total: &total, cap: cap)
                group.languages.append((PackagedAudioTrack(r), t.file, t.isTS))
            } catch {
                // the content plays in the others
                group.notes.append("audio '\(r.name.prefix(64))' left out: \(String(describing: error).prefix(200))")
            }
        }
        return group
    }

    /// An alternate audio rendition's media playlist at `uri`, fetched under the origin's rules
    /// into one file in `folder` named `name` with its extension: CMAF (its initialization segment
    /// and every fragment, `.mp4`) or MPEG-TS (every segment, `.ts`, as one stream). Packed audio
    /// (raw AAC with ID3 timestamps) is refused.
    static func alternateAudio(_ uri: String, at location: HLSLocation, folder: URL, name: String, timeout: Double, total: inout Int64,
                               cap: Int64) async throws -> (file: URL, isTS: Bool) {
        let at = try location.resolve(uri)
        let media = try HLSPlaylistText.media(try await text(at, scratch: folder, timeout: timeout))
        if media.keys.contains(where: { $0 != nil }) { throw StoreError.unsupported("HLS source: an encrypted alternate audio rendition is not supported") }
        if media.maps.allSatisfy({ $0 == nil }) {
            // MPEG-TS: the segments one after another are one transport stream
            let file = folder.appendingPathComponent(name + ".ts")
            FileManager.default.createFile(atPath: file.path, contents: nil, attributes: [.posixPermissions: 0o600])
            let out = try FileHandle(forWritingTo: file)
            defer { try? out.close() }
            let part = folder.appendingPathComponent(name + ".part")
            defer { try? FileManager.default.removeItem(at: part) }
            for segment in media.segments {
                try? FileManager.default.removeItem(at: part)
                try await fetch(try at.resolve(segment), to: part, maxBytes: maxSegmentBytes, timeout: timeout, total: &total, cap: cap)
                let bytes = try Data(contentsOf: part)
                guard bytes.first == 0x47 else {
                    throw StoreError.unsupported("HLS source: an alternate audio rendition that is neither MPEG-TS nor CMAF (packed audio) is not supported")
                }
                try out.write(contentsOf: bytes)
            }
            return (file, true)
        }
        guard let map = media.maps.first ?? nil, media.maps.allSatisfy({ $0 == map }) else {
            throw StoreError.unsupported("HLS source: an alternate audio rendition of CMAF with more than one EXT-X-MAP is not supported")
        }
        let file = folder.appendingPathComponent(name + ".mp4")
        try await wholeTrack(initialization: map, media: media.segments, to: file) { uri, to, maxBytes in
            try await fetch(try at.resolve(uri), to: to, maxBytes: maxBytes, timeout: timeout, total: &total, cap: cap)
        }
        return (file, false)
    }

    /// One fMP4 track whole at `file`: its initialization segment, then every media segment
    /// appended in order, each read by `fetch(uri, file, maxBytes)` (the origin's rules: at most
    /// `maxInitBytes`, `maxSegmentBytes` each).
    static func wholeTrack(initialization: String, media: [String], to file: URL,
                           fetch: (String, URL, Int64) async throws -> Void) async throws {
        let part = file.appendingPathExtension("part")
        defer { try? FileManager.default.removeItem(at: part) }
        try await fetch(initialization, file, maxInitBytes)
        let out = try FileHandle(forWritingTo: file)
        defer { try? out.close() }
        try out.seekToEnd()
        for uri in media {
            try? FileManager.default.removeItem(at: part)
            try await fetch(uri, part, maxSegmentBytes)
            try out.write(contentsOf: try Data(contentsOf: part))
        }
    }

    /// Reads the fetched variants' frames (blocking): each segment must start with a keyframe and
    /// follow the one before without a gap, every frame on one constant frame rate.
    static func package(name: String, source: String, fetched all: Fetched, folder: URL, storePrefix: String) throws -> PackagedContent {
        if let kept = all.protectedCMAF {
            var p = try ProtectedCMAFImport.package(name: name, source: source, fetched: kept, notes: all.notes, folder: folder, storePrefix: storePrefix)
            // subtitles from the top rung's first picture on its own (never moved) clock
            if let first = p.renditions.first?.segments.first?.encryption?.firstPTS, !all.subtitles.isEmpty {
                p.subtitles = HLSSubtitleImport.onContentTimeline(all.subtitles, firstPTS: first, duration: p.duration.mpegTicks)
            }
            return p
        }
        var rungs: [PackagedRendition] = [], languageRungs: [PackagedRendition] = []
        var frameRate: Rational?, frameCount: Int?, cues: [Int] = []
        var topFirstPTS: Int64?
        for (vi, v) in all.variants.enumerated() {
            let dir = folder.appendingPathComponent(v.rendition.name)
            var spans: [SegmentSpan] = []
            var run = SegmentFrameRun(source: "HLS source", rung: v.rendition.name)
            var first: Int64?
            var width = v.rendition.width, height = v.rendition.height
            var codecs = v.codecs
            var audioIndex: Int?
            var decodeDelay: Int64?
            for i in 0..<v.segmentCount {
                let key = i < v.keys.count ? v.keys[i] : nil
                // an AES-128 segment is read from its clear copy, which never reaches the store;
                // a SAMPLE-AES one as it is (its headers are clear)
                let clearCopy = key?.method == .aes128
                let file = dir.appendingPathComponent(clearCopy ? clearName(i) : storedName(i, encrypted: key != nil))
                defer { if clearCopy { try? FileManager.default.removeItem(at: file) } }
                if key != nil && i == 0 { decodeDelay = (try? Data(contentsOf: file)).flatMap(TSTimestamps.videoDecodeDelay) }
                // (a SAMPLE-AES segment's slices are not decoded to find its streams' parameters:
                // its picture size is read from its clear SPS below)
                let sampleEncrypted = key?.method == .sampleAES
                let d = try Demuxer(url: file.path, probe: !sampleEncrypted)
                guard let vs = d.bestStream(.video), d.streams[vs].codecName == "h264" else {
                    throw StoreError.unsupported("HLS source: \(v.rendition.name) segment \(i) has no H.264 video")
                }
                if i == 0 { width = d.streams[vs].width; height = d.streams[vs].height; audioIndex = d.bestStream(.audio) }
                d.keepOnly([vs])
                let packet = try Packet()
                var pts: [Int64] = []
                var firstIsKey: Bool?
                while try d.read(into: packet) == .packet {
                    guard packet.streamIndex == vs, let t = packet.ptsTicks else { continue }
                    if firstIsKey == nil {
                        firstIsKey = packet.isKeyframe
                        if codecs == nil { codecs = StoreEncoding.codecs(annexB: packet.bytes).map { $0 + (audioIndex != nil ? ",mp4a.40.2" : "") } }
                        if sampleEncrypted && i == 0 {
                            guard let size = H264PictureSize.of(annexB: packet.bytes) else {
                                throw StoreError.unsupported("HLS source: \(v.rendition.name)'s first SAMPLE-AES segment has no clear SPS at its start")
                            }
                            (width, height) = size
                        }
                    }
                    pts.append(t)
                }
                let (frames, lo) = try run.append(pts.sorted(), keyFirst: firstIsKey == true, index: i)
                if first == nil { first = lo }
                spans.append(SegmentSpan(startFrame: frames.lowerBound, endFrame: frames.upperBound, path: "\(storePrefix)/\(v.rendition.name)/" + storedName(i, encrypted: key != nil),
                                         encryption: key.map { SegmentEncryption(key: $0, firstPTS: lo) }))
            }
            // MPEG-TS timestamps are 90 kHz
            let rate = Rational(90_000, run.period ?? 3000)
            let count = spans.last?.endFrame ?? 0
            if let r = frameRate, r != rate { throw StoreError.unsupported("HLS source: variants differ in frame rate") }
            if let c = frameCount, c != count { throw StoreError.unsupported("HLS source: variants differ in length (\(c) and \(count) frames)") }
            frameRate = rate; frameCount = count
            if vi == 0 { cues = v.cueSegments.map { spans[$0].startFrame }; topFirstPTS = first }
            var r = v.rendition
            r.width = width; r.height = height
            var rung = PackagedRendition(rendition: r, codecs: codecs ?? "avc1.640028", copied: true, video: "", segments: spans,
                                         hlsOrigin: true, mediaAudioIndex: audioIndex)
            rung.decodeDelayTicks = decodeDelay ?? (try? Data(contentsOf: dir.appendingPathComponent("seg00000.ts"))).flatMap(TSTimestamps.videoDecodeDelay)
            if v.language != nil { languageRungs.append(rung) } else { rungs.append(rung) }
        }
        guard let frameRate, let frameCount else { throw StoreError.unsupported("HLS source: no variants") }
        // encrypted segments are never cut: every rung must break at the same frames
        if rungs.contains(where: { $0.segments.contains { $0.encryption != nil } }),
           Set(rungs.map { $0.segments.map(\.startFrame) }).count > 1 || rungs.contains(where: { $0.segments.contains { $0.encryption == nil } }) {
            throw StoreError.unsupported("HLS source: encrypted variants must all be encrypted, with segments starting at the same frames")
        }
        var p = PackagedContent(version: PackagedContent.version, name: name, source: source, sourceSHA256: "",
                                frameRateNumerator: frameRate.numerator, frameRateDenominator: frameRate.denominator,
                                frameCount: frameCount, originFrames: 0, audioIndex: nil, renditions: rungs, originCueFrames: cues)
        if let first = topFirstPTS, !all.subtitles.isEmpty {
            p.subtitles = HLSSubtitleImport.onContentTimeline(all.subtitles, firstPTS: first, duration: p.duration.mpegTicks)
        }
        if !all.notes.isEmpty { p.notes = all.notes }
        if let d = all.defaultAudio {
            p.audioTracks = [d] + all.variants.compactMap(\.language)
            if !languageRungs.isEmpty { p.languageRungs = languageRungs }
        }
        // no clear copy of an encrypted segment may reach the store, whatever happened above
        for v in all.variants {
            let dir = folder.appendingPathComponent(v.rendition.name)
            for name in (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [] where name.hasSuffix(".clear.ts") {
                try? FileManager.default.removeItem(at: dir.appendingPathComponent(name))
            }
        }
        return p
    }
}

/// A file a download streams into; the handle is used under its lock only.
private final class Sink: Sendable {
    private let handle: Locked<FileHandle?>
    init(_ handle: FileHandle) { self.handle = Locked(handle) }
    func write(_ data: Data) throws { try handle.withLock { try $0?.write(contentsOf: data) } }
    func close() { handle.withLock { try? $0?.close(); $0 = nil } }
}
