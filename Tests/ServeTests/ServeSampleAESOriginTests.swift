import Foundation
import Manifest
import Media
@testable import Serve
import TestSupport
import Testing
import Timing

/// Issue 34, item 6: an MPEG-TS origin under Apple's sample encryption (`METHOD=SAMPLE-AES`, what
/// FairPlay and clear-key SAMPLE-AES packagers publish) is served, not refused. The service never
/// holds its key: the segments' PES and NAL unit headers are clear, so the store counts each
/// segment's pictures, reads its first PTS and checks it starts with an IDR from the bytes as
/// they came, keeps them as they are (`.aes.ts`), and passes the key on to players — its URI made
/// absolute, its implied IV (the media sequence number) made explicit since a session numbers
/// segments its own way, `KEYFORMAT` and `KEYFORMATVERSIONS` as they came. Breaks go in at
/// segment boundaries, the ad is clear with `METHOD=NONE` before it and the key again after it.
@Suite(.serialized) struct ServeSampleAESOriginTests {
    static let key: [UInt8] = (0..<16).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 3) }

    /// The IV a segment without `IV` has: its media sequence number (the playlists start at 0).
    static func iv(_ n: Int) -> [UInt8] { [UInt8](repeating: 0, count: 15) + [UInt8(n)] }

    /// `ServeStoreHLSSourceTests`'s two-variant origin, every segment sample-encrypted with `key`
    /// and its implied IV, each media playlist's segments under `keyTag`; the clear segments too.
    static func origin(in folder: URL, keyTag: String) throws -> (files: [String: (Data, String)], clear: [String: Data]) {
        var files = try ServeStoreHLSSourceTests.origin(in: folder)
        var clear: [String: Data] = [:]
        for (path, (data, type)) in files {
            if path.hasSuffix(".ts"), let n = Int(path.dropFirst(2).dropLast(3)) {
                clear[path] = data
                files[path] = (try SampleAESTSEncryptor.encrypt(data, key: key, iv: iv(n)), type)
            } else if path.hasSuffix(".m3u8"), path != "/master.m3u8" {
                var lines = String(decoding: data, as: UTF8.self).components(separatedBy: "\n")
                let first = try #require(lines.firstIndex { $0.hasPrefix("#EXTINF") })
                lines.insert(keyTag, at: first)
                files[path] = (Data(lines.joined(separator: "\n").utf8), type)
            }
        }
        files["/key.bin"] = (Data(key), "application/octet-stream")
        return (files, clear)
    }

    @Test func aSampleAESOriginIsServedAsItCameWithItsKeyPassedOn() async throws {
        let root = StoreFixture.folder("saes")
        defer { try? FileManager.default.removeItem(at: root) }
        let (files, clear) = try Self.origin(in: root.appendingPathComponent("origin"), keyTag: "#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"key.bin\"")
        let origin = try HTTPTestServer()
        origin.serve(files)
        let ads = try midrollAdServer()
        defer { ads.stop(); origin.stop() }
        let store = try StoreFixture.store(root.appendingPathComponent("store")) { $0.contents = ["s": origin.url("/master.m3u8")] }
        let content = try await store.content("s")
        #expect(content.encrypted && content.duration == MediaTime(seconds: 4) && content.renditions.map(\.rendition.name) == ["180p", "90p"])
        #expect(content.renditions.map { [$0.rendition.width, $0.rendition.height] } == [[320, 180], [160, 90]]
                && content.renditions.allSatisfy { $0.codecs.hasPrefix("avc1.64") }, "read from the clear SPS")
        let running = try RunningService(media: store, adsTemplate: ads.url("/vmap")) { c in c.contents = [ContentSource(name: "s", source: "origin")] }

        let (id, video) = try await readySession(running, content: "s")
        let lines = video.split(separator: "\n").map(String.init)
        let keyURI = origin.url("/key.bin")
        #expect(lines.filter { $0.hasPrefix("#EXT-X-KEY:") } == ["#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"\(keyURI)\",IV=0x00000000000000000000000000000000",
                                                                "#EXT-X-KEY:METHOD=NONE",
                                                                "#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"\(keyURI)\",IV=0x00000000000000000000000000000001"],
                "the key before each content segment, its IV explicit; none before the ad")
        let uris = ServeEndToEndTests.segmentURLs(video)
        let kept = uris.filter { $0.hasSuffix(".aes.ts") }
        #expect(kept.count == 2 && uris.first == kept.first && uris.last == kept.last, "whole segments, the break between: \(uris.count) segments")
        for (i, u) in kept.enumerated() {
            #expect(try await curl(running.url(u)).body == files["/a\(i).ts"]!.0, "the origin's encrypted bytes")
        }
        #expect(try await curl(running.url(kept[0] + "?o=900")).status == 400)
        #expect(try await curl(running.url("/v1/sessions/\(id)/master.m3u8?segments=cmaf")).status == 409)
        #expect(try await curl(running.url("/v1/sessions/\(id)/index.mpd")).status == 409)
        // the marks at the content's own PTS where it resumes (its clear PES headers)
        let resumePTS = try HLSPackageCheck.firstVideoFramePTS(root.appendingPathComponent("origin/a1.ts"))
        for name in ["SCTE35-OUT", "SCTE35-IN"] {
            let line = try #require(lines.first { $0.hasPrefix("#EXT-X-DATERANGE:") && $0.contains(name + "=") })
            let hex = try #require(line.split(separator: ",").first { $0.hasPrefix(name + "=") }).dropFirst(name.count + 1)
            #expect(try SCTE35Reading.decode(String(hex)).splicePTS == resumePTS, "\(name) at the content's PTS where it resumes")
        }
        #expect(clear["/a1.ts"] != files["/a1.ts"]!.0)

        // decrypted by FFmpeg's HLS reader through the session: every picture in its place, but
        // those FFmpeg 5.1 takes out after their segment was left, at most the last two before
        // each key change and the end (`SampleAESTSEncryptorTests`): its H.264 parser holds each
        // picture until the next one begins, and the reader decrypts a packet with the key of
        // the segment it is in then
        let out = root.appendingPathComponent("s.ts")
        let dl = try await runOffPool(try Tools.ffmpegPath(), ["-nostdin", "-v", "error", "-i", running.url("/v1/sessions/\(id)/180p.m3u8"), "-c", "copy", "-y", out.path])
        #expect(dl.status == 0, "\(dl.stderr.prefix(300))")
        let ids = try await offPool {
            try MediaVerifier.videoFrames(out, reader: IdentityReader(output: PixelSize(width: 320, height: 180), sources: [PixelSize(width: 240, height: 180)])).map(\.identity)
        }
        let want = (0..<60).map { FrameIdentity(sourceID: 3, frameIndex: $0) } + (0..<60).map { FrameIdentity(sourceID: 7, frameIndex: $0) }
            + (60..<120).map { FrameIdentity(sourceID: 3, frameIndex: $0) }
        let wrong = want.indices.filter { $0 >= ids.count || ids[$0] != want[$0] }
        // (two: the ad's segments, as the ffmpeg CLI's muxer writes them, leave their PES
        // unbounded, so its demuxer holds a picture more)
        let beforeKeyChange: Set<Int> = [58, 59, 118, 119, 178, 179]
        #expect(ids.count == want.count && wrong.allSatisfy(beforeKeyChange.contains),
                "\(ids.count) pictures; not in place: \(wrong)")
    }

    /// A FairPlay origin's key (an `skd:` URI, Apple's key format) is passed on as it came, its IV
    /// made explicit (FairPlay needs a player with Apple's CDM: nothing here plays it); keys the
    /// service would not send a player are refused in one line.
    @Test func aFairPlayKeyIsPassedOnAndHostileKeysAreRefused() async throws {
        let root = StoreFixture.folder("saes-fps")
        defer { try? FileManager.default.removeItem(at: root) }
        let tag = "#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"skd://key42\",KEYFORMAT=\"com.apple.streamingkeydelivery\",KEYFORMATVERSIONS=\"1\""
        let (files, _) = try Self.origin(in: root.appendingPathComponent("origin"), keyTag: tag)
        let origin = try HTTPTestServer()
        origin.serve(files)
        let ads = try midrollAdServer()
        defer { ads.stop(); origin.stop() }
        let store = try StoreFixture.store(root.appendingPathComponent("store")) { $0.contents = ["f": origin.url("/master.m3u8")] }
        #expect(try await store.content("f").encrypted)
        let running = try RunningService(media: store, adsTemplate: ads.url("/vmap")) { c in c.contents = [ContentSource(name: "f", source: "origin")] }
        let (_, video) = try await readySession(running, content: "f")
        let fairPlay = "#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"skd://key42\",IV=0x0000000000000000000000000000000%d,KEYFORMAT=\"com.apple.streamingkeydelivery\",KEYFORMATVERSIONS=\"1\""
        #expect(video.split(separator: "\n").map(String.init).filter { $0.hasPrefix("#EXT-X-KEY:") } == [String(format: fairPlay, 0), "#EXT-X-KEY:METHOD=NONE", String(format: fairPlay, 1)])
        #expect(video.contains("#EXT-X-VERSION:5"), "KEYFORMAT needs version 5")

        func media(_ key: String) -> String { "#EXTM3U\n#EXT-X-TARGETDURATION:2\n\(key)\n#EXTINF:2.0,\na.ts\n#EXT-X-ENDLIST\n" }
        let hostile = ["#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"file:///etc/passwd\"",
                       "#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"skd://k\"",   // identity needs http(s)
                       "#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"data:text/plain;base64,AAAA\"",
                       "#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"javascript:x\",KEYFORMAT=\"com.apple.streamingkeydelivery\"",
                       "#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"skd://\(String(repeating: "k", count: 3000))\",KEYFORMAT=\"com.apple.streamingkeydelivery\"",
                       "#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"skd://k\",KEYFORMAT=\"com.apple.streamingkeydelivery\",KEYFORMATVERSIONS=\"1;rm\""]
        for key in hostile {
            let p = try HLSPlaylistText.media(media(key))
            let k = try #require(p.keys.first ?? nil)
            #expect(throws: StoreError.self, "\(key.prefix(80))") { try HLSImport.passedOn(k, at: .remote(URL(string: "http://o.example/x/a.m3u8")!)) }
            do { _ = try HLSImport.passedOn(k, at: .remote(URL(string: "http://o.example/x/a.m3u8")!)) } catch {
                #expect(!"\(error)".contains("\n") && "\(error)".contains("SAMPLE-AES key"))
            }
        }
        #expect(throws: StoreError.self) { try HLSPlaylistText.media(media("#EXT-X-KEY:METHOD=SAMPLE-AES")) }
        // a relative identity key is made absolute against its playlist; the implied IV explicit
        let p = try HLSPlaylistText.media(media("#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"../k.bin\""))
        let k = try HLSImport.passedOn(try #require(p.keys.first ?? nil), at: .remote(URL(string: "http://o.example/x/a.m3u8")!))
        #expect(k.uri == "http://o.example/k.bin" && k.iv == [UInt8](repeating: 0, count: 16))
        // a record planted in the store with another scheme is not well formed
        var planted = SegmentEncryption(key: k, firstPTS: 0)
        #expect(planted.isWellFormed)
        planted.key?.uri = "file:///etc/passwd"
        #expect(!planted.isWellFormed)
    }

    /// A SAMPLE-AES origin whose segments the store cannot read refuses the content in one line,
    /// and nothing of it is kept: a segment that is not MPEG-TS; a first segment whose SPS is
    /// not where a player needs it (its NAL unit type overwritten: no picture size to read).
    @Test func unreadableSampleAESSegmentsAreRefusedInOneLine() async throws {
        let root = StoreFixture.folder("saes-hostile")
        defer { try? FileManager.default.removeItem(at: root) }
        let (files, _) = try Self.origin(in: root.appendingPathComponent("origin"), keyTag: "#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"key.bin\"")
        var noSPS = [UInt8](files["/a0.ts"]!.0)
        // the first SPS start code's NAL unit made filler data (type 12)
        let at = try #require(noSPS.indices.dropLast(4).first { noSPS[$0] == 0 && noSPS[$0 + 1] == 0 && noSPS[$0 + 2] == 1 && noSPS[$0 + 3] & 0x1F == 7 })
        noSPS[at + 3] = noSPS[at + 3] & 0xE0 | 12
        let cases: [(String, Data, String)] = [("not-ts", Data(repeating: 0x5A, count: 188 * 40), "is not MPEG-TS"),
                                               ("no-sps", Data(noSPS), "no clear SPS")]
        for (name, segment, why) in cases {
            let server = try HTTPTestServer()
            defer { server.stop() }
            var served = files
            served["/a0.ts"] = (segment, "video/mp2t")
            server.serve(served)
            try await StoreFixture.expectRefusedInOneLine(server.url("/master.m3u8"), name: name, under: root, why: why)
        }
    }
}
