import Foundation

/// Holds the app's input handler, set from any thread and called on the window thread.
final class InputRelay: @unchecked Sendable {
    // @unchecked Sendable: `handler` is read and written only while holding `lock`.
    private let lock = NSLock()
    private var handler: (@Sendable (WindowInput) -> Void)?

    /// The handler, or nil to ignore input.
    var onInput: (@Sendable (WindowInput) -> Void)? {
        get { lock.lock(); defer { lock.unlock() }; return handler }
        set { lock.lock(); defer { lock.unlock() }; handler = newValue }
    }

    /// Calls the handler (outside the lock, so it may set a new handler or finish the window).
    func deliver(_ input: WindowInput) {
        onInput?(input)
    }
}
