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
        object["time"] = Self.utcNow()
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]),
              let line = String(data: data, encoding: .utf8) else { return }
        write(line)
    }

    /// Logs one answered request: the hot path, written without JSONSerialization (same fields,
    /// keys sorted as `event` writes them).
    public func request(method: String, path: String, status: Int, milliseconds: Double) {
        write("{\"event\":\"request\",\"method\":\(Self.quoted(method)),\"ms\":\((milliseconds * 1000).rounded() / 1000),\"path\":\(Self.quoted(path)),\"status\":\(status),\"time\":\"\(Self.utcNow())\"}")
    }

    /// `s` as a JSON string literal.
    static func quoted(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "/": out += "\\/"
            case _ where u.value < 0x20: out += String(format: "\\u%04x", u.value)
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }

    /// Now as ISO 8601 UTC with milliseconds (`2026-12-01T19:20:50.093Z`), without a formatter object.
    static func utcNow() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var t = now.tv_sec
        var parts = tm()
        gmtime_r(&t, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
                      Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), Int(now.tv_nsec / 1_000_000))
    }
}
