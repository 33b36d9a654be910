import Foundation
import Testing
import TestSupport

/// The `--help` texts and the documentation agree: every document a help text points to exists,
/// and the README names each command the top-level help lists.
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
}
