import Foundation
import Media
import Testing
import TestSupport

/// Issue 13, item 1: ad media is opened with a container and protocol whitelist, so a playlist or
/// list of files cannot make FFmpeg read a local file; user content keeps FFmpeg's defaults.
@Suite struct AdMediaOpenPolicyTests {
    func write(_ text: String, _ name: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-policy-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let url = dir.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    /// An HLS playlist whose one segment is a local file, named as a file:// URL or as a plain path.
    func playlists() throws -> [String] {
        let local = TestMedia.Sample.adRotated.url.path
        return try [("file://" + local, "a.m3u8"), (local, "b.m3u8")].map { segment, name in
            try write("#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:5\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:4.0,\n\(segment)\n#EXT-X-ENDLIST\n", name)
        }
    }

    @Test func aPlaylistNamingALocalFileIsRefusedAsAdMedia() throws {
        for playlist in try playlists() {
            // The same file opened as user content does reach the local file (FFmpeg's defaults):
            // the refusal below is the whitelist's doing, not a broken playlist.
            let trusted = try Demuxer(url: playlist)
            #expect(trusted.formatName == "hls")
            #expect(trusted.bestStream(.video) != nil)
            #expect(throws: MediaError.self) { _ = try Demuxer(url: playlist, policy: .adMedia) }
            do { _ = try Demuxer(url: playlist, policy: .adMedia) } catch {
                #expect("\(error)".contains("not an allowed ad container"), "\(error)")
            }
        }
    }

    @Test func concatListsAndPicturesAreRefusedAsAdMedia() throws {
        let concat = try write("ffconcat version 1.0\nfile '\(TestMedia.Sample.adRotated.url.path)'\n", "list.ffconcat")
        #expect(throws: MediaError.self) { _ = try Demuxer(url: concat, policy: .adMedia) }
        let png = try TestMedia.derived(from: TestMedia.Sample.adMatching.url, name: "policy-frame.png", arguments: ["-frames:v", "1"])
        #expect((try? Demuxer(url: png.path)) != nil, "FFmpeg opens a PNG as a one-frame video")
        #expect(throws: MediaError.self) { _ = try Demuxer(url: png.path, policy: .adMedia) }
    }

    @Test func realAdContainersStillOpen() throws {
        let mp4 = TestMedia.Sample.adMatching.url
        let ts = try TestMedia.derived(from: mp4, name: "policy-ad.ts", arguments: ["-c", "copy"])
        let mkv = try TestMedia.derived(from: mp4, name: "policy-ad.mkv", arguments: ["-c", "copy"])
        let avi = try TestMedia.derived(from: mp4, name: "policy-ad.avi", arguments: ["-c:v", "mpeg4", "-c:a", "mp3", "-q:v", "10"])
        for url in [mp4, ts, mkv, avi] {
            let d = try Demuxer(url: url.path, policy: .adMedia)
            #expect(d.bestStream(.video) != nil, "\(url.lastPathComponent)")
        }
        #expect(throws: MediaError.self) { _ = try Demuxer(url: "http://127.0.0.1:9/ad.mp4", policy: .adMedia) }
    }
}

/// A finding of `make fuzz`'s media target: a 3 KB MP4 whose sample table makes FFmpeg's MOV
/// demuxer allocate 2.7 GB while opening it. With `MemoryLimit` the open fails with ENOMEM.
@Suite struct MemoryLimitTests {
    @Test func aFileDeclaringAHugeIndexFailsToOpenInsteadOfTakingGigabytes() throws {
        let file = TestMedia.packageRoot.appendingPathComponent("Fuzz/regressions/oom-mov-sample-table.mp4").path
        #expect(FileManager.default.fileExists(atPath: file))
        do {
            _ = try Demuxer(url: file, policy: .adMedia)
            Issue.record("opened: the allocation cap did not hold")
        } catch let MediaError.ffmpeg(_, code, _) {
            #expect(code == -12, "ENOMEM, got \(code)")
        }
        // Ordinary media is unaffected.
        #expect(try Demuxer(url: TestMedia.Sample.content.url.path).bestStream(.video) != nil)
    }
}
