import Threads

/// A list any thread may append to and read: what a callback on another queue saw, for a test
/// to check afterwards.
public final class Recorded<Element: Sendable>: Sendable {
    private let items = Locked<[Element]>([])
    /// An empty list.
    public init() {}
    /// Appends `item`.
    public func append(_ item: Element) { items.withLock { $0.append(item) } }
    /// Everything appended so far, in order.
    public var all: [Element] { items.withLock { $0 } }
}
