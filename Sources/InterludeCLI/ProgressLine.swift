// A progress line with ETA on standard error, redrawn at most four times a second.
import Foundation
import Threads
import Timing

/// Updated from the stitch's frame loop, cleared from the caller: a lock keeps the two apart.
final class ProgressLine: Sendable {
    private let enabled: Bool
    private let start = Date()
    /// When the line was drawn last, and whether it shows; its lock is held while drawing.
    private struct Shown {
        var lastDraw = Date.distantPast
        var drawn = false
    }
    private let shown = Locked(Shown())

    init(enabled: Bool) { self.enabled = enabled }

    func update(done: MediaTime, total: MediaTime) {
        guard enabled else { return }
        shown.withLock { shown in
            let now = Date()
            guard now.timeIntervalSince(shown.lastDraw) >= 0.25 else { return }
            shown.lastDraw = now
            let fraction = total.seconds > 0 ? min(1, done.seconds / total.seconds) : 0
            let elapsed = now.timeIntervalSince(start)
            let eta = fraction > 0.01 ? elapsed / fraction - elapsed : 0
            let line = String(format: "\rstitching %3.0f%%  %@ / %@  %.1fx  ETA %.0fs ", fraction * 100,
                              done.clockString, total.clockString, elapsed > 0 ? done.seconds / elapsed : 0, eta)
            FileHandle.standardError.write(Data(line.utf8))
            shown.drawn = true
        }
    }

    func clear() {
        shown.withLock { shown in
            guard shown.drawn else { return }
            FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
            shown.drawn = false
        }
    }
}
