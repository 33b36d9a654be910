import Foundation

/// A value handed to a worker thread while its owner waits (the owner never touches it meanwhile).
package final class HandedOver<T>: @unchecked Sendable {
    // @unchecked Sendable: used by one thread at a time; the hand-over (thread start, the awaited
    // continuation) orders the accesses.
    package let value: T
    package init(_ value: T) { self.value = value }
}
