import Foundation
import Manifest
import Media
@testable import Serve
import TestSupport
import Testing
import Timing

/// Issue 34, item 6, live: a live HLS origin of sample-encrypted CMAF (the demuxed test origin's
/// video `cbcs`-encrypted by the tests' `CBCSEncryptor` under `EXT-X-KEY:METHOD=SAMPLE-AES` with a
/// ClearKey `KEYFORMAT` and its `pssh`; its audio rendition clear) is served, not refused. Its
/// sessions are HLS with CMAF segments (the only HLS form its segments have): each content
/// segment byte for byte under the origin's initialization segment and key (passed on, never
/// fetched), its sound the origin's audio segment of its time; ads and slate clear CMAF under
/// `METHOD=NONE` with their own maps, each break at the segment boundary nearest its cue. Every
/// run downloaded as the playlists listed it across refreshes (each refresh checked against
/// RFC 8216 by `curl`) and decrypted by ffmpeg with the key: every content frame once and in
/// order, the ad and slate in the breaks; each run's sound decodes clean and lasts its pictures.
@Suite(.serialized) struct ServeLiveSampleEncryptedCMAFTests {
    typealias Live = ServeLiveSessionTests
    typealias Keys = ServeProtectedDASHTests

    /// The ClearKey `pssh` the key's `data:` URI carries.
    static let pssh = Data((0..<40).map { UInt8($0) }).base64EncodedString()
    /// The origin's key as its playlists give it (and players get it).
    static let key = HLS.Key(method: .sampleAES, uri: "data:text/plain;base64,\(pssh)", keyFormat: "urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e",
                             keyFormatVersions: "1")
    static let encryption = LiveOriginSampleEncryption(
        keyTag: tag(key),
        initSegment: { try CBCSEncryptor.encryptInit($0, kid: Keys.kid, constantIV: Keys.iv) },
        segment: { try CBCSEncryptor.encryptSegment($0, key: Keys.key, constantIV: Keys.iv) })
    static func tag(_ k: HLS.Key) -> String {
        "#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"\(k.uri ?? "")\",KEYFORMAT=\"\(k.keyFormat ?? "")\",KEYFORMATVERSIONS=\"1\""
    }

    /// The key the origin rotates to at its segment `rotationAt` (between the two breaks: content
    /// segments 9–11), with its own key id and ClearKey `pssh`.
    static let rotationAt = 10
    static let key2: [UInt8] = (0..<16).map { UInt8(truncatingIfNeeded: $0 &* 53 &+ 29) }
    static let kid2: [UInt8] = (0..<16).map { UInt8(truncatingIfNeeded: $0 &* 17 &+ 91) }
    static let pssh2 = Data((0..<40).map { UInt8(200 - $0) }).base64EncodedString()
    static let rotatedKey = HLS.Key(method: .sampleAES, uri: "data:text/plain;base64,\(pssh2)", keyFormat: key.keyFormat, keyFormatVersions: "1")
    static let rotating: LiveOriginSampleEncryption = {
        var e = encryption
        e.rotation = .init(at: rotationAt, keyTag: tag(rotatedKey),
                           initSegment: { try CBCSEncryptor.encryptInit($0, kid: kid2, constantIV: Keys.iv) },
                           segment: { try CBCSEncryptor.encryptSegment($0, key: key2, constantIV: Keys.iv) })
        return e
    }()

    /// One segment as a viewer's playlist listed it first: its URI, the map and key in force.
    struct Listed: Equatable { var uri: String; var map: String?; var key: HLS.Key?; var duration: MediaTime; var discontinuity: Bool }

    /// Reads `path` (a media playlist) into `listed`, each segment by its media sequence number
    /// the first time it is listed.
    static func follow(_ rig: Live.Rig, _ path: String, into listed: inout [Int: Listed]) async throws {
        guard case .media(let p) = try HLS.parse(try await curl(rig.url(path)).text) else { Issue.record("\(path): not a media playlist"); return }
        let maps = p.mapsInForce, keys = p.keysInForce
        for (i, s) in p.segments.enumerated() where listed[p.mediaSequence + i] == nil {
            listed[p.mediaSequence + i] = Listed(uri: s.uri, map: maps[i]?.uri, key: keys[i], duration: s.duration, discontinuity: s.discontinuity)
        }
    }

    /// `listed` in order as runs: items under one map with no discontinuity between them.
    static func runs(_ listed: [Int: Listed]) -> [[Listed]] {
        var out: [[Listed]] = []
        for (_, s) in listed.sorted(by: { $0.key < $1.key }) {
            if let last = out.last?.last, last.map == s.map, !s.discontinuity { out[out.count - 1].append(s) } else { out.append([s]) }
        }
        return out
    }

    /// The origin rotates its key between the breaks (`rotating`): a new `EXT-X-KEY`, key id and
    /// map from its segment 10 on. The HLS playlists name each segment's own map and key; the MPD
    /// starts a content Period there, under the new key's `ContentProtection` and map.
    @Test func aSampleEncryptedCMAFChannelIsServedAsHLSWithCMAFSegmentsAsTheyCame() async throws {
        let rig = try await Live.Rig.start(breaks: Live.twoBreaks, seconds: 40, dash: true, sourcePath: "/demuxed/master.m3u8",
                                           secondLanguage: true, sampleEncryption: Self.rotating)
        defer { rig.stop() }
        let rungs = try await rig.warm()
        #expect(rungs.map { "\($0.info.width)x\($0.info.height) \($0.info.frameRate) \($0.info.codecs)" } == ["320x180 30 avc1.64000d,mp4a.40.2"],
                "the rung, read from the clear boxes: \(rungs.map(\.info))")
        #expect(rig.channel.isEncryptedCMAF)
        let created = try await curl(rig.url("/v1/session/ch"), method: "POST", body: "{}")
        let manifest = try #require(created.json?["manifestUrl"] as? String, "\(created.text)")
        #expect(manifest.hasSuffix("/master.m3u8?segments=cmaf"), "\(created.text)")
        #expect(created.json?["dashManifestUrl"] as? String == "/v1/sessions/\(manifest.split(separator: "/")[2])/index.mpd", "\(created.text)")
        let id = manifest.split(separator: "/")[2]
        // what has no form for it: its MPEG-TS playlists and a single-Period MPD, 409 in one line
        for refused in ["/v1/sessions/\(id)/master.m3u8", "/v1/sessions/\(id)/ch-v0.m3u8", "/v1/sessions/\(id)/index.mpd?periods=single",
                        "/v1/dash/ch/index.mpd?periods=single"] {
            let r = try await curl(rig.url(refused))
            #expect(r.status == 409 && r.text.contains("sample-encrypted CMAF") && !r.text.dropLast().contains("\n"), "\(refused): \(r.status) \(r.text)")
        }
        #expect(try await curl(rig.url("/v1/master/ch/index.m3u8")).text.contains("m3u8?segments=cmaf"), "an implicit session's master is the CMAF one")
        let master = try await curl(rig.url(manifest)).text
        #expect(master.contains("CODECS=\"avc1.64000d,mp4a.40.2\"") && master.contains("TYPE=AUDIO"), "\(master)")
        let variant = try #require(master.split(separator: "\n").first { $0.hasPrefix("/v1/sessions/") }.map(String.init), "\(master)")
        let audioPaths = master.split(separator: "\"").filter { $0.hasPrefix("/v1/sessions/") && $0.contains("audio") }.map(String.init)
        #expect(audioPaths.count == 2, "the sound and the second language: \(master)")
        let audioPath = try #require(audioPaths.first), germanPath = try #require(audioPaths.last)

        // followed as a player does, both playlists at every refresh, and the session's MPD
        var video: [Int: Listed] = [:], audio: [Int: Listed] = [:], german: [Int: Listed] = [:]
        let dash = DASHFollower(rig: rig, path: "/v1/sessions/\(id)/index.mpd", folder: rig.root.appendingPathComponent("dash"))
        for step in 0...22 {
            try await Self.follow(rig, variant, into: &video)
            try await Self.follow(rig, audioPath, into: &audio)
            try await Self.follow(rig, germanPath, into: &german)
            try await dash.update(step: step)
            rig.origin.advance()
            try await rig.channel.poll()
        }
        #expect(video.keys.sorted() == audio.keys.sorted(), "the audio playlist lists a segment for each video segment")

        // content: the origin's bytes under its map and key; ads and slate clear under their own maps
        var content = 0, clear = 0
        var maps: [Set<String>] = [[], []]
        for (n, s) in video.sorted(by: { $0.key < $1.key }) {
            let a = try #require(audio[n])
            #expect(a.duration == s.duration && a.discontinuity == s.discontinuity, "segment \(n): the audio item matches the video's")
            if s.uri.hasSuffix(".enc.m4s") {
                content += 1
                // (its number on the channel, the origin's: `…/N.enc.m4s`)
                let origin = try #require(s.uri.split(separator: "/").last.flatMap { Int($0.prefix { $0.isNumber }) }, "\(s.uri)")
                let rotated = origin >= Self.rotationAt
                #expect(s.key == (rotated ? Self.rotatedKey : Self.key) && (s.map ?? "").hasSuffix(".enc.mp4"),
                        "content segment \(n) (origin's \(origin)): key \(String(describing: s.key)), map \(s.map ?? "none")")
                maps[rotated ? 1 : 0].insert(s.map ?? "")
                #expect(a.uri.contains("/audio/") && a.uri.hasSuffix(".enc.m4s") && a.key == nil && (a.map ?? "").hasSuffix(".enc.mp4"),
                        "content segment \(n)'s sound: the origin's audio segment, clear: \(a)")
                let body = try await curl(rig.url(s.uri)).body
                #expect(body.range(of: Data("senc".utf8)) != nil, "content segment \(n) is sent encrypted")
            } else {
                clear += 1
                #expect(s.key == nil && a.key == nil && !(s.map ?? ".enc.mp4").hasSuffix(".enc.mp4"), "ad or slate segment \(n) clear under its own map: \(s)")
                #expect(s.uri.contains("/ads/") || s.uri.contains("/slate/"), "a content segment cut or remuxed: \(s.uri)")
            }
        }
        #expect(content > 8 && clear > 2, "content \(content), ads and slate \(clear)")
        #expect(maps[0].count == 1 && maps[1].count == 1 && maps[0] != maps[1], "one map before the rotation, another after: \(maps)")

        // every run as listed, decrypted with the key (the service never had it) where it is encrypted
        var shown: [Live.Shown] = []
        for (k, run) in Self.runs(video).enumerated() {
            var bytes = try await curl(rig.url(try #require(run[0].map))).body
            for s in run { bytes += try await curl(rig.url(s.uri)).body }
            let file = rig.root.appendingPathComponent("run\(k).mp4"), decrypted = rig.root.appendingPathComponent("run\(k)-clear.mp4")
            try bytes.write(to: file)
            let encrypted = run[0].key != nil
            // (`+ignidx`: FFmpeg 5.1 applies a seekable file's last fragment's aux info to every packet)
            let key = run[0].key == Self.rotatedKey ? Self.key2 : Keys.key
            let ff = try await runOffPool(try Tools.ffmpegPath(), ["-nostdin", "-v", "error", "-xerror"]
                                          + (encrypted ? ["-fflags", "+ignidx", "-decryption_key", Keys.hex(key)] : [])
                                          + ["-i", file.path, "-c", "copy", "-y", decrypted.path])
            #expect(ff.status == 0, "run \(k): \(ff.stderr.prefix(300))")
            shown += try await Live.shown(decrypted, contentSource: rig.origin.media.sourceID)
        }
        guard case .content(let first)? = shown.first, case .content(let last)? = shown.last else { Issue.record("not content at both ends: \(shown.prefix(3))"); return }
        // each break at the segment boundary nearest its cue: the ad, then slate to the boundary
        var snapped = rig.origin.breaks
        for i in snapped.indices {
            snapped[i].startFrame = ServeLiveEncryptedTests.nearestBoundary(snapped[i].startFrame)
            snapped[i].endFrame = ServeLiveEncryptedTests.nearestBoundary(snapped[i].endFrame)
        }
        Live.compare(shown, Live.expected(from: first, to: last + 1, breaks: [(snapped[0], [(7, 120)]), (snapped[1], [(7, 120)])]))
        // the same session as DASH: content Periods under the key said in DASH, the same frames;
        // a content Period from the rotation on, under the new key
        let clearKey = "urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e"
        try await dash.check(snapped: snapped, keys: [
            .init(kid: Self.kidUUID, key: Keys.key, protection: ["value=\"cbcs\" cenc:default_KID=\"\(Self.kidUUID)\"", clearKey, Self.pssh]),
            .init(kid: Self.uuid(Self.kid2), key: Self.key2, protection: ["value=\"cbcs\" cenc:default_KID=\"\(Self.uuid(Self.kid2))\"", clearKey, Self.pssh2]),
        ])
        try Self.checkRotation(dash)
        try Self.checkSecondLanguage(dash)

        // the sound and the second language: each run's decodes clean and lasts its pictures' time,
        // within an AAC frame at either end; the second language's content is its own segments
        #expect(german.keys.sorted() == video.keys.sorted() && german.values.filter { $0.uri.hasSuffix(".enc.m4s") }.allSatisfy { $0.uri.contains("/a1/audio/") }
                && german.values.contains { $0.uri.hasSuffix(".enc.m4s") }, "the second language: \(german.values.map(\.uri).sorted().prefix(4))")
        for (k, run) in (Self.runs(audio) + Self.runs(german)).enumerated() {
            var bytes = try await curl(rig.url(try #require(run[0].map))).body
            for s in run { bytes += try await curl(rig.url(s.uri)).body }
            let file = rig.root.appendingPathComponent("audio\(k).mp4")
            try bytes.write(to: file)
            let decoded = try await runOffPool(try Tools.ffmpegPath(), ["-nostdin", "-v", "error", "-xerror", "-i", file.path, "-f", "f32le", "-ac", "1", "-ar", "48000", "-"])
            #expect(decoded.status == 0, "audio run \(k): \(decoded.stderr.prefix(300))")
            let seconds = Double(decoded.stdout.count / 4) / 48_000
            let pictures = run.reduce(MediaTime.zero) { $0 + $1.duration }.seconds
            #expect(abs(seconds - pictures) <= 2 * 1024.0 / 48_000 + 0.001, "audio run \(k): \(seconds) s of sound for \(pictures) s of pictures")
        }
    }

    /// The key rotation in a followed MPD: a content Period under the old key id, then one under
    /// the new from the origin's segment `rotationAt` (the first break gives back at its segment 9:
    /// one segment of content under the old key).
    static func checkRotation(_ dash: DASHFollower) throws {
        let contentPeriods = dash.order.filter { $0.hasPrefix("content-") }
        let rotation = try #require(contentPeriods.firstIndex { (dash.periodText[$0] ?? "").contains(Self.uuid(Self.kid2)) }, "no Period under the new key")
        let before = try #require(dash.order.firstIndex(of: contentPeriods[rotation])).advanced(by: -1)
        #expect(before >= 0 && dash.order[before].hasPrefix("content-") && (dash.periodText[dash.order[before]] ?? "").contains(Self.kidUUID),
                "the rotation starts a content Period after one under the old key: \(dash.order)")
        let lasted = dash.latest[dash.order[max(0, before)]]?.duration
        #expect(lasted == Int64((Self.rotationAt - 9) * 60 * 3_000), "the new key's Period starts at the origin's segment \(Self.rotationAt): \(String(describing: lasted))")
    }

    /// The second language (German) in every Period of a followed MPD, content and ads alike (the
    /// language's kept sound, or the ad's), each content Period's its own segments (decoded by
    /// `DASHFollower.check` with the rest).
    static func checkSecondLanguage(_ dash: DASHFollower) throws {
        for id in dash.order {
            #expect(dash.latest[id]?.representations.contains { $0.id == "audio-1" } == true && (dash.periodText[id] ?? "").contains("lang=\"de\""),
                    "\(id): the second language: \(dash.latest[id]?.representations.map(\.id) ?? [])")
        }
        for id in dash.order where id.hasPrefix("content-") {
            func sounds(_ rep: String) -> [Data] { (dash.listed[id + " " + rep] ?? [:]).sorted { $0.key < $1.key }.map { dash.bytes[$0.value.media] ?? Data() } }
            let main = sounds("audio"), second = sounds("audio-1")
            #expect(!second.isEmpty && second.count == main.count && second != main, "\(id): the second language's own kept sound")
        }
    }

    /// The key id as a UUID (`default_KID`).
    static let kidUUID = uuid(Keys.kid)
    static func uuid(_ kid: [UInt8]) -> String {
        let h = Array(Keys.hex(kid))
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(h[$0]) }.joined(separator: "-")
    }

    /// A live DASH origin of sample-encrypted CMAF (the test origin's MPD with the video
    /// AdaptationSet under `ContentProtection` — `cbcs` with its `default_KID`, ClearKey's `pssh`
    /// — its video encrypted as above, its audio clear) is served, not refused, as DASH only (its
    /// MPD names no HLS key): each content Period's video the origin's segments as they came under
    /// its initialization segment, `ContentProtection` and timeline; ads and slate clear Periods
    /// between; decrypted with the key, every content frame once and in order, each break at the
    /// segment boundary nearest its cue.
    @Test func aLiveDASHOriginUnderContentProtectionIsServedAsDASH() async throws {
        let pssh = "<cenc:pssh>\(Self.pssh)</cenc:pssh>", pssh2 = "<cenc:pssh>\(Self.pssh2)</cenc:pssh>"
        func descriptors(_ kid: String, _ pssh: String) -> [String] {
            ["<ContentProtection xmlns:cenc=\"urn:mpeg:cenc:2013\" schemeIdUri=\"urn:mpeg:dash:mp4protection:2011\" value=\"cbcs\" cenc:default_KID=\"\(kid)\"/>",
             "<ContentProtection xmlns:cenc=\"urn:mpeg:cenc:2013\" schemeIdUri=\"urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e\">\(pssh)</ContentProtection>"]
        }
        // (the key rotated at a Period of its own from segment 10, as DASH packagers do)
        var encryption = Self.rotating
        encryption.descriptors = descriptors(Self.kidUUID, pssh)
        encryption.rotation?.descriptors = descriptors(Self.uuid(Self.kid2), pssh2)
        let rig = try await Live.Rig.start(breaks: Live.twoBreaks, seconds: 40, dash: true, secondLanguage: true, sampleEncryption: encryption)
        defer { rig.stop() }
        let rungs = try await rig.warm()
        #expect(rungs.map { "\($0.info.width)x\($0.info.height) \($0.info.frameRate) \($0.info.codecs)" } == ["320x180 30 avc1.64000d,mp4a.40.2"])
        #expect(rig.channel.encryptedCMAFSaid?.hls == false)
        let created = try await curl(rig.url("/v1/session/ch"), method: "POST", body: "{}")
        let path = try #require(created.json?["dashManifestUrl"] as? String, "\(created.text)")
        #expect(created.json?["manifestUrl"] == nil, "no HLS: the MPD names no HLS key: \(created.text)")
        let id = path.split(separator: "/")[2]
        for refused in ["/v1/sessions/\(id)/master.m3u8", "/v1/sessions/\(id)/master.m3u8?segments=cmaf", "/v1/master/ch/index.m3u8"] {
            let r = try await curl(rig.url(refused))
            #expect(r.status == 409 && r.text.contains("DASH only"), "\(refused): \(r.status) \(r.text)")
        }
        let dash = DASHFollower(rig: rig, path: path, folder: rig.root.appendingPathComponent("dash"))
        for step in 0...22 {
            try await dash.update(step: step)
            rig.origin.advance()
            try await rig.channel.poll()
        }
        var snapped = rig.origin.breaks
        for i in snapped.indices {
            snapped[i].startFrame = ServeLiveEncryptedTests.nearestBoundary(snapped[i].startFrame)
            snapped[i].endFrame = ServeLiveEncryptedTests.nearestBoundary(snapped[i].endFrame)
        }
        try await dash.check(snapped: snapped, keys: [
            .init(kid: Self.kidUUID, key: Keys.key, protection: ["value=\"cbcs\" cenc:default_KID=\"\(Self.kidUUID)\"", pssh]),
            .init(kid: Self.uuid(Self.kid2), key: Self.key2, protection: ["value=\"cbcs\" cenc:default_KID=\"\(Self.uuid(Self.kid2))\"", pssh2]),
        ])
        try Self.checkRotation(dash)
        try Self.checkSecondLanguage(dash)
    }
}

/// A live session's MPD followed across updates (each valid against the DASH schema, Periods
/// meeting, nothing published rewritten: `ServeLiveDASHTests.update`/`rewrites`), every segment
/// of every Representation downloaded while listed.
final class DASHFollower: @unchecked Sendable {
    let rig: ServeLiveSessionTests.Rig, path: String, folder: URL
    var last: (periods: [DASHPeriods.Period], text: String)?
    var latest: [String: DASHPeriods.Period] = [:], order: [String] = []
    var bytes: [String: Data] = [:]
    var listed: [String: [Int64: (duration: Int64, media: String)]] = [:]
    /// Each Period's text as an update wrote it (its `ContentProtection`s checked).
    var periodText: [String: String] = [:]

    init(rig: ServeLiveSessionTests.Rig, path: String, folder: URL) {
        self.rig = rig; self.path = path; self.folder = folder
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func update(step: Int) async throws {
        let (r, file) = try await ServeLiveDASHTests.update(rig, path, step: step, into: folder)
        let (periods, _) = try DASHPeriods.read(file)
        for (a, b) in zip(periods, periods.dropFirst()) { #expect(a.start + (a.duration ?? -1) == b.start, "step \(step): \(a.id) ends where \(b.id) starts") }
        if let (old, oldText) = last { #expect(ServeLiveDASHTests.rewrites(old, periods, oldText: oldText, newText: r.text) == [], "step \(step)") }
        last = (periods, r.text)
        let chunks = r.text.components(separatedBy: "<Period ").dropFirst()
        for p in periods {
            if latest[p.id] == nil { order.append(p.id) }
            latest[p.id] = p
            periodText[p.id] = chunks.first { $0.hasPrefix("id=\"\(p.id)\"") }
            for rep in p.representations where rep.contentType != "text" {
                try await ServeLiveDASHTests.download(rep, key: p.id + " " + rep.id, rig: rig, listed: &listed, bytes: &bytes)
            }
        }
    }

    /// A key the content may be under: its id (`default_KID`, a UUID), its bytes, and what a
    /// Period under it says (each string in its text).
    struct Key { var kid: String; var key: [UInt8]; var protection: [String] }

    /// Every Period's video as listed, decrypted with its key where its Period is under
    /// `ContentProtection` (the one of `keys` whose id it names, each of that key's `protection`
    /// in its text; every key used), decoded: the frames `snapped`'s breaks make; and each
    /// Period's sound decoding clean for its pictures' time.
    func check(snapped: [LiveOriginPlacedBreak], keys: [Key]) async throws {
        var shown: [ServeLiveSessionTests.Shown] = []
        var protected = 0
        var used = Set<String>()
        for (n, id) in order.enumerated() {
            guard let p = latest[id] else { continue }
            let text = periodText[id] ?? ""
            let encrypted = text.contains("<ContentProtection")
            #expect(encrypted == id.hasPrefix("content-"), "\(id): under ContentProtection only for content")
            let under = keys.filter { text.contains($0.kid) }
            var key = keys.first?.key ?? []
            if encrypted {
                protected += 1
                #expect(under.count == 1, "\(id): under one of the keys: \(text.prefix(1500))")
                if let k = under.first {
                    key = k.key
                    used.insert(k.kid)
                    for d in k.protection { #expect(text.contains(d), "\(id): \(d) in \(text.prefix(1500))") }
                }
            }
            for rep in p.representations where rep.contentType != "text" {
                let all = (listed[id + " " + rep.id] ?? [:]).sorted { $0.key < $1.key }
                for (x, y) in zip(all, all.dropFirst()) { #expect(x.key + x.value.duration == y.key, "\(id) \(rep.id): segments meet") }
                var data = bytes[rep.initialization] ?? Data()
                for (_, s) in all { data += bytes[s.media] ?? Data() }
                let file = folder.appendingPathComponent("p\(n)-\(rep.id).mp4"), clear = folder.appendingPathComponent("p\(n)-\(rep.id)-clear.mp4")
                try data.write(to: file)
                let video = rep.contentType == "video"
                let ff = try await runOffPool(try Tools.ffmpegPath(), ["-nostdin", "-v", "error", "-xerror"]
                                              + (encrypted && video ? ["-fflags", "+ignidx", "-decryption_key", ServeProtectedDASHTests.hex(key)] : [])
                                              + ["-i", file.path, "-c", "copy", "-y", clear.path])
                #expect(ff.status == 0, "\(id) \(rep.id): \(ff.stderr.prefix(300))")
                if video {
                    #expect(rep.codecs.hasPrefix(encrypted ? "avc1." : "avc3."), "\(id): \(rep.codecs)")
                    // the timeline is the segments' own: pictures start at the first S@t, which is the
                    // Period's offset unless its first segments slid out (read from the boxes, before decryption)
                    let span = try #require(try ServeDASHTests.span(file, stream: "v:0"))
                    let firstTime = Double(all.first?.key ?? 0) / Double(rep.timescale)
                    #expect(abs(span.start - firstTime) < 0.0001, "\(id): pictures at \(span.start) s, listed at \(firstTime) s")
                    #expect(all.first?.key == rep.presentationTimeOffset || n == 0, "\(id): its first segment starts it")
                    shown += try await ServeLiveSessionTests.shown(clear, contentSource: rig.origin.media.sourceID)
                } else {
                    let decoded = try await runOffPool(try Tools.ffmpegPath(), ["-nostdin", "-v", "error", "-xerror", "-i", clear.path, "-f", "f32le", "-ac", "1", "-ar", "48000", "-"])
                    let seconds = Double(decoded.stdout.count / 4) / 48_000
                    let listedSeconds = Double(all.reduce(0) { $0 + $1.value.duration }) / Double(rep.timescale)
                    #expect(decoded.status == 0 && abs(seconds - listedSeconds) < 0.05, "\(id) sound: \(seconds) s decoded for \(listedSeconds) s listed")
                }
            }
        }
        #expect(protected >= 2 && order.count >= 5, "content, ads and slate, content: \(order)")
        #expect(used.count == keys.count, "every key's Periods: \(used)")
        guard case .content(let first)? = shown.first, case .content(let last)? = shown.last else { Issue.record("not content at both ends: \(shown.prefix(3))"); return }
        ServeLiveSessionTests.compare(shown, ServeLiveSessionTests.expected(from: first, to: last + 1, breaks: [(snapped[0], [(7, 120)]), (snapped[1], [(7, 120)])]))
    }
}
