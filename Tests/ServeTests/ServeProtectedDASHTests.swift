import Foundation
import Manifest
import Media
@testable import Serve
import TestSupport
import Testing
import Timing

/// Issue 34, item 6: an encrypted CMAF origin — a DASH origin of two video Representations and
/// clear audio (ffmpeg's DASH package of the test clip, 2 s segments), its video encrypted `cbcs`
/// 1:9 with clear-key test keys (`CBCSEncryptor`) and signalled by `ContentProtection`
/// (`mp4protection` with `cenc:default_KID`, ClearKey with its licence URL) — is served, not
/// refused: as DASH only, its segments byte for byte, the descriptors passed on to every content
/// Period, the ad's Period clear, the mid-roll at 1.55 s in at the nearest segment boundary (2 s).
/// Decrypted by ffmpeg with the key, the content Periods' video holds every content frame once
/// and in order, the ad's 60 frames between frames 59 and 60; each Period's sound covers it.
@Suite(.serialized) struct ServeProtectedDASHTests {
    static let key: [UInt8] = (0..<16).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
    static let kid: [UInt8] = (0..<16).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
    static let iv: [UInt8] = (0..<16).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
    static func hex(_ b: [UInt8]) -> String { b.map { String(format: "%02x", $0) }.joined() }
    /// The KID as `cenc:default_KID` writes it.
    static var kidUUID: String {
        let h = Array(hex(kid))
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(h[$0]) }.joined(separator: "-")
    }

    /// The protected origin in `folder`: ffmpeg's template package (`init-streamN.m4s`,
    /// `chunk-streamN-NNNNN.m4s`; streams 0 and 1 video, 2 audio), the video encrypted, the MPD
    /// given the descriptors. Returns the MPD and the clear bytes of each encrypted file.
    static func origin(in folder: URL) async throws -> (mpd: String, clear: [String: Data]) {
        var mpd = try await StoreDASHSourceTests.package(folder, ["-use_template", "1", "-use_timeline", "1"])
        var clear: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.contains("stream0") || name.contains("stream1") {
            let file = folder.appendingPathComponent(name)
            let bytes = try Data(contentsOf: file)
            clear[name] = bytes
            try (name.hasPrefix("init") ? CBCSEncryptor.encryptInit(bytes, kid: kid, constantIV: iv)
                                        : CBCSEncryptor.encryptSegment(bytes, key: key, constantIV: iv)).write(to: file)
        }
        let protection = """
            <ContentProtection schemeIdUri="urn:mpeg:dash:mp4protection:2011" value="cbcs" cenc:default_KID="\(kidUUID)"/>
            <ContentProtection schemeIdUri="urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e" value="ClearKey1.0"><dashif:laurl>https://keys.example/clearkey</dashif:laurl></ContentProtection>
            """
        guard let set = mpd.range(of: "<AdaptationSet id=\"0\""), let end = mpd.range(of: ">", range: set.upperBound..<mpd.endIndex),
              let root = mpd.range(of: "<MPD ") else { throw VerifierError.malformedOutput(mpd) }
        mpd.insert(contentsOf: protection, at: end.upperBound)
        mpd.insert(contentsOf: "xmlns:cenc=\"urn:mpeg:cenc:2013\" xmlns:dashif=\"https://dashif.org/CPS\" ", at: root.upperBound)
        return (mpd, clear)
    }

    /// The origin served over HTTP from `folder`.
    static func serve(_ folder: URL, mpd: String) throws -> HTTPTestServer {
        let server = try HTTPTestServer()
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name != "o.mpd" {
            server.route("/" + name, HTTPTestServer.Response(headers: ["Content-Type": "video/mp4"], body: try Data(contentsOf: folder.appendingPathComponent(name))))
        }
        server.route("/o.mpd", HTTPTestServer.Response(headers: ["Content-Type": "application/dash+xml"], body: Data(mpd.utf8)))
        return server
    }

    @Test func aCBCSOriginIsServedAsDASHWithItsProtectionAndBreaksAtSegmentBoundaries() async throws {
        let root = StoreFixture.folder("cbcs")
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("origin")
        let (mpdText, clear) = try await Self.origin(in: folder)
        let origin = try Self.serve(folder, mpd: mpdText)
        let ads = try midrollAdServer()
        defer { ads.stop(); origin.stop() }
        let store = try StoreFixture.store(root.appendingPathComponent("store")) { $0.contents = ["p": origin.url("/o.mpd")] }
        let content = try await store.content("p")
        #expect(content.encrypted && content.protectedCMAF != nil && content.duration == MediaTime(seconds: 4))
        #expect(content.renditions.map(\.rendition.name) == ["180p", "90p"])
        // the origin's files kept as they came: nothing decrypted, nothing remuxed
        let stored = FileManager.default.enumerator(atPath: root.appendingPathComponent("store").path)?.allObjects as? [String] ?? []
        #expect(stored.filter { $0.hasSuffix(".enc.m4s") }.count == 4 && !stored.contains { $0.hasSuffix(".ts") }, "\(stored)")

        // the record read back is checked before it is trusted: a planted path or licence URL is refused
        let record = try #require(stored.first { $0.hasSuffix("content.json") })
        let prefix = String(record.dropLast("/content.json".count))
        let package = try JSONDecoder().decode(PackagedContent.self, from: Data(contentsOf: root.appendingPathComponent("store/\(record)")))
        #expect(package.isWellFormed(prefix: prefix, files: Set(package.files)))
        #expect(package.files.filter { $0.hasSuffix(".mp4") }.count == 3, "two initialization segments and the sound's: \(package.files)")
        var planted = package
        planted.protectedCMAF?.audio?.segments[0].path = "\(prefix)/../../escape.m4s"
        #expect(!planted.isWellFormed(prefix: prefix, files: Set(planted.files)))
        planted = package
        planted.protectedCMAF?.video[1].licenseURL = "file:///etc/passwd"
        #expect(!planted.isWellFormed(prefix: prefix, files: Set(planted.files)))
        planted = package
        let other = planted.renditions[1].segments[0].encryption?.initialization
        planted.renditions[0].segments[1].encryption?.initialization = other
        #expect(!planted.isWellFormed(prefix: prefix, files: Set(planted.files)), "one initialization segment per rung")

        try await Self.expectServedDecrypted(store, root: root, ads: ads, descriptors: [
            "<ContentProtection schemeIdUri=\"urn:mpeg:dash:mp4protection:2011\" value=\"cbcs\" cenc:default_KID=\"\(Self.kidUUID)\"/>",
            "<dashif:laurl>https://keys.example/clearkey</dashif:laurl>",
        ], firstSegment: (try Data(contentsOf: folder.appendingPathComponent("chunk-stream0-00001.m4s")), clear["chunk-stream0-00001.m4s"]))
    }

    /// A session of protected content `p` in `store` (its ads from `ads`, files under `root`):
    /// DASH only, its MPD valid and of three Periods (0–2 s, the ad, 4–6 s) whose content ones
    /// carry `descriptors` (lines of the MPD) and the ad's none; each Period decrypted by ffmpeg
    /// with the key decodes clean, every content frame once in order, the ad's 60 frames between
    /// frames 59 and 60, the sound covering each Period; the first content segment served is
    /// `firstSegment.encrypted` byte for byte (not the clear bytes), as it came only.
    /// `hlsOrigin`: the content came from an HLS origin, so it is also served as HLS with CMAF
    /// segments (`ServeProtectedHLSTests`), which its sessions name; never as MPEG-TS.
    static func expectServedDecrypted(_ store: MediaStore, root: URL, ads: HTTPTestServer, descriptors: [String],
                                      firstSegment: (encrypted: Data, clear: Data?), hlsOrigin: Bool = false) async throws {
        let running = try RunningService(media: store, adsTemplate: ads.url("/vmap")) { c in c.contents = [ContentSource(name: "p", source: "origin")] }
        // a session whose MPD has the ad (VOD leaves out an ad not transcoded yet)
        var id = "", mpdBody = Data()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let posted = try await curl(running.url("/v1/session/p"), method: "POST", body: "{}").json
            let named = posted?["manifestUrl"] as? String
            #expect(hlsOrigin ? named?.hasSuffix("/master.m3u8?segments=cmaf") == true : named == nil,
                    "HLS (CMAF segments) is named for an HLS origin's encrypted CMAF only: \(String(describing: named))")
            let dash = try #require(posted?["dashManifestUrl"] as? String)
            id = String(dash.dropFirst("/v1/sessions/".count).prefix { $0 != "/" })
            let answer = try await curl(running.url(dash))
            #expect(answer.status == 200, "\(answer.text.prefix(300))")
            mpdBody = answer.body
            if answer.text.contains("break-0-ad-0") { break }
            try await Task.sleep(nanoseconds: 200_000_000)
        }
        let mpd = root.appendingPathComponent("session.mpd")
        try mpdBody.write(to: mpd)
        #expect(try await offPool { try DASHSchema.problems(mpd) } == [])
        for hls in ["master.m3u8", "180p.m3u8"] + (hlsOrigin ? [] : ["master.m3u8?segments=cmaf"]) {
            let r = try await curl(running.url("/v1/sessions/\(id)/\(hls)"))
            #expect(r.status == 409 && r.text.contains(hlsOrigin ? "HLS with CMAF segments" : "DASH only"), "\(hls): \(r.status) \(r.text)")
        }

        let (periods, total) = try DASHPeriods.read(mpd)
        #expect(periods.map(\.id) == ["content-0", "break-0-ad-0", "content-1"], "\(periods.map(\.id))")
        #expect(periods.map(\.start) == [0, 180_000, 360_000] && periods.map(\.duration) == [180_000, 180_000, 180_000] && total == 540_000,
                "the break at the segment boundary nearest 1.55 s (2 s), 2 s of ad")
        // the descriptors on each content Period's video, none on the ad's
        let text = String(decoding: mpdBody, as: UTF8.self)
        let chunks = text.components(separatedBy: "<Period ").dropFirst()
        for (chunk, p) in zip(chunks, periods) {
            let isContent = p.id.hasPrefix("content")
            for line in descriptors { #expect(chunk.contains(line) == isContent, "\(p.id): \(line)") }
        }

        var ids: [FrameIdentity?] = []
        for (n, p) in periods.enumerated() {
            for rep in p.representations {
                var bytes = try await curl(running.url(rep.initialization)).body
                for m in rep.media {
                    let r = try await curl(running.url(m))
                    #expect(r.status == 200, "\(m)")
                    bytes += r.body
                }
                let file = root.appendingPathComponent("p\(n)-\(rep.id).mp4")
                try bytes.write(to: file)
                let encrypted = p.id.hasPrefix("content") && rep.contentType == "video"
                // decrypted by ffmpeg with the clear key (the service never had it), copied to a clear file
                let decrypted = root.appendingPathComponent("p\(n)-\(rep.id)-clear.mp4")
                let ff = try await runOffPool(try Tools.ffmpegPath(), ["-nostdin", "-v", "error", "-xerror"] + (encrypted ? ["-decryption_key", Self.hex(Self.key)] : [])
                                              + ["-i", file.path, "-c", "copy", "-y", decrypted.path])
                #expect(ff.status == 0, "\(p.id) \(rep.id): \(ff.stderr)")
                if encrypted {
                    // and without it, the pictures are not the content's (the segments really are encrypted)
                    let blind = try await runOffPool(try Tools.ffmpegPath(), ["-nostdin", "-v", "quiet", "-i", file.path, "-f", "framemd5", "-"])
                    let seen = try await runOffPool(try Tools.ffmpegPath(), ["-nostdin", "-v", "error", "-i", decrypted.path, "-f", "framemd5", "-"])
                    #expect(blind.stdout != seen.stdout && !seen.stdout.isEmpty, "\(p.id) \(rep.id): the same pictures without the key")
                }
                let decode = try await runOffPool(try Tools.ffmpegPath(), ["-nostdin", "-v", "error", "-xerror", "-i", decrypted.path, "-f", "null", "-"])
                #expect(decode.status == 0, "\(p.id) \(rep.id) decodes clean: \(decode.stderr)")
                let start = Double(rep.presentationTimeOffset) / Double(rep.timescale), end = start + Double(p.duration ?? 0) / 90_000
                let span = try #require(try ServeDASHTests.span(file, stream: rep.contentType == "video" ? "v:0" : "a:0"))
                if rep.contentType == "video" {
                    #expect(abs(span.start - start) < 0.0001 && abs(span.end - end) < 0.0001, "\(p.id) \(rep.id): pictures fill the Period")
                } else {
                    #expect(span.start <= start + 0.0001 && span.end >= end - 0.0001, "\(p.id): the sound covers the Period (\(span) vs \(start)…\(end))")
                }
                if rep.id == "180p" {
                    ids += try await offPool {
                        try MediaVerifier.videoFrames(decrypted, reader: IdentityReader(output: PixelSize(width: 320, height: 180), sources: [PixelSize(width: 240, height: 180)])).map(\.identity)
                    }
                }
            }
        }
        #expect(ids.compactMap { $0 }.filter { $0.sourceID == 3 }.map(\.frameIndex) == Array(0..<StoreFixture.frames), "content frames once and in order")
        let resume = try #require(ids.firstIndex { $0 == FrameIdentity(sourceID: 3, frameIndex: 60) })
        #expect(resume == 120 && ids[59] == FrameIdentity(sourceID: 3, frameIndex: 59) && ids[60..<120].allSatisfy { $0?.sourceID == 7 },
                "the ad's 60 frames between content frames 59 and 60: \(ids[60..<min(ids.count, 120)].map { $0.map { "\($0.sourceID):\($0.frameIndex)" } ?? "?" })")

        // content segments byte for byte, as encrypted at the origin; sent as they came only
        let content0 = periods[0].representations[0]
        let served = try await curl(running.url(content0.media[0])).body
        #expect(served == firstSegment.encrypted && served != firstSegment.clear)
        #expect(try await curl(running.url(content0.media[0] + "?o=900")).status == 400)
    }

    /// An HLS origin of sample-encrypted CMAF under `root/origin` (ffmpeg's fMP4 HLS of the clip:
    /// a video-only variant, the sound an audio rendition; the video encrypted `cbcs` by
    /// `CBCSEncryptor` under `EXT-X-KEY:METHOD=SAMPLE-AES` with a ClearKey `KEYFORMAT` and its
    /// `pssh` in a `data:` URI), served; the `pssh` and the clear bytes of each encrypted file.
    /// `keyTag`: the variant's `EXT-X-KEY` instead (`PSSH` in it stands for the `pssh`).
    /// `subtitles`: with a WebVTT rendition (`subs.m3u8`, one segment, `X-TIMESTAMP-MAP`
    /// MPEGTS 0) whose cues "one" and "two" are at PTS 0.5–1.5 s and 2.5–3.5 s.
    /// `french`: a second audio rendition (`LANGUAGE="fra"`, the clip's sound again; the first `eng`).
    static func hlsOrigin(in root: URL, keyTag: String? = nil, subtitles: Bool = false, french: Bool = false) async throws -> (origin: HTTPTestServer, folder: URL, pssh: String, clear: [String: Data]) {
        let folder = root.appendingPathComponent("origin")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let maps = french ? ["-map", "0:v", "-map", "0:a", "-map", "0:a"] : ["-map", "0:v", "-map", "0:a"]
        let streams = french ? "v:0,agroup:aud a:0,agroup:aud,language:eng,default:yes a:1,agroup:aud,language:fra" : "v:0,agroup:aud a:0,agroup:aud,default:yes"
        try await Tools.ffmpeg(["-v", "error", "-y", "-i", try StoreFixture.clip().path] + maps + ["-c", "copy",
                                "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod", "-hls_segment_type", "fmp4",
                                "-var_stream_map", streams, "-master_pl_name", "master.m3u8",
                                "-hls_segment_filename", folder.appendingPathComponent("s%v_%d.m4s").path, "-hls_fmp4_init_filename", "init%v.mp4",
                                folder.appendingPathComponent("p%v.m3u8").path])
        var clear: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name == "init0.mp4" || name.hasPrefix("s0_") {
            let file = folder.appendingPathComponent(name), bytes = try Data(contentsOf: file)
            clear[name] = bytes
            try (name.hasPrefix("init") ? CBCSEncryptor.encryptInit(bytes, kid: Self.kid, constantIV: Self.iv)
                                        : CBCSEncryptor.encryptSegment(bytes, key: Self.key, constantIV: Self.iv)).write(to: file)
        }
        let pssh = Data((0..<40).map { UInt8($0) }).base64EncodedString()
        var video = try String(contentsOf: folder.appendingPathComponent("p0.m3u8"), encoding: .utf8)
        let first = try #require(video.range(of: "#EXTINF"))
        let tag = keyTag ?? "#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"data:text/plain;base64,PSSH\",KEYFORMAT=\"urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e\",KEYFORMATVERSIONS=\"1\""
        video.insert(contentsOf: tag.replacingOccurrences(of: "PSSH", with: pssh) + "\n", at: first.lowerBound)
        try Data(Self.key).write(to: folder.appendingPathComponent("key.bin"))
        // the variant's playlist in a folder of its own (its URIs relative to it, the audio rendition's to the master)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("v"), withIntermediateDirectories: true)
        video = video.replacingOccurrences(of: "init0.mp4", with: "../init0.mp4").replacingOccurrences(of: "\ns0_", with: "\n../s0_")
        try video.write(to: folder.appendingPathComponent("v/p0.m3u8"), atomically: true, encoding: .utf8)
        var master = try String(contentsOf: folder.appendingPathComponent("master.m3u8"), encoding: .utf8)
        master = master.replacingOccurrences(of: "\np0.m3u8", with: "\nv/p0.m3u8")
        if subtitles {
            try "WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:0,LOCAL:00:00:00.000\n\n00:00:00.500 --> 00:00:01.500\none\n\n00:00:02.500 --> 00:00:03.500\ntwo\n"
                .write(to: folder.appendingPathComponent("subs0.vtt"), atomically: true, encoding: .utf8)
            try "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:4.0,\nsubs0.vtt\n#EXT-X-ENDLIST\n"
                .write(to: folder.appendingPathComponent("subs.m3u8"), atomically: true, encoding: .utf8)
            master = master.replacingOccurrences(of: "#EXT-X-STREAM-INF:", with: "#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"subs\",NAME=\"English\",LANGUAGE=\"en\",DEFAULT=YES,AUTOSELECT=YES,URI=\"subs.m3u8\"\n#EXT-X-STREAM-INF:SUBTITLES=\"subs\",")
        }
        try master.write(to: folder.appendingPathComponent("master.m3u8"), atomically: true, encoding: .utf8)
        let origin = try HTTPTestServer.serving(folder)
        origin.route("/v/p0.m3u8", HTTPTestServer.Response(headers: ["Content-Type": "application/vnd.apple.mpegurl"],
                                                           body: try Data(contentsOf: folder.appendingPathComponent("v/p0.m3u8"))))
        return (origin, folder, pssh, clear)
    }

    /// The HLS origin above taken in as it came and served as DASH, the key said as DASH says it
    /// (`mp4protection` `cbcs` with the `tenc`'s KID, ClearKey with the `pssh`), the session
    /// decrypted as above (its HLS: `ServeProtectedHLSTests`).
    @Test func aSampleEncryptedHLSOriginIsServedAsDASHWithItsKeySaidInDASH() async throws {
        let root = StoreFixture.folder("sample-aes-hls")
        defer { try? FileManager.default.removeItem(at: root) }
        let (origin, folder, pssh, clear) = try await Self.hlsOrigin(in: root)
        let ads = try midrollAdServer()
        defer { ads.stop(); origin.stop() }
        let store = try StoreFixture.store(root.appendingPathComponent("store")) { $0.contents = ["p": origin.url("/master.m3u8")] }
        let content = try await store.content("p")
        #expect(content.encrypted && content.duration == MediaTime(seconds: 4), "\(content.notes)")
        #expect(content.protectedCMAF?.video == [
            DASH.ContentProtection(schemeIdUri: "urn:mpeg:dash:mp4protection:2011", value: "cbcs", defaultKID: Self.kidUUID),
            DASH.ContentProtection(schemeIdUri: "urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e", pssh: pssh),
        ], "\(String(describing: content.protectedCMAF?.video))")
        #expect(content.protectedCMAF?.audio?.protection == [] && (content.protectedCMAF?.audio?.segments.count ?? 0) >= 2, "the clear sound as it came")
        try await Self.expectServedDecrypted(store, root: root, ads: ads, descriptors: [
            "<ContentProtection schemeIdUri=\"urn:mpeg:dash:mp4protection:2011\" value=\"cbcs\" cenc:default_KID=\"\(Self.kidUUID)\"/>",
            "<cenc:pssh>\(pssh)</cenc:pssh>",
        ], firstSegment: (try Data(contentsOf: folder.appendingPathComponent("s0_0.m4s")), clear["s0_0.m4s"]), hlsOrigin: true)
    }

    /// The MPD of a session of content `p` that has the ad's Period (VOD leaves out an ad not
    /// transcoded yet).
    static func readyMPD(_ running: RunningService) async throws -> String {
        var text = ""
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let dash = try #require(try await curl(running.url("/v1/session/p"), method: "POST", body: "{}").json?["dashManifestUrl"] as? String)
            text = try await curl(running.url(dash)).text
            if text.contains("break-0-ad-0") { break }
            try await Task.sleep(nanoseconds: 200_000_000)
        }
        return text
    }

    /// A DASH origin's subtitles (a WebVTT file, clear) go with its encrypted media: each content
    /// Period's text AdaptationSet gives the cues of the content time it shows, from its start
    /// (the origin's cues at 0.5 s and 2.5 s: 0.5 s into the first and into the last Period), the
    /// ad's Period the empty file.
    @Test func anEncryptedDASHOriginsSubtitlesGoWithIt() async throws {
        let root = StoreFixture.folder("protected-dash-subs")
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("origin")
        var (mpd, _) = try await Self.origin(in: folder)
        mpd = mpd.replacingOccurrences(of: "</Period>", with: #"<AdaptationSet id="9" contentType="text" mimeType="text/vtt" lang="en"><Representation id="en" bandwidth="256"><BaseURL>en.vtt</BaseURL></Representation></AdaptationSet>"#
                                            + "\n</Period>")
        try "WEBVTT\n\n00:00:00.500 --> 00:00:01.500\none\n\n00:00:02.500 --> 00:00:03.500\ntwo\n".write(to: folder.appendingPathComponent("en.vtt"), atomically: true, encoding: .utf8)
        let server = try Self.serve(folder, mpd: mpd)
        let ads = try midrollAdServer()
        defer { ads.stop(); server.stop() }
        let store = try StoreFixture.store(root.appendingPathComponent("store")) { $0.contents = ["p": server.url("/o.mpd")] }
        let content = try await store.content("p")
        #expect(content.protectedCMAF != nil && content.subtitles.first?.cues.map(\.text) == ["one", "two"], "\(content.notes)")
        let running = try RunningService(media: store, adsTemplate: ads.url("/vmap")) { c in c.contents = [ContentSource(name: "p", source: "origin")] }
        let text = try await Self.readyMPD(running)
        let bases = text.components(separatedBy: "<BaseURL>").dropFirst().compactMap { $0.components(separatedBy: "</BaseURL>").first }.filter { $0.hasSuffix(".vtt") }
        #expect(bases.count == 3 && bases[1].hasSuffix("/empty.vtt"), "\(bases)")
        var starts: [[Int64]] = []
        for base in bases { starts.append(try WebVTT.parse(try await curl(running.url(base)).text).cues.map(\.start)) }
        #expect(starts == [[45_000], [], [45_000]], "each cue 0.5 s into its Period: \(starts)")
    }

    /// A DASH origin's other audio language (a second audio AdaptationSet, `lang="fra"`: the
    /// clip's sound again) is kept as its main sound is and listed in each content Period.
    @Test func anEncryptedDASHOriginsLanguagesAreKept() async throws {
        let root = StoreFixture.folder("protected-dash-languages")
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("origin")
        var (mpd, _) = try await Self.origin(in: folder)
        let start = try #require(mpd.range(of: #"<AdaptationSet id="1""#))
        let end = try #require(mpd.range(of: "</AdaptationSet>", range: start.upperBound..<mpd.endIndex))
        // (ffmpeg names a language already: replaced)
        let set = String(mpd[start.lowerBound..<end.upperBound]).replacingOccurrences(of: #" lang="[^"]*""#, with: "", options: .regularExpression)
        let french = set.replacingOccurrences(of: #"<AdaptationSet id="1""#, with: #"<AdaptationSet id="2" lang="fra""#)
        mpd.replaceSubrange(start.lowerBound..<end.upperBound, with: set.replacingOccurrences(of: #"<AdaptationSet id="1""#, with: #"<AdaptationSet id="1" lang="eng""#) + "\n" + french)
        let server = try Self.serve(folder, mpd: mpd)
        let ads = try midrollAdServer()
        defer { ads.stop(); server.stop() }
        let store = try StoreFixture.store(root.appendingPathComponent("store")) { $0.contents = ["p": server.url("/o.mpd")] }
        let content = try await store.content("p")
        #expect(content.protectedCMAF?.audio?.language == "eng" && content.protectedCMAF?.languages?.map(\.language) == ["fra"]
                && content.protectedCMAF?.languages?.first?.initialization.contains("/audio-1/") == true, "\(content.notes)")
        let running = try RunningService(media: store, adsTemplate: ads.url("/vmap")) { c in c.contents = [ContentSource(name: "p", source: "origin")] }
        let text = try await Self.readyMPD(running)
        let content0 = try #require(text.components(separatedBy: "<Period ").dropFirst().first)
        #expect(content0.contains(#"lang="eng""#) && content0.contains(#"lang="fra""#) && content0.contains("/audio-1/"), "\(content0.prefix(600))")
        let file = root.appendingPathComponent("session.mpd")
        try Data(text.utf8).write(to: file)
        #expect(try await offPool { try DASHSchema.problems(file) } == [])
    }

    /// What the import refuses of a protected origin, in one line each, and what it leaves out.
    @Test func hostileOrUnreadableProtectionIsRefusedInOneLine() throws {
        func mpd(_ protection: String) -> String {
            """
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" xmlns:cenc="urn:mpeg:cenc:2013" type="static" mediaPresentationDuration="PT4S"><Period>
            <AdaptationSet contentType="video">\(protection)<SegmentTemplate timescale="90000" media="v$Number$.m4s" initialization="v.mp4" duration="180000"/>
            <Representation id="v" bandwidth="1000" width="320" height="180" codecs="avc1.64000d"/></AdaptationSet></Period></MPD>
            """
        }
        let cases = [
            ("<ContentProtection schemeIdUri=\"http://example.com/drm\"/>", "scheme"),
            ("<ContentProtection schemeIdUri=\"urn:mpeg:dash:mp4protection:2011\" value=\"cbcs\" cenc:default_KID=\"not-a-uuid\"/>", "default_KID"),
            ("<ContentProtection schemeIdUri=\"urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e\"><laurl>javascript:alert(1)</laurl></ContentProtection>", "licence URL"),
            ("<ContentProtection schemeIdUri=\"urn:uuid:e2719d58-a985-b3c9-781a-b030af78d30e\"><cenc:pssh>\(String(repeating: "A", count: 9000))</cenc:pssh></ContentProtection>", "pssh"),
            ("<ContentProtection schemeIdUri=\"urn:mpeg:dash:mp4protection:2011\" value=\"a&quot;b\"/>", "value"),
            (String(repeating: "<ContentProtection schemeIdUri=\"urn:mpeg:dash:mp4protection:2011\"/>", count: 9), "more than 8"),
        ]
        for (protection, why) in cases {
            #expect { try DASHImport.periods(mpd(protection)) } throws: { "\($0)".contains(why) && !"\($0)".contains("\n") }
        }
        let ok = try DASHImport.periods(mpd("<ContentProtection schemeIdUri=\"urn:mpeg:dash:mp4protection:2011\" value=\"cenc\" cenc:default_KID=\"\(Self.kidUUID.uppercased())\"/>"))
        #expect(ok.periods[0].video[0].protection == [DASH.ContentProtection(schemeIdUri: "urn:mpeg:dash:mp4protection:2011", value: "cenc", defaultKID: Self.kidUUID)])
        #expect(ProtectedCMAFImport.isProtected(ok.periods))
    }
}
