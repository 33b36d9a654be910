import Foundation
import Testing
import TestSupport
import Timing

/// `--encoder-threads N`: libx264's output depends on its thread count, which by default it takes
/// from the CPUs it may use, so the same stitch gives other bytes on another machine. A fixed
/// count must give the same bytes whatever the CPUs, smart-rendered and fully re-encoded.
@Suite struct EncoderThreadsCLITests {
    static let twoCPUs = allowedCPUCount() >= 2 && FileManager.default.isExecutableFile(atPath: "/usr/bin/taskset")

    @Test(.enabled(if: twoCPUs, "needs two CPUs and taskset to run the stitch on one and on two"),
          arguments: ["auto", "off"])
    func aFixedEncoderThreadCountGivesTheSameBytesOnOneOrTwoCPUs(smart: String) async throws {
        let dir = CLI.tempDir()
        func stitch(_ cpus: String, _ name: String) async throws -> Data {
            let out = dir.appendingPathComponent(name)
            let r = try await CLI.run(["-c", cpus, CLI.binary.path, "stitch", TestMedia.Sample.adMatching.url.path,
                                       "-o", out.path, "--ad-break", "3=\(TestMedia.Sample.adMismatched.url.path)",
                                       "--smart", smart, "--encoder-threads", "1", "-q"],
                                      executable: URL(fileURLWithPath: "/usr/bin/taskset"))
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try await MediaVerifier.ffmpegErrors(out) == "")
            return try Data(contentsOf: out)
        }
        let one = try await stitch("0", "one.mp4"), two = try await stitch("0,1", "two.mp4")
        // libx264 records its options in an SEI of the first frame it encodes (smart: the copied
        // content keeps its own, written by the ffmpeg CLI with two threads)
        #expect(one.range(of: Data(" threads=1 ".utf8)) != nil, "libx264 ran on one thread")
        #expect(one.range(of: Data(" threads=3 ".utf8)) == nil, "no encoder here took its threads from the CPUs")
        #expect(one == two, "the same bytes on one CPU and on two")
    }

    @Test func theCountIsChecked() async throws {
        for value in ["65", "-1", "many"] {
            let r = try await CLI.run(["stitch", "c.mp4", "-o", "x.mp4", "--encoder-threads", value])
            #expect(r.status == 2 && r.stderr.contains("--encoder-threads must be 0-64, not '\(value)'"), "\(r.stderr)")
        }
        let play = try await CLI.run(["play", "c.mp4", "--encoder-threads", "x"])
        #expect(play.status == 2 && play.stderr.contains("--encoder-threads must be 0-64"), "\(play.stderr)")
    }
}
