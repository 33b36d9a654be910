import Foundation
import Interlude
import Media
import Playback
import Threads
import Timing

/// The work of one ad job, shared by the store's own pool and `interlude worker`: fetch (hardened:
/// `AdMediaCache`), hash, probe, transcode into a temporary folder inside the store, and commit it
/// by renaming into `ads/<sha256 of the bytes>/<rung>` (with its `ad.json`). Neither keeps state:
/// the caller records the outcome (the store in its index, the worker in Redis).
enum AdTranscodeJob {
    /// The media fetched: its local path and the SHA-256 of its bytes.
    struct Fetched: Sendable { var path: String; var sha: String }
    /// A fetch that failed: VAST code and one-line reason.
    struct FetchFailure: Error, Sendable { var code: Int; var message: String }

    /// Fetches and hashes `url`; a failure carries its VAST code (401 not found, 402 timeout, 403 refused).
    static func fetch(_ url: String, cache: AdMediaCache, timeout: Double, allowLocal: Bool) async -> Result<Fetched, FetchFailure> {
        let path: String
        do { path = try await cache.localPath(for: url, timeout: timeout, allowLocal: allowLocal) } catch { return .failure(FetchFailure(code: error.code, message: error.message)) }
        do { return .success(Fetched(path: path, sha: try ContentHash.sha256(fileAt: path))) } catch {
            return .failure(FetchFailure(code: 402, message: "ad media \(url) cannot be read: \(error)"))
        }
    }

    /// The store-relative folder of the ad rung transcoded from media hashing to `sha`.
    static func prefix(sha: String, rung: String) -> String { "ads/\(sha)/\(rung)" }

    /// Probes and transcodes `media` into `rung`, commits it under `prefix` in the store at `root`
    /// (temporary folder named `tempPrefix…` inside it, then one rename), and answers `.ready` or
    /// `.failed` with a VAST code (403 too long or refused, 405 not decodable). When `prefix`
    /// already holds a whole rendition (another worker committed the same bytes first), the new
    /// transcode is dropped and the one in place is answered: a second commit is a no-op.
    static func transcode(_ media: String, url: String, rung: Rendition, segmentTarget: MediaTime, root: URL,
                          prefix: String, tempPrefix: String = ".tmp-") async -> AdReadiness {
        do {
            guard MediaStore.isSafeRelativePath(prefix), prefix.hasPrefix("ads/"), prefix.split(separator: "/").count == 3 else {
                throw StoreError.folder("'\(prefix)' is not an ad rung's folder")
            }
            let measured = try AdMediaProbe.measure(media)
            guard measured.duration <= MediaStore.longestAd else {
                throw AdTooLong(message: "ad media \(url) lasts \(Int(measured.duration.seconds)) s (at most \(Int(MediaStore.longestAd.seconds)) s)")
            }
            let temp = root.appendingPathComponent("\(tempPrefix)\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: temp, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            defer { try? FileManager.default.removeItem(at: temp) }
            let (segments, duration) = try await onOwnThread("ad transcode") {
                try AdRendition.make(media, rendition: rung, segmentTarget: segmentTarget, folder: temp, storePrefix: prefix)
            }
            let record = StoredAd(segments: segments.map(\.path), durations: segments.map { [$0.duration.value, $0.duration.timescale] },
                                  duration: [duration.value, duration.timescale])
            try JSONEncoder().encode(record).write(to: temp.appendingPathComponent("ad.json"))
            if let existing = load(prefix, root: root) { return existing }
            StoreFile.remove(prefix, in: root)   // an incomplete (or untrusted) earlier one
            let final = root.appendingPathComponent(prefix)
            try StoreFile.makeFolders((prefix as NSString).deletingLastPathComponent, in: root)   // never through a link
            guard rename(temp.path, final.path) == 0 else {
                if let existing = load(prefix, root: root) { return existing }   // lost a race to an identical commit
                throw StoreError.folder("cannot move \(temp.lastPathComponent) to \(prefix): \(String(cString: strerror(errno)))")
            }
            return .ready(segments, duration: duration)
        } catch let r as AdMediaProbe.Rejection {
            return .failed(code: r.code, reason: r.message)
        } catch let r as AdTooLong {
            return .failed(code: 403, reason: r.message)
        } catch {
            return .failed(code: 405, reason: "ad media \(url) cannot be transcoded: \(error)")
        }
    }

    /// An ad rung in the store at `root` under `prefix` (`ads/<sha>/<rung>`): its `ad.json`, read
    /// back untrusted (anyone who can write the folder can plant one): every segment a `.ts`
    /// under `prefix`, a regular file reached through real folders (no link), every duration
    /// positive, the whole at most `MediaStore.longestAd` and a segment at most a minute.
    static func load(_ prefix: String, root: URL) -> AdReadiness? {
        guard MediaStore.isSafeRelativePath(prefix), prefix.hasPrefix("ads/"), prefix.split(separator: "/").count == 3,
              let data = StoreFile.read(root.appendingPathComponent("\(prefix)/ad.json"), maxBytes: 4 << 20),
              StoreFile.regular("\(prefix)/ad.json", in: root) != nil,
              let s = try? JSONDecoder().decode(StoredAd.self, from: data), !s.segments.isEmpty, s.segments.count <= 10_000,
              s.segments.count == s.durations.count, s.duration.count == 2, s.duration[0] > 0, s.duration[1] > 0,
              s.durations.allSatisfy({ $0.count == 2 && $0[0] > 0 && $0[1] > 0 && MediaTime(value: $0[0], timescale: $0[1]) <= MediaTime(seconds: 60) }),
              MediaTime(value: s.duration[0], timescale: s.duration[1]) <= MediaStore.longestAd,
              s.segments.allSatisfy({ $0.hasPrefix(prefix + "/") && MediaStore.isSegmentPath($0) && StoreFile.regular($0, in: root) != nil })
        else { return nil }
        let segments = zip(s.segments, s.durations).map { StoredSegment(path: $0, duration: MediaTime(value: $1[0], timescale: $1[1])) }
        return .ready(segments, duration: MediaTime(value: s.duration[0], timescale: s.duration[1]))
    }
}
