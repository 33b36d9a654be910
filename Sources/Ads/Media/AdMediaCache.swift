import Files
import Foundation
import Threads

/// Ad media fetched once per URL into a bounded on-disk cache.
///
/// `http`/`https` media is downloaded (with the `loadVideoTimeout` and a per-file size cap) into
/// the cache folder, named by a hash of the URL; the least recently used files are removed when the
/// folder grows past `maxBytes`. Local files (`file://` or a path) are used in place, and only when
/// the ad came from a local document: media named by a network document never reaches local files.
///
/// The cache trusts nothing it finds: the folder must be this user's and writable by no one else
/// (it is created 0700; another is refused with 402), and an entry is used only when, opened
/// without following symlinks, it is a regular file whose size and SHA-256 are those recorded in
/// `<entry>.sum` when it was downloaded. A symlink or a file planted under an entry's name, or a
/// changed entry, is removed and the media fetched again.
///
/// The SHA-256 is libavutil's, given by the layer that links FFmpeg (this module links none):
/// `import Interlude` makes a cache with `init(directory:maxBytes:maxFileBytes:)`.
public final class AdMediaCache: Sendable {
    // Sendable as checked; the file system is the shared state: its eviction pass one at a time
    // under `evicting`, downloads written to unique temporary names and renamed atomically.
    /// The cache folder.
    public let directory: URL
    /// Most bytes the folder may hold after a download.
    public let maxBytes: Int64
    /// Largest single media file accepted (counted as it streams in).
    public let maxFileBytes: Int64
    /// Most seconds one preload of every ad's media may take together; each file also has its own
    /// timeout. Media not fetched by then fails with 402.
    public var preloadTimeout: Double {
        get { preload.withLock { $0 } }
        set { preload.withLock { $0 = newValue } }
    }
    private let preload = Locked<Double>(30)
    /// Held for an eviction pass: one at a time (it guards the folder, no value).
    private let evicting = Locked(())
    /// A fresh SHA-256, for the URL keys and the entries' records.
    private let sha256: @Sendable () throws -> SHA256Stream

    /// Why media could not be had, with its VAST code (401 not found, 402 timeout, 403 refused).
    package struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// VAST error code.
        package var code: Int
        /// One line.
        package var message: String
        /// `error CODE: message`.
        package var description: String { "error \(code): \(message)" }
        /// A failure with VAST code `code`.
        package init(code: Int, message: String) { self.code = code; self.message = message }
    }

    /// A cache in `directory` (created when missing) holding at most `maxBytes`, hashing with
    /// `sha256` (a fresh SHA-256 each call).
    package init(directory: URL, maxBytes: Int64, maxFileBytes: Int64, sha256: @escaping @Sendable () throws -> SHA256Stream) {
        self.directory = directory
        self.maxBytes = maxBytes
        self.maxFileBytes = maxFileBytes
        self.sha256 = sha256
    }

    /// `$XDG_CACHE_HOME/interlude/media`, else `~/.cache/interlude/media`, else the temp folder.
    public static var defaultDirectory: URL {
        let env = ProcessInfo.processInfo.environment
        if let x = env["XDG_CACHE_HOME"], !x.isEmpty { return URL(fileURLWithPath: x).appendingPathComponent("interlude/media") }
        if let h = env["HOME"], !h.isEmpty { return URL(fileURLWithPath: h).appendingPathComponent(".cache/interlude/media") }
        return FileManager.default.temporaryDirectory.appendingPathComponent("interlude-media")
    }

    /// A local path for `url`: the cached download, or the local file itself when `allowLocal`.
    package func localPath(for url: String, timeout: Double, allowLocal: Bool) async throws(Failure) -> String {
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
        let key: String
        do { key = try self.key(url) } catch { throw Failure(code: 900, message: "media \(url): cannot hash its URL: \(error)") }
        let target = directory.appendingPathComponent(key + "." + safeExt)
        try prepareDirectory()
        if verifiedEntry(target) {
            try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: target.path)
            return target.path
        }
        let temporary = directory.appendingPathComponent(AdMediaCache.temporaryName())
        TemporaryFiles.register(temporary.path)   // before it exists: a signal in between would leave it
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            TemporaryFiles.discard(temporary.path)
            throw Failure(code: 402, message: "media \(url) cannot be cached in \(directory.path)")
        }
        let file = PartFile(FileHandle(fileDescriptor: fd, closeOnDealloc: true), hash: try? sha256())
        defer { file.close(); TemporaryFiles.discard(temporary.path) }
        do {
            // Streamed to disk as it comes: the body is never held in memory, the cap counts the
            // bytes as delivered, and an encoded (gzip) body is refused before it can expand.
            _ = try await HTTPStream.fetch(parsed, timeout: timeout, maxBytes: maxFileBytes) { try file.write($0) }
        } catch {
            throw AdMediaCache.failure(for: url, error, timeout: timeout, limit: maxFileBytes)
        }
        let record = file.close()
        // the record first: an entry is used only when it matches what was recorded for it
        guard let record, writeRecord(record, for: target), rename(temporary.path, target.path) == 0 else {
            throw Failure(code: 402, message: "media \(url) cannot be cached: \(String(cString: strerror(errno)))")
        }
        evict(keeping: target)
        return target.path
    }

    /// What the cache recorded of an entry it wrote: its size and SHA-256 (`<entry>.sum`).
    struct Record: Equatable {
        var size: Int64
        var sha256: String
        var line: String { "\(size) \(sha256)\n" }
        init(size: Int64, sha256: String) { self.size = size; self.sha256 = sha256 }
        init?(line: String) {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let n = Int64(parts[0]), n >= 0 else { return nil }
            size = n
            sha256 = parts[1].trimmingCharacters(in: .whitespacesAndNewlines)
            guard sha256.count == 64 else { return nil }
        }
    }

    /// The record file of an entry.
    static func recordURL(_ entry: URL) -> URL { entry.appendingPathExtension("sum") }

    /// Creates the folder (only this user may enter it) and refuses one that others may write or
    /// that is not this user's: anyone who can write there could plant an entry (a symlink to a
    /// local file, or other media) under the name of a network ad's URL hash.
    func prepareDirectory() throws(Failure) {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw Failure(code: 402, message: "cache folder \(directory.path) cannot be created: \(error.localizedDescription)")
        }
        if let problem = AdMediaCache.folderProblem(directory.path) { throw Failure(code: 402, message: problem) }
        // downloads of a killed run (SIGKILL) are named like every Interlude temporary: removed here
        TemporaryFiles.removeStale(in: directory.path)
    }

    /// A fresh name for a download or record being written: `.UUID.PID.interlude-tmp`, the pattern
    /// `TemporaryFiles.removeStale` removes once the process is gone.
    static func temporaryName() -> String { ".\(UUID().uuidString).\(getpid()).interlude-tmp" }

    /// Why `path` cannot hold a cache (one line), or nil: it must be a folder owned by this user
    /// that neither its group nor others may write.
    package static func folderProblem(_ path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }   // created when needed, private
        guard st.st_mode & S_IFMT == S_IFDIR else { return "cache folder \(path) is not a folder" }
        guard st.st_uid == geteuid() else { return "cache folder \(path) belongs to another user; refused (use a folder of your own)" }
        guard st.st_mode & 0o022 == 0 else {
            return "cache folder \(path) may be written by other users; refused (chmod go-w it, or use a private folder)"
        }
        return nil
    }

    /// Whether `entry` is an entry this cache wrote, unchanged: opened without following a symlink,
    /// a regular file of this user with one link, whose size and SHA-256 are what `<entry>.sum`
    /// recorded when it was written. Anything else (a symlink planted under the name, a file
    /// without a record, a changed or truncated file) is removed and fetched again.
    func verifiedEntry(_ entry: URL) -> Bool {
        let path = entry.path
        var lst = stat()
        guard lstat(path, &lst) == 0 else { return false }
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { discardEntry(entry); return false }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG, st.st_uid == geteuid(), st.st_nlink == 1,
              let text = try? LocalFile.read(AdMediaCache.recordURL(entry).path, maxBytes: 256, what: "cache record"),
              let record = Record(line: String(decoding: text, as: UTF8.self)),
              record.size == Int64(st.st_size), let hash = try? sha256() else {
            discardEntry(entry)
            return false
        }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var total: Int64 = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { discardEntry(entry); return false }
            if n == 0 { break }
            total += Int64(n)
            buffer.withUnsafeBytes { hash.update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        }
        guard total == record.size, hash.finish() == record.sha256 else { discardEntry(entry); return false }
        return true
    }

    /// Removes an entry and its record (a symlink is removed itself, never what it points to).
    func discardEntry(_ entry: URL) {
        unlink(entry.path)
        unlink(AdMediaCache.recordURL(entry).path)
    }

    /// Writes `<entry>.sum` (to a temporary name, then renamed); false when it cannot.
    func writeRecord(_ record: Record, for entry: URL) -> Bool {
        let target = AdMediaCache.recordURL(entry).path
        let temporary = directory.appendingPathComponent(AdMediaCache.temporaryName()).path
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        let bytes = Array(record.line.utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == bytes.count, rename(temporary, target) == 0 else { unlink(temporary); return false }
        return true
    }

    /// Removes least recently used cached files until they fit in `maxBytes` (never `keeping`).
    /// Only files this cache wrote count and go: regular files named `<SHA-256 hex>.<ext>`. Anything
    /// else in the folder (a user's `--cache-dir` may hold other files, and the transcode cache
    /// keeps a subfolder there) is never touched.
    func evict(keeping: URL) {
        evicting.withLock { _ in evictLocked(keeping: keeping) }
    }

    /// `evict`, with `evicting` held.
    private func evictLocked(keeping: URL) {
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
            discardEntry(url)
            total -= size
        }
    }

    /// A stable file name for a URL: its SHA-256 in hex (a URL an ad server chooses cannot be
    /// made to share another URL's cached file).
    func key(_ url: String) throws -> String {
        let hash = try sha256()
        Array(url.utf8).withUnsafeBytes { hash.update($0) }
        return hash.finish()
    }

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

/// The file a download streams into, hashed as it is written. The handle and the hash are used
/// under one lock, so a late chunk after a deadline cannot write into a closed file.
private final class PartFile: Sendable {
    private struct Part {
        var handle: FileHandle?
        let hash: SHA256Stream?
        var size: Int64 = 0
        var record: AdMediaCache.Record?
    }
    private let part: Locked<Part>
    init(_ handle: FileHandle, hash: SHA256Stream?) { part = Locked(Part(handle: handle, hash: hash)) }
    func write(_ data: Data) throws {
        try part.withLock { p in
            guard let handle = p.handle else { return }
            try handle.write(contentsOf: data)
            data.withUnsafeBytes { p.hash?.update($0) }
            p.size += Int64(data.count)
        }
    }
    /// Closes the file; the size and SHA-256 of what was written (nil when it could not be hashed).
    @discardableResult
    func close() -> AdMediaCache.Record? {
        part.withLock { p in
            if let handle = p.handle {
                try? handle.synchronize()
                try? handle.close()
                p.handle = nil
                p.record = p.hash.map { AdMediaCache.Record(size: p.size, sha256: $0.finish()) }
            }
            return p.record
        }
    }
}

/// A SHA-256 fed piece by piece, read once at the end as lower-case hex: how the cache names
/// entries (by their URL's hash) and records what it downloaded. The digest is libavutil's
/// (`Media.ContentHash`), handed in by the layer that links FFmpeg.
package struct SHA256Stream {
    /// Adds bytes.
    package var update: (UnsafeRawBufferPointer) -> Void
    /// The digest as hex (nothing may be added afterwards).
    package var finish: () -> String

    /// A stream of the two operations of a hash object.
    package init(update: @escaping (UnsafeRawBufferPointer) -> Void, finish: @escaping () -> String) {
        self.update = update
        self.finish = finish
    }
}
