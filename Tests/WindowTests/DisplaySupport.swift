import Foundation
import TestSupport

// The Xvfb helpers (VirtualDisplay, Child, runTool, eventually, Screenshot, XTools) live in
// TestSupport/VirtualDisplay.swift, shared with the CLI's window test.

/// Values delivered on another thread, collected in order.
final class Collected<T: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: `items` is read and written only while holding `lock`.
    private let lock = NSLock()
    private var items: [T] = []
    func append(_ item: T) { lock.lock(); items.append(item); lock.unlock() }
    var all: [T] { lock.lock(); defer { lock.unlock() }; return items }
}
