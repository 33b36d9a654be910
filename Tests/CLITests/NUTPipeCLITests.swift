import Foundation
import Testing
import TestSupport

/// A NUT frame stream on standard output carries no index: FFmpeg's muxer would keep a syncpoint
/// and an index entry per keyframe (every raw video frame) in memory until the trailer, 10 MB an
/// hour at 25 fps, for a reader that cannot seek back to it (a one-hour soak to a pipe grew from 86
/// to 135 MB RSS with it, 34 MB flat of anonymous memory without). A NUT file keeps its index.
@Suite struct NUTPipeCLITests {
    /// INDEX_STARTCODE: 0xDD672F23E64E + ('N' << 8 | 'X') << 48, big-endian.
    static let indexStartcode = Data([0x4E, 0x58, 0xDD, 0x67, 0x2F, 0x23, 0xE6, 0x4E])

    @Test func aNUTStreamOnAPipeHasNoIndexAndAFileHasOne() async throws {
        let content = try await TestMedia.clip(sourceID: 1, width: 160, height: 90, fps: 25, seconds: 20).path
        let ad = TestMedia.Sample.adMismatched.url.path
        let dir = CLI.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try await CLI.run(["stitch", content, "-o", "-", "--format", "nut", "--ad-break", "8=\(ad)", "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.range(of: Self.indexStartcode) == nil, "the piped NUT stream carries an index")
        // what a reader of the pipe sees: every frame, nothing at -v error
        let streamed = dir.appendingPathComponent("streamed.nut")
        try r.stdout.write(to: streamed)
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: try Tools.ffmpegPath())
        reader.arguments = ["-nostdin", "-hide_banner", "-v", "error", "-f", "nut", "-i", "pipe:0", "-f", "framecrc", "-"]
        reader.standardInput = try FileHandle(forReadingFrom: streamed)
        let out = Pipe(), err = Pipe()
        reader.standardOutput = out
        reader.standardError = err
        try reader.run()
        let crcs = out.fileHandleForReading.readDataToEndOfFile()
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        reader.waitUntilExit()
        #expect(reader.terminationStatus == 0 && errors.isEmpty, "\(errors)")
        let frames = String(decoding: crcs, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("0,") }
        #expect(frames.count == 500 + 125)

        let file = dir.appendingPathComponent("out.nut")
        let f = try await CLI.run(["stitch", content, "-o", file.path, "--format", "nut", "--ad-break", "8=\(ad)", "-q"])
        #expect(f.status == 0, "\(f.stderr)")
        #expect(try Data(contentsOf: file).range(of: Self.indexStartcode) != nil, "a NUT file keeps its index")
    }
}
