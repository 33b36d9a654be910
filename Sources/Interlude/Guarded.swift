import Threads

/// A value any thread may read and write, one access at a time: what backs the properties of the
/// settings, requests and containers an app fills on its thread and the `AdsManager` reads on its
/// own queue.
final class Guarded<Value: Sendable>: Sendable {
    private let storage: Locked<Value>
    init(_ value: Value) { storage = Locked(value) }
    var value: Value {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}
