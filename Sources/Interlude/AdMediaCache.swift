import Ads
import Foundation
import Playback

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
    /// Largest single media file accepted (counted as it streams in).
    public let maxFileBytes: Int64
    /// Most seconds one preload of every ad's media may take together; each file also has its own
    /// timeout. Media not fetched by then fails with 402.
    public var preloadTimeout: Double = 30
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
            var st = stat()
            guard stat(path, &st) == 0 else { throw Failure(code: 401, message: "media \(url) not found") }
            guard st.st_mode & S_IFMT == S_IFREG else { throw Failure(code: 403, message: "media \(url) is not a regular file") }
            return path
        }
        guard scheme == "http" || scheme == "https", let parsed else {
            throw Failure(code: 403, message: "media \(url): scheme '\(scheme ?? "")' refused (only http, https, file)")
        }
        let ext = parsed.pathExtension.lowercased()
        let safeExt = (1...8).contains(ext.count) && ext.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } ? ext : "media"
        let target = directory.appendingPathComponent(AdMediaCache.key(url) + "." + safeExt)
        if FileManager.default.fileExists(atPath: target.path) {
            try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: target.path)
            return target.path
        }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw Failure(code: 402, message: "cache folder \(directory.path) cannot be created: \(error.localizedDescription)")
        }
        let temporary = directory.appendingPathComponent(".\(UUID().uuidString).part")
        Playback.OutputTarget.register(temporary.path)   // before it exists: a signal in between would leave it
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil),
              let handle = try? FileHandle(forWritingTo: temporary) else {
            Playback.OutputTarget.discard(temporary.path)
            throw Failure(code: 402, message: "media \(url) cannot be cached in \(directory.path)")
        }
        let file = PartFile(handle)
        defer { file.close(); Playback.OutputTarget.discard(temporary.path) }
        do {
            // Streamed to disk as it comes: the body is never held in memory, the cap counts the
            // bytes as delivered, and an encoded (gzip) body is refused before it can expand.
            _ = try await HTTPStream.fetch(parsed, timeout: timeout, maxBytes: maxFileBytes) { try file.write($0) }
        } catch {
            throw AdMediaCache.failure(for: url, error, timeout: timeout, limit: maxFileBytes)
        }
        file.close()
        guard rename(temporary.path, target.path) == 0 else {
            throw Failure(code: 402, message: "media \(url) cannot be cached: \(String(cString: strerror(errno)))")
        }
        evict(keeping: target)
        return target.path
    }

    /// Removes least recently used cached files until they fit in `maxBytes` (never `keeping`).
    /// Only files this cache wrote count and go: regular files named `<SHA-256 hex>.<ext>`. Anything
    /// else in the folder (a user's `--cache-dir` may hold other files, and the transcode cache
    /// keeps a subfolder there) is never touched.
    func evict(keeping: URL) {
        lock.lock(); defer { lock.unlock() }
        let keys: [URLResourceKey] = [.contentModificationDateKey, .fileSizeKey, .isRegularFileKey, .isSymbolicLinkKey]
        guard let files = try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: keys) else { return }
        var entries = files.compactMap { url -> (URL, Date, Int64)? in
            guard AdMediaCache.isCacheFileName(url.lastPathComponent),
                  let v = try? url.resourceValues(forKeys: Set(keys)), v.isRegularFile == true, v.isSymbolicLink != true else { return nil }
            return (url, v.contentModificationDate ?? .distantPast, Int64(v.fileSize ?? 0))
        }
        var total = entries.reduce(Int64(0)) { $0 + $1.2 }
        entries.sort { $0.1 < $1.1 }
        for (url, _, size) in entries where total > maxBytes && url.standardizedFileURL != keeping.standardizedFileURL {
            try? FileManager.default.removeItem(at: url)
            total -= size
        }
    }

    /// A stable file name for a URL: its SHA-256 in hex (a URL an ad server chooses cannot be
    /// made to share another URL's cached file).
    static func key(_ url: String) -> String { SHA256.hex(url) }

    /// Whether a file name is one this cache writes: 64 lowercase hex digits, a dot, an extension.
    static func isCacheFileName(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 64, !parts[1].isEmpty else { return false }
        return parts[0].allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) }
    }

    /// The VAST failure for a fetch error: 402 timeout, 403 refused (too large, bad redirect), 401 otherwise.
    static func failure(for url: String, _ error: FetchError, timeout: Double, limit: Int64) -> Failure {
        switch error {
        case .timeout: return Failure(code: 402, message: "media \(url) did not load within \(timeout) s")
        case .httpStatus(let code): return Failure(code: 401, message: "media \(url) answered HTTP \(code)")
        case .tooLarge: return Failure(code: 403, message: "media \(url) is larger than \(limit) bytes")
        case .redirectRefused, .refusedScheme, .encodingRefused: return Failure(code: 403, message: "media \(url): \(error)")
        default: return Failure(code: 401, message: "media \(url) cannot be fetched: \(error)")
        }
    }
}

/// The file a download streams into. `@unchecked Sendable`: the handle is used under `lock` only,
/// so a late chunk after a deadline cannot write into a closed file.
private final class PartFile: @unchecked Sendable {
    private let lock = NSLock()
    private var handle: FileHandle?
    init(_ handle: FileHandle) { self.handle = handle }
    func write(_ data: Data) throws {
        lock.lock(); defer { lock.unlock() }
        try handle?.write(contentsOf: data)
    }
    func close() {
        lock.lock(); defer { lock.unlock() }
        try? handle?.close()
        handle = nil
    }
}
