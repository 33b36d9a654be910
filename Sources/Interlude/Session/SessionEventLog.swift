import Foundation
import Threads
import Timing

/// Writes a session's events as JSON lines the moment they happen (`--events FILE|-`): ad events,
/// content pause/resume requests, the viewer's actions, clicks opened, the end.
///
/// Each line is one object with `event`, `streamTime` and `contentTime` (seconds), and, per kind,
/// `adId`, `adPosition`, `totalAds`, `breakTime`, `do`, `to`, `url`, `code`, `message`. In real time
/// it also has `wallTime` (seconds since the session started); as fast as possible it has none,
/// so the same script gives the same lines.
package final class SessionEventLog: Sendable {
    private let handle: FileHandle?
    private let start = Date()
    private let withWallTime: Bool
    /// The lines written so far; its lock also serialises the writes to `handle`.
    private let lines = Locked<[String]>([])

    /// A log writing to `handle` (nil: kept in memory only); `wallTime` adds the wall-clock field.
    public init(handle: FileHandle?, wallTime: Bool) {
        self.handle = handle
        withWallTime = wallTime
    }

    /// Every line written so far.
    public var written: [String] { lines.withLock { $0 } }

    /// Writes one event line.
    public func write(_ event: String, streamTime: MediaTime, contentTime: MediaTime, _ fields: [String: Any] = [:]) {
        var object: [String: Any] = fields
        object["event"] = event
        object["streamTime"] = (streamTime.seconds * 1_000_000).rounded() / 1_000_000
        object["contentTime"] = (contentTime.seconds * 1_000_000).rounded() / 1_000_000
        if withWallTime { object["wallTime"] = (Date().timeIntervalSince(start) * 1000).rounded() / 1000 }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]),
              let line = String(data: data, encoding: .utf8) else { return }
        lines.withLock { lines in
            lines.append(line)
            handle?.write(Data((line + "\n").utf8))
        }
    }
}
