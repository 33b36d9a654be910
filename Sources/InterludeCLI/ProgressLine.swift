// A progress line with ETA on standard error, redrawn at most four times a second.
import Foundation
import Timing

/// Updated from the stitch's frame loop, cleared from the caller: a lock keeps the two apart.
final class ProgressLine: @unchecked Sendable {
    // @unchecked Sendable: the mutable fields are guarded by `lock`.
    private let lock = NSLock()
    private let enabled: Bool
    private let start = Date()
    private var lastDraw = Date.distantPast
    private var drawn = false

    init(enabled: Bool) { self.enabled = enabled }

    func update(done: MediaTime, total: MediaTime) {
        guard enabled else { return }
        lock.lock(); defer { lock.unlock() }
        let now = Date()
        guard now.timeIntervalSince(lastDraw) >= 0.25 else { return }
        lastDraw = now
        let fraction = total.seconds > 0 ? min(1, done.seconds / total.seconds) : 0
        let elapsed = now.timeIntervalSince(start)
        let eta = fraction > 0.01 ? elapsed / fraction - elapsed : 0
        let line = String(format: "\rstitching %3.0f%%  %@ / %@  %.1fx  ETA %.0fs ", fraction * 100,
                          done.clockString, total.clockString, elapsed > 0 ? done.seconds / elapsed : 0, eta)
        FileHandle.standardError.write(Data(line.utf8))
        drawn = true
    }

    func clear() {
        lock.lock(); defer { lock.unlock() }
        guard drawn else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        drawn = false
    }
}
