import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Ad media fetched once per URL into a bounded on-disk cache.
///
/// `http`/`https` media is downloaded (with the `loadVideoTimeout` and a per-file size cap) into
/// the cache folder, named by a hash of the URL; the least recently used files are removed when the
/// folder grows past `maxBytes`. Local files (`file://` or a path) are used in place, and only when
/// the ad came from a local document: media named by a network document never reaches local files.
public final class AdMediaCache: @unchecked Sendable {
    // @unchecked Sendable: the only mutable state is the file system, guarded by `lock` for the
    // eviction pass; downloads write to unique temporary names and rename atomically.
    /// The cache folder.
    public let directory: URL
    /// Most bytes the folder may hold after a download.
    public let maxBytes: Int64
    /// Largest single media file accepted.
    public let maxFileBytes: Int64
    private let lock = NSLock()

    /// Why media could not be had, with its VAST code (401 not found, 402 timeout, 403 refused).
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// VAST error code.
        public var code: Int
        /// One line.
        public var message: String
        /// `error CODE: message`.
        public var description: String { "error \(code): \(message)" }
    }

    /// A cache in `directory` (created when missing) holding at most `maxBytes`.
    public init(directory: URL = AdMediaCache.defaultDirectory, maxBytes: Int64 = 2 << 30,
                maxFileBytes: Int64 = 1 << 30) {
        self.directory = directory
        self.maxBytes = maxBytes
        self.maxFileBytes = maxFileBytes
    }

    /// `$XDG_CACHE_HOME/interlude/media`, else `~/.cache/interlude/media`, else the temp folder.
    public static var defaultDirectory: URL {
        let env = ProcessInfo.processInfo.environment
        if let x = env["XDG_CACHE_HOME"], !x.isEmpty { return URL(fileURLWithPath: x).appendingPathComponent("interlude/media") }
        if let h = env["HOME"], !h.isEmpty { return URL(fileURLWithPath: h).appendingPathComponent(".cache/interlude/media") }
        return FileManager.default.temporaryDirectory.appendingPathComponent("interlude-media")
    }

    /// A local path for `url`: the cached download, or the local file itself when `allowLocal`.
    public func localPath(for url: String, timeout: Double, allowLocal: Bool) async throws(Failure) -> String {
        let parsed = URL(string: url)
        let scheme = parsed?.scheme?.lowercased()
        if scheme == nil || scheme == "file" {
            guard allowLocal else {
                throw Failure(code: 403, message: "media \(url) is a local file named by a network document; refused")
            }
            let path = scheme == "file" ? (parsed?.path ?? url) : url
            guard FileManager.default.fileExists(atPath: path) else { throw Failure(code: 401, message: "media \(url) not found") }
            return path
        }
        guard scheme == "http" || scheme == "https", let parsed else {
            throw Failure(code: 403, message: "media \(url): scheme '\(scheme ?? "")' refused (only http, https, file)")
        }
        let target = directory.appendingPathComponent(AdMediaCache.key(url) + "." + (parsed.pathExtension.isEmpty ? "media" : parsed.pathExtension))
        if FileManager.default.fileExists(atPath: target.path) {
            try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: target.path)
            return target.path
        }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw Failure(code: 402, message: "cache folder \(directory.path) cannot be created: \(error.localizedDescription)")
        }
        // FoundationNetworking truncates URLSession timeouts to whole seconds (0.5 s fires at
        // once): give it a whole-second margin and enforce the exact deadline with withTimeout.
        let sessionTimeout = timeout.rounded(.up) + 1
        var r = URLRequest(url: parsed, timeoutInterval: sessionTimeout)
        r.setValue("interlude/0.1", forHTTPHeaderField: "User-Agent")
        let request = r
        let config = URLSessionConfiguration.ephemeral
        config.timeoutIntervalForRequest = sessionTimeout
        config.timeoutIntervalForResource = sessionTimeout
        let session = URLSession(configuration: config)
        defer { session.finishTasksAndInvalidate() }
        let data: Data, response: URLResponse
        do {
            (data, response) = try await withTimeout(seconds: timeout) { try await session.data(for: request) }
        } catch is TimeoutError {
            throw Failure(code: 402, message: "media \(url) did not load within \(timeout) s")
        } catch let e as URLError where e.code == .timedOut {
            throw Failure(code: 402, message: "media \(url) did not load within \(timeout) s")
        } catch {
            throw Failure(code: 401, message: "media \(url) cannot be fetched: \(error.localizedDescription)")
        }
        if let http = response as? HTTPURLResponse, !(200..<300).contains(http.statusCode) {
            throw Failure(code: 401, message: "media \(url) answered HTTP \(http.statusCode)")
        }
        guard Int64(data.count) <= maxFileBytes else {
            throw Failure(code: 403, message: "media \(url) is larger than \(maxFileBytes) bytes")
        }
        let temporary = directory.appendingPathComponent(".\(UUID().uuidString).part")
        do {
            try data.write(to: temporary)
            _ = try? FileManager.default.removeItem(at: target)
            try FileManager.default.moveItem(at: temporary, to: target)
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw Failure(code: 402, message: "media \(url) cannot be cached: \(error.localizedDescription)")
        }
        evict(keeping: target)
        return target.path
    }

    /// Removes least recently used files until the folder fits in `maxBytes` (never `keeping`).
    func evict(keeping: URL) {
        lock.lock(); defer { lock.unlock() }
        let keys: [URLResourceKey] = [.contentModificationDateKey, .fileSizeKey]
        guard let files = try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys) else { return }
        var entries = files.compactMap { url -> (URL, Date, Int64)? in
            guard let v = try? url.resourceValues(forKeys: Set(keys)) else { return nil }
            return (url, v.contentModificationDate ?? .distantPast, Int64(v.fileSize ?? 0))
        }
        var total = entries.reduce(Int64(0)) { $0 + $1.2 }
        entries.sort { $0.1 < $1.1 }
        for (url, _, size) in entries where total > maxBytes && url.standardizedFileURL != keeping.standardizedFileURL {
            try? FileManager.default.removeItem(at: url)
            total -= size
        }
    }

    /// A stable file name for a URL (64-bit FNV-1a, hex).
    static func key(_ url: String) -> String {
        var h: UInt64 = 0xcbf29ce484222325
        for b in url.utf8 { h ^= UInt64(b); h = h &* 0x100000001b3 }
        return String(h, radix: 16)
    }
}

struct TimeoutError: Error {}

/// Runs `body`, giving up after `seconds`.
func withTimeout<T: Sendable>(seconds: Double, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(nanoseconds: UInt64(max(0.001, seconds) * 1e9))
            throw TimeoutError()
        }
        defer { group.cancelAll() }
        return try await group.next()!
    }
}
