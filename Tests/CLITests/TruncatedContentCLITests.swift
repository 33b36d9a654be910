import Foundation
import Testing
import TestSupport

/// Issue 13, item 5 through the CLI: truncated content exits 1 with one line and writes nothing;
/// `--allow-truncated` stitches it and says so in the report.
@Suite struct TruncatedContentCLITests {
    @Test func truncatedContentNeedsAllowTruncated() async throws {
        let dir = CLI.tempDir()
        let whole = try await Data(contentsOf: TestMedia.clip(sourceID: 1, seconds: 10))
        let content = dir.appendingPathComponent("cut.mp4")
        try whole.prefix(whole.count * 4 / 10).write(to: content)
        let out = dir.appendingPathComponent("o.mp4").path, report = dir.appendingPathComponent("r.json").path
        let base = ["stitch", content.path, "-o", out, "--report", report, "-q", "--preset", "ultrafast"]
        let r = try await CLI.run(base)
        #expect(r.status == 1 && r.stderr.split(separator: "\n").count == 1 && r.stderr.contains("--allow-truncated"), "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["cut.mp4"])
        let ok = try await CLI.run(base + ["--allow-truncated"])
        #expect(ok.status == 0, "\(ok.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as! [String: Any]
        let warnings = json["warnings"] as? [String] ?? []
        #expect(warnings.contains { $0.hasPrefix("content truncated") }, "\(warnings)")
        let duration = (json["content"] as? [String: Any])?["duration"] as? Double ?? 99
        #expect(duration < 9)
    }
}
