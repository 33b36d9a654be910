import Foundation
import Timing

extension MediaStore {
    /// Not implemented yet in this increment.
    public func slate(rendition: String, duration: MediaTime) async throws -> [StoredSegment] {
        throw StoreError.unsupported("slate is not implemented yet")
    }
}
