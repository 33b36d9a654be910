import Foundation

/// One JSON object per line, to stderr (or a closure, in tests): every request and event.
public struct ServeLog: Sendable {
    private let write: @Sendable (String) -> Void

    /// Lines to stderr.
    public static let standardError = ServeLog { line in
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Lines to `write`.
    public init(_ write: @escaping @Sendable (String) -> Void) { self.write = write }

    /// Logs `event` with `fields` (strings, numbers, booleans, arrays of them).
    public func event(_ event: String, _ fields: [String: Any] = [:]) {
        var object = fields
        object["event"] = event
        object["time"] = ISO8601DateFormatter.string(from: Date(), timeZone: TimeZone(identifier: "UTC")!,
                                                     formatOptions: [.withInternetDateTime, .withFractionalSeconds])
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]),
              let line = String(data: data, encoding: .utf8) else { return }
        write(line)
    }
}
