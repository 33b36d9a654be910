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

    /// The largest picture an ad is made at, in pixels (3840x2160): a job's memory is bounded by
    /// it (an 8192x8192 rung took a worker to 3.4 GB).
    public static let largestPicture = 3840 * 2160
    /// Segment targets a job may ask for.
    public static let segmentTargets = MediaTime(seconds: 1)...MediaTime(seconds: 30)
    /// The longest media URL a job carries.
    public static let longestURL = 8192

    /// Why this job is not one the store would make, in one line; nil when it is. A job read
    /// from a queue is as hostile as a request: its rung is one the store could serve (a
    /// LADDER's name and bit-rate rules, sizes of 16 to 8192) within `largestPicture`, a frame rate of at most 240 per
    /// second, a codec of letters, digits and '.', a decode delay of 0 to 1 s; its segment target 1-30 s; its media an
    /// http(s) URL, or a local path or `file:` URL only when `allowLocal` (a local document's ad;
    /// the worker reads it only inside the folder it was given).
    public var problem: String? {
        let r = rendition
        guard MediaStore.isRungName(r.name), r.name.count <= 32 else { return "rung name '\(r.name.prefix(40))' is not 1-32 letters, digits, '-' or '_'" }
        // sizes of any parity: an HLS origin's rung may be odd (853x480); the encoder rounds
        guard (16...8192).contains(r.width), (16...8192).contains(r.height), r.width * r.height <= AdJobRequest.largestPicture else {
            return "rung \(r.name): \(r.width)x\(r.height) is not sizes of at least 16 within 3840x2160 pixels"
        }
        guard Ladder.bitrate(String(r.videoBitrate)) != nil, Ladder.bitrate(String(r.audioBitrate)) != nil else {
            return "rung \(r.name): bit rates \(r.videoBitrate)+\(r.audioBitrate) b/s are not 1 kbit/s to 200 Mbit/s"
        }
        if let n = r.frameRateNumerator, let d = r.frameRateDenominator {
            guard n > 0, d > 0, n / d <= 240, n <= 1_000_000 else { return "rung \(r.name): frame rate \(n)/\(d) is not 240/s or less" }
        } else if r.frameRateNumerator != nil || r.frameRateDenominator != nil {
            return "rung \(r.name): half a frame rate"
        }
        if let c = r.videoCodec {
            guard !c.isEmpty, c.count <= 32, c.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == ".") }) else { return "rung \(r.name): codec '\(c.prefix(40))'" }
        }
        if let d = r.decodeDelayTicks, !(0...90_000).contains(d) { return "rung \(r.name): decode delay \(d) ticks is not 0 to 1 s" }
        guard AdJobRequest.segmentTargets.contains(segmentTarget) else { return "segment target \(segmentTarget.seconds) s is not 1-30 s" }
        guard !url.isEmpty, url.utf8.count <= AdJobRequest.longestURL, url.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return "media URL is empty, over \(AdJobRequest.longestURL) bytes or not printable ASCII"
        }
        switch AdJobRequest.localPath(url) {
        case .some: if !allowLocal { return "media \(url) is a local file named by a network document" }
        case .none:
            let scheme = URL(string: url)?.scheme?.lowercased()
            guard scheme == "http" || scheme == "https" else { return "media \(url): only http, https or a local document's file" }
        }
        return nil
    }

    /// The local path `url` names (a path, or a `file:` URL's path), as the ad media cache reads
    /// it; nil for a URL with another scheme.
    static func localPath(_ url: String) -> String? {
        let parsed = URL(string: url)
        switch parsed?.scheme?.lowercased() {
        case nil: return url
        case "file": return parsed?.path ?? url
        default: return nil
        }
    }
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
