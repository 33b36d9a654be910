import Foundation
import Timing

/// How a `MediaStore` is set up.
public struct StoreOptions: Sendable {
    /// The store's folder (created 0700; an existing one must be this user's and closed to others).
    public var root: URL
    /// Content name → source: an MP4 path, or an HLS multivariant (or media) playlist, a path or
    /// an http(s) URL (its variants are the ladder; `ladder` applies to MP4 sources).
    public var contents: [String: String]
    /// The ladder (`Ladder.parse`); nil: each content's default ladder (`Ladder.defaults`).
    public var ladder: [Rendition]?
    /// Target segment duration of packaged content and of ads.
    public var segmentTarget: MediaTime = MediaTime(seconds: 6)
    /// Most bytes the store keeps; least recently used units not pinned are removed past it.
    /// Not applied with a `jobQueue` (a folder shared by a fleet: size it outside).
    public var maxBytes: Int64 = 20 << 30
    /// A slate file (MP4) shown where a break has no ad ready; nil: a black picture with silence.
    public var slateFile: String?
    /// Ad transcodes running at once on the worker pool.
    public var adWorkers: Int = 1
    /// Seconds one ad media download (or one HLS source playlist or segment) may take.
    public var adFetchTimeout: Double = 10
    /// Largest ad media file accepted, in bytes (larger: VAST 403).
    public var maxAdBytes: Int64 = 256 << 20
    /// Whether ad media may be a local file (only for ads named by a local document; never for a
    /// network ad server's).
    public var allowLocalAdMedia = false
    /// Where ad transcodes go: nil (the default) runs them on the store's own worker pool
    /// (`adWorkers`); a queue (`RedisAdQueue`) hands them to `interlude worker` processes sharing
    /// the store's folder, and the store only reads their results.
    public var jobQueue: (any AdJobQueue)?

    /// A store in `root` serving `contents`.
    public init(root: URL, contents: [String: String], ladder: [Rendition]? = nil) {
        self.root = root
        self.contents = contents
        self.ladder = ladder
    }
}
