import Foundation
import Testing
import TestSupport

/// `interlude stitch --ad-break TIME=AD@doublebox…`: the break overlaps content in the output and
/// the report says its mode; malformed modes exit 2 with one line and write nothing.
@Suite struct DoubleBoxCLITests {
    @Test func aDoubleBoxBreakOverlapsContentAndTheReportSaysSo() async throws {
        let content = try TestMedia.clip(sourceID: 1, width: 320, height: 180, fps: 30, seconds: 3)
        let ad = try TestMedia.clip(sourceID: 5, width: 320, height: 180, fps: 30, seconds: 1)
        let dir = CLI.tempDir()
        let out = dir.appendingPathComponent("box.nut"), report = dir.appendingPathComponent("box.json")
        let r = try await CLI.run(["stitch", content.path, "-o", out.path, "--ad-break", "0.5=\(ad.path)@doublebox-reverse:-9dB",
                                   "--report", report.path, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let frames = try MediaVerifier.videoFrames(out, reader: IdentityReader(candidates: [PixelRect(x: 0, y: 0, width: 320, height: 180)]))
        #expect(frames.map { $0.identity?.frameIndex ?? -1 } == Array(0..<90), "content full size throughout, frames once and in order")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        let b = try #require((json["breaks"] as? [[String: Any]])?.first)
        #expect(b["mode"] as? String == "doublebox-reverse" && b["contentGainDB"] as? Double == -9)
        #expect(b["streamTime"] as? Double == 0.5 && b["duration"] as? Double == 1 && b["contentTime"] as? Double == 0.5)
        #expect((json["contentSegments"] as? [Any])?.count == 1, "content is one segment under the break")
    }

    @Test(arguments: [
        ("0.5=a.mp4@doublebox:+3dB", "dB from -60 to 0"),
        ("0.5=a.mp4@doublebox-sideways", "doublebox or doublebox-reverse"),
        ("end=a.mp4@doublebox", "cannot be at the end"),
        ("0.5=tag.xml@doublebox", "media files, not VAST tags"),
    ])
    func badModesExitTwoWithOneLine(value: String, message: String) async throws {
        let dir = CLI.tempDir()
        let out = dir.appendingPathComponent("x.nut")
        let r = try await CLI.run(["stitch", "c.mp4", "-o", out.path, "--ad-break", value])
        #expect(r.status == 2)
        #expect(r.stderr.contains(message) && r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }
}
