import Foundation
import Testing
import TestSupport

/// The `--help` texts, `make help` and the documentation agree: every document a help text points
/// to exists, the README names each command the top-level help lists, and each target `make help`
/// lists is documented in the README or docs/.
@Suite struct HelpDocsTests {
    static let commands = ["stitch", "play", "inspect"]

    /// The `docs/NAME.md` paths a text mentions.
    static func documents(in text: String) -> [String] {
        let regex = try! NSRegularExpression(pattern: #"docs/[A-Za-z0-9_-]+\.md"#)
        let range = NSRange(text.startIndex..., in: text)
        return regex.matches(in: text, range: range).compactMap { Range($0.range, in: text).map { String(text[$0]) } }
    }

    @Test func everyDocumentAHelpTextNamesExists() async throws {
        var named: [String] = []
        for command in Self.commands {
            let r = try await CLI.run([command, "--help"])
            #expect(r.status == 0, "\(command) --help")
            let text = String(decoding: r.stdout, as: UTF8.self)
            #expect(!text.contains("README,"), "\(command) --help points to a README section that moved to docs/")
            named += Self.documents(in: text)
        }
        #expect(!named.isEmpty, "the help texts point to their documents")
        for doc in Set(named) {
            let path = TestMedia.packageRoot.appendingPathComponent(doc).path
            #expect(FileManager.default.fileExists(atPath: path), "\(doc), named by a --help text, exists")
        }
    }

    @Test func theReadmeShowsEachCommandOfTheTopLevelHelp() async throws {
        let help = String(decoding: try await CLI.run(["--help"]).stdout, as: UTF8.self)
        let readme = try String(contentsOf: TestMedia.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        for command in Self.commands {
            #expect(help.contains("  \(command) "), "interlude --help lists \(command)")
            #expect(readme.contains("### `interlude \(command)`"), "the README has a section for interlude \(command)")
        }
    }

    @Test func everyTargetOfMakeHelpIsDocumented() throws {
        let root = TestMedia.packageRoot
        let makefile = try String(contentsOf: root.appendingPathComponent("Makefile"), encoding: .utf8)
        let targets = makefile.split(separator: "\n").compactMap { line -> String? in
            guard let r = line.range(of: "@echo \"make ") else { return nil }
            return line[r.upperBound...].split(separator: " ").first.map(String.init)
        }
        #expect(targets.count >= 8, "make help lists its targets: \(targets)")
        let docs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }
            .map { try String(contentsOf: root.appendingPathComponent("docs/\($0)"), encoding: .utf8) }
        let text = try [String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)] + docs
        for target in targets {
            #expect(text.contains { $0.contains("make \(target)") }, "make \(target) is documented")
        }
    }
}
