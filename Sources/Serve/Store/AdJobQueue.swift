import Foundation
import Media
import Timing

/// One ad job as a queue carries it: the media URL and the rung to transcode it into.
public struct AdJobRequest: Sendable, Hashable {
    /// The ad media URL (from an ad server: hostile).
    public var url: String
    /// The rung, whole (a worker has no ladder of its own).
    public var rendition: Rendition
    /// Target segment duration.
    public var segmentTarget: MediaTime
    /// Whether the media may be a local file (a local ad tag's).
    public var allowLocal: Bool

    /// A job.
    public init(url: String, rendition: Rendition, segmentTarget: MediaTime, allowLocal: Bool) {
        self.url = url; self.rendition = rendition; self.segmentTarget = segmentTarget; self.allowLocal = allowLocal
    }

    /// The job's identity across the fleet: hex SHA-256 of `url|rung key` (the rung's size, frame
    /// rate, codec and bit rates: `Rendition.key`).
    public var id: String { (try? ContentHash.sha256(Data("\(url)|\(rendition.key)".utf8))) ?? "" }
}

/// What became of an ad job.
public enum AdJobResult: Sendable, Equatable {
    /// Committed to the shared store under this store-relative folder (`ads/<sha>/<rung>`).
    case stored(prefix: String)
    /// It cannot be had: VAST code and one-line reason.
    case failed(code: Int, reason: String)
}

/// Where a store sends ad transcodes when they are not its own to run (`StoreOptions.jobQueue`):
/// the store then only enqueues, answers `.pending`, and reads the result once a worker has
/// committed it to the shared store folder. Calls block (network): the store makes them off its
/// lock, on a thread of their own.
public protocol AdJobQueue: Sendable {
    /// Enqueues `job` unless it was enqueued already (by any node); returns its result when one is
    /// recorded.
    func submit(_ job: AdJobRequest) throws -> AdJobResult?
    /// The recorded result of `job`, if any.
    func result(_ job: AdJobRequest) throws -> AdJobResult?
    /// Forgets `job`'s result and enqueue record (its stored files are gone), so it can run again.
    func forget(_ job: AdJobRequest) throws
}
