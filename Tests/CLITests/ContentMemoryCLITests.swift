import Foundation
import Testing
import TestSupport

/// `interlude stitch` with content far larger than an output is allowed to be: 8192×8192 is
/// decoded (within the content picture budget, its decoder's threads capped) and written
/// downscaled to 3072×3072, the output picture budget, with a warning; peak memory stays under
/// the bound. Before, the same stitch encoded at 8192×8192 and peaked at 4.4 GB (10.9 s); a
/// 1-second 8192×8192 file with a 4 s ad at 7.8 GB. Content over the content budget, and a
/// `--size` over the output budget, are refused in one line.
@Suite struct ContentMemoryCLITests {
    /// 8192×8192 H.264 (a flat picture, so it is made in seconds), 30 fps, 0.4 s, with AAC.
    static func hugeContent() async throws -> URL {
        try await TestMedia.generated("content-8192x8192-0.4s.mp4", arguments: [
            "-f", "lavfi", "-i", "color=c=0x808080:s=8192x8192:r=30:d=0.4,format=yuv420p", "-f", "lavfi", "-i", "sine=r=48000:d=0.4",
            "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-c:a", "aac", "-shortest"])
    }

    @Test func anOversizedContentIsWrittenAtTheOutputBudgetUnderTheMemoryBound() async throws {
        let dir = CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.mp4")
        let ad = try await TestMedia.clip(sourceID: 2, width: 320, height: 240, seconds: 0.5)
        // /usr/bin/time reports its child's own peak (Debian package `time`, in `make setup`)
        let r = try await CLI.run(["-f", "peak-rss-kb %M", CLI.binary.path, "stitch", try await Self.hugeContent().path,
                                   "-o", out.path, "--ad-break", "0.2=\(ad.path)", "--transcode-cache", "off"],
                                  executable: URL(fileURLWithPath: "/usr/bin/time"))
        #expect(r.status == 0, "\(r.stderr)")
        let summary = String(decoding: r.stdout, as: UTF8.self)
        #expect(summary.contains("warning: content is 8192x8192, over the output picture budget")
                && summary.contains("written downscaled to 3072x3072"), "\(summary)")
        let kb = try #require(r.stderr.split(separator: "\n").last { $0.hasPrefix("peak-rss-kb ") }
            .flatMap { Int($0.dropFirst("peak-rss-kb ".count)) })
        print("ContentMemoryCLITests: 8192x8192 content stitched at 3072x3072: peak RSS \(kb / 1024) MB in \(String(format: "%.1f", r.seconds)) s")
        #expect(kb < 2560 * 1024, "peak RSS \(kb / 1024) MB")
        let probe = try await MediaVerifier.probe(out)
        #expect(probe.video?.width == 3072 && probe.video?.height == 3072, "\(probe.streams)")
        // 0.4 s of content and 0.5 s of ad at 30 fps
        #expect(probe.video?.frameCount == 27 || probe.duration.map { abs($0 - 0.9) < 0.05 } == true, "\(probe.streams)")
        #expect(try await MediaVerifier.ffmpegErrors(out) == "")
    }

    @Test func aSizeOverTheOutputBudgetIsRefusedInOneLine() async throws {
        let dir = CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.mp4")
        let r = try await CLI.run(["stitch", try await Self.hugeContent().path, "-o", out.path, "--size", "4096x4096"])
        #expect(r.status == 1)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("output size is 4096x4096, over the output picture budget"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    /// A picture wider than 16384 (raw video in NUT, so the file is small) is over the content
    /// budget: refused when it is opened, before a frame is decoded.
    @Test func contentOverTheContentBudgetIsRefusedInOneLine() async throws {
        let dir = CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let wide = try await TestMedia.generated("content-16400x16.nut", arguments: [
            "-f", "lavfi", "-i", "color=c=gray:s=16400x16:r=30:d=0.2", "-c:v", "rawvideo", "-pix_fmt", "gray", "-f", "nut"])
        let out = dir.appendingPathComponent("out.mp4")
        let r = try await CLI.run(["stitch", wide.path, "-o", out.path])
        #expect(r.status == 1)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("the video picture is 16400x16, over the content picture budget"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }
}
