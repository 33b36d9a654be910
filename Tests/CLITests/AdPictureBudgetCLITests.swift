import Foundation
import Testing
import TestSupport

/// `interlude stitch` with an ad whose picture is over the ad picture budget: the ad is refused
/// with VAST 403 before it is decoded, the content is written whole, and the process stays near
/// the size of a stitch without it (an 8192×8192 ad took 480 MB with 2 frames, 822 MB with 50).
@Suite struct AdPictureBudgetCLITests {
    @Test(arguments: [OversizedAd.h264, .mjpeg, .h264LyingHeader, .mjpegLyingHeader])
    func aStitchWithAnOversizedAdRefusesItAndStaysSmall(_ file: OversizedAd) async throws {
        let dir = CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.mp4")
        let big = try file.url.path
        // /usr/bin/time reports its child's own peak (Debian package `time`, in `make setup`)
        let r = try await CLI.run(["-f", "peak-rss-kb %M", CLI.binary.path, "stitch", TestMedia.Sample.content.url.path,
                                   "-o", out.path, "--ad-break", "10=\(big)", "--transcode-cache", "off"],
                                  executable: URL(fileURLWithPath: "/usr/bin/time"))
        #expect(r.status == 0, "\(r.stderr)")
        let summary = String(decoding: r.stdout, as: UTF8.self)
        #expect(summary.contains("error 403: ad media refused:") && summary.contains("over the ad picture budget"), "\(summary)")
        let kb = try #require(r.stderr.split(separator: "\n").last { $0.hasPrefix("peak-rss-kb ") }
            .flatMap { Int($0.dropFirst("peak-rss-kb ".count)) })
        print("AdPictureBudgetCLITests: \(file.rawValue): peak RSS \(kb / 1024) MB")
        #expect(kb < 300 * 1024, "peak RSS \(kb / 1024) MB")
        let frames = try await MediaVerifier.videoFrames(out)
        #expect(frames.count == 1200)
        #expect(MediaVerifier.segments(frames).map(\.sourceID) == [1])
    }
}
