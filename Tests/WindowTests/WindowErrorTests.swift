import Foundation
import Testing
import TestSupport
@testable import Window
#if canImport(Glibc)
import Glibc
#endif

extension WindowTests {
    @Test("with no display, opening a window throws one clear line instead of crashing")
    func noDisplayIsAClearError() async throws {
        let message = try await offPool { () -> String? in
            let names: [String] = ["DISPLAY", "WAYLAND_DISPLAY"]
            let saved: [(String, String?)] = names.map { name in (name, getenv(name).map { String(cString: $0) }) }
            for (name, _) in saved { unsetenv(name) }
            defer { for (name, value) in saved { if let value { setenv(name, value, 1) } } }
            do {
                let window = try WindowOutput(format: Self.format, title: "interlude-window-test-nodisplay")
                try window.finish()
                return nil
            } catch let error as WindowError {
                guard case .noDisplay = error else { return "unexpected: \(error)" }
                return error.description
            }
        }
        let line = try #require(message)
        #expect(line.hasPrefix("cannot open a window: no display (set DISPLAY or run under Xvfb)"))
        #expect(!line.contains("\n"))
    }
}
