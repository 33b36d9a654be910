import Foundation

/// A value handed to a worker thread while its owner waits (the owner never touches it meanwhile).
final class HandedOver<T>: @unchecked Sendable {
    // @unchecked Sendable: used by one thread at a time; the hand-over (thread start, the awaited
    // continuation) orders the accesses.
    let value: T
    init(_ value: T) { self.value = value }
}
