import Foundation
import Threads

/// Holds the app's input handler, set from any thread and called on the window thread.
final class InputRelay: Sendable {
    private let handler = Locked<(@Sendable (WindowInput) -> Void)?>(nil)

    /// The handler, or nil to ignore input.
    var onInput: (@Sendable (WindowInput) -> Void)? {
        get { handler.withLock { $0 } }
        set { handler.withLock { $0 = newValue } }
    }

    /// Calls the handler (outside the lock, so it may set a new handler or finish the window).
    func deliver(_ input: WindowInput) {
        onInput?(input)
    }
}
