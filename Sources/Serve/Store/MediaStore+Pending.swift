import Foundation
import Timing

/// An ad's progress through the worker pool (stub: filled in with the ad transcodes).
struct AdJob {}

extension MediaStore {
    /// Not implemented yet in this increment.
    public func ad(mediaURL: String, rendition: String) -> AdReadiness {
        .failed(code: 900, reason: "ad transcodes are not implemented yet")
    }
    /// Not implemented yet in this increment.
    public func slate(rendition: String, duration: MediaTime) async throws -> [StoredSegment] {
        throw StoreError.unsupported("slate is not implemented yet")
    }
}
