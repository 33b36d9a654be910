import Foundation
import Interlude
import Media
import Playback
import Threads
import Timing

/// The serve store: a folder holding every encoded thing once — content ladders, shared cuts, ad
/// renditions, slate — and the `ServeMedia` the HTTP side calls. Work is done once per key and
/// shared; concurrent callers of the same key wait for the same work.
///
/// Layout under the root: `content/<key>/<rung>/segNNNNN.ts` (+ `content.json`),
/// `cuts/<key>/<rung>/…`, `ads/<sha256>/<rung>/…`, `slate/<rung>/…`, `index.json`.
public final class MediaStore: ServeMedia, Sendable {
    /// The setup.
    public let options: StoreOptions
    let root: URL
    /// What the store knows of its folder and of the work in progress.
    struct State {
        var index = StoreIndex()
        var packaged: [String: PackagedContent] = [:]
        var contentTasks: [String: Task<PackagedContent, any Error>] = [:]
        /// Pieces being made (`pieceMadeOnce`), by store path.
        var pieceTasks: [String: Task<StoredSegment, any Error>] = [:]
        var adByURL: [String: AdJob] = [:]
        var adBySHA: [String: AdReadiness] = [:]
        var adQueue: [@Sendable () async -> Void] = []
        var adRunning = 0
        var pins: [String: Int] = [:]
        var counts: [String: Int] = [:]
        /// Renditions by name, from the options' ladder and every content packaged.
        var renditions: [String: Rendition] = [:]
        /// Whether a packaged segment's sound starts after its first picture, by store path
        /// (`soundStartsLate(_:)`: read once, a packaged segment never changes).
        var lateSound: [String: Bool] = [:]

        /// Counts an encode of `kind`.
        mutating func countEncode(_ kind: String) { counts[kind, default: 0] += 1 }
    }
    let state: Locked<State>
    let adMedia: AdMediaCache

    /// Opens (or creates) the store at `options.root`; reuses what its index lists.
    public init(options: StoreOptions) throws {
        self.options = options
        root = options.root.standardizedFileURL
        try MediaStore.prepareFolder(root)
        try MediaStore.checkOwnFolder("fetched", in: root)
        adMedia = AdMediaCache(directory: root.appendingPathComponent("fetched"), maxBytes: 4 << 30, maxFileBytes: options.maxAdBytes)
        var s = State()
        for r in options.ladder ?? [] { s.renditions[r.name] = r }
        // What a crash left half-written (temporary names are never served). The folder may be
        // shared by other nodes and workers whose work in progress has such names too: only
        // what has not changed for an hour is removed (a job writes its files as it goes).
        let now = Date()
        for name in (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        where name.hasPrefix(".tmp-") || name.hasPrefix(".index-") {
            let url = root.appendingPathComponent(name)
            let changed = (try? FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date) ?? .distantPast
            if now.timeIntervalSince(changed) > MediaStore.abandonedAfter { try? FileManager.default.removeItem(at: url) }
        }
        // The index as read back is a claim, not a fact (anyone who can write the folder can plant
        // one): a unit is kept only when its shape is the store's and its files are on disk, as
        // regular files inside the folder, of the sizes recorded (`Unit.checked`). Eviction and
        // serving then only ever touch paths the store itself would have written.
        if let data = StoreFile.read(root.appendingPathComponent("index.json"), maxBytes: 256 << 20),
           let loaded = try? JSONDecoder().decode(StoreIndex.self, from: data) {
            for u in loaded.units.values {
                guard let checked = u.checked(in: root) else { continue }
                if checked.files.contains(where: { s.index.unit(holding: $0) != nil }) { continue }   // a file claimed twice
                s.index.add(checked)
            }
        }
        state = Locked(s)
    }

    /// Checks that `name`, a folder the store keeps at its root for itself (the ad media cache,
    /// a worker's downloads), is a real folder when it is there, never a link out of the store.
    static func checkOwnFolder(_ name: String, in root: URL) throws {
        var st = stat()
        guard lstat(root.appendingPathComponent(name).path, &st) == 0 else { return }
        guard st.st_mode & S_IFMT == S_IFDIR else { throw StoreError.folder("\(root.path)/\(name) is not a folder (a link?)") }
    }

    /// Creates `url` 0700, or checks that an existing folder is this user's and closed to others.
    static func prepareFolder(_ url: URL) throws {
        let fm = FileManager.default
        if !fm.fileExists(atPath: url.path) {
            do { try fm.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]) }
            catch { throw StoreError.folder("cannot create \(url.path): \(error.localizedDescription)") }
        }
        var st = stat()
        guard lstat(url.path, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else { throw StoreError.folder("\(url.path) is not a folder") }
        guard st.st_uid == getuid() else { throw StoreError.folder("\(url.path) belongs to another user") }
        guard st.st_mode & 0o022 == 0 else { throw StoreError.folder("\(url.path) is writable by others") }
    }

    /// The rung named `name` of the store's ladder or a registered live rung; nil when unknown.
    public func rendition(named name: String) -> Rendition? { state.withLock { $0.renditions[name] } }

    // MARK: bookkeeping

    /// Encodes started since launch, by kind.
    public func encodeCounts() -> [String: Int] { state.withLock { $0.counts } }

    /// Adds a unit of files now in the store to `s` (the state, its lock held) and evicts past
    /// the size bound.
    func register(_ s: inout State, key: String, kind: String, files: [String], folder: String? = nil) {
        var sizes: [String: Int64] = [:]
        for f in files { if let st = StoreFile.regular(f, in: root) { sizes[f] = Int64(st.st_size) } }
        s.index.add(StoreIndex.Unit(key: key, kind: kind, files: files, folder: folder, bytes: sizes.values.reduce(0, +),
                                    lastUsed: Date().timeIntervalSince1970, sizes: sizes))
        evictPastBound(&s, keeping: key)
        saveIndex(s.index)
    }

    /// Writes `index` to `index.json` (through a temporary file; called with the state's lock held).
    func saveIndex(_ index: StoreIndex) {
        guard let data = try? JSONEncoder().encode(index) else { return }
        let tmp = root.appendingPathComponent(".index-\(UUID().uuidString).tmp")
        do {
            try data.write(to: tmp)
            if rename(tmp.path, root.appendingPathComponent("index.json").path) != 0 { try? FileManager.default.removeItem(at: tmp) }
        } catch { try? FileManager.default.removeItem(at: tmp) }
    }

    /// A unique temporary path inside the store (same file system as the final place).
    func temporaryURL(_ suffix: String = "") -> URL {
        root.appendingPathComponent(".tmp-\(UUID().uuidString)\(suffix)")
    }

    /// Moves `temp` to store-relative `path` (creating its folders 0700; a link on the way refuses it).
    func publish(_ temp: URL, as path: String) throws {
        let final = root.appendingPathComponent(path)
        try StoreFile.makeFolders((path as NSString).deletingLastPathComponent, in: root)
        guard rename(temp.path, final.path) == 0 else {
            throw StoreError.folder("cannot move \(temp.lastPathComponent) to \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Moves the file `temp` to `path`, unless another process sharing the folder put a regular
    /// file there first (two nodes making the same piece at once): theirs stays and `temp` is
    /// dropped, so that every node registers and serves the same bytes (made twice, a piece's
    /// encode differs in size; a node whose record says otherwise refuses to serve it). Anything
    /// else at `path` (a planted link, a FIFO) is replaced, as `publish` does.
    func publishFile(_ temp: URL, as path: String) throws {
        let final = root.appendingPathComponent(path)
        try StoreFile.makeFolders((path as NSString).deletingLastPathComponent, in: root)
        if link(temp.path, final.path) == 0 {
            unlink(temp.path)
            return
        }
        if errno == EEXIST, StoreFile.regular(path, in: root) != nil { return }
        try publish(temp, as: path)
    }

    // MARK: segments

    /// The file behind a store-relative segment path the store holds; nil otherwise.
    ///
    /// Only segments: a `.ts` file under `content/`, `cuts/`, `ads/`, `slate/` or `live/`, never
    /// the store's records (`index.json`, `content.json`, `ad.json`) nor a package's encoded
    /// video. Only a regular file reached through real folders (a link anywhere on the way, a
    /// FIFO or a device is not served), and, for a file the index lists, one of the size it had
    /// when registered (a file replaced by another is not served as this one). A file another
    /// process sharing the folder put in place (a node's cut, a worker's ad, a live segment) is
    /// served too, under the same checks but its size: files reach their final names only whole
    /// (renamed from a temporary name).
    public func file(forSegment path: String) -> URL? {
        guard MediaStore.isSegmentPath(path), let st = StoreFile.regular(path, in: root) else { return nil }
        let matches: Bool = state.withLock { s in
            guard let unit = s.index.unit(holding: path) else { return true }
            guard unit.sizes?[path].map({ $0 == Int64(st.st_size) }) ?? true else { return false }
            s.index.touch(path: path, now: Date().timeIntervalSince1970)
            return true
        }
        return matches ? root.appendingPathComponent(path) : nil
    }

    /// The folders segments are served from.
    static let segmentFolders = ["content", "cuts", "ads", "slate", "live"]

    /// Whether `path` may name a served segment: a plain relative path (`isSafeRelativePath`) of
    /// a `.ts` file in one of `segmentFolders`, or of a content's or live channel's CMAF file kept
    /// as it came (`SegmentPath.isKeptCMAF`: an encrypted origin's).
    static func isSegmentPath(_ path: String) -> Bool {
        guard isSafeRelativePath(path), let top = path.split(separator: "/").first, path.contains("/"),
              path.hasSuffix(".ts") ? segmentFolders.contains(String(top)) : (top == "content" || top == "live") && SegmentPath.isKeptCMAF(path) else { return false }
        return true
    }

    /// Seconds after which an unchanged temporary entry in the store is taken for a crash's leftover.
    static let abandonedAfter: Double = 3600

    /// A relative path of plain names ("a/b.ts"): no "..", no empty or hidden parts, nothing absolute.
    static func isSafeRelativePath(_ path: String) -> Bool {
        guard !path.isEmpty, path.count < 512, !path.hasPrefix("/") else { return false }
        return path.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { part in
            !part.isEmpty && !part.hasPrefix(".") && part.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }
        }
    }

    /// A rung name the store puts in paths: 1-64 ASCII letters, digits, '-' or '_' (a LADDER's
    /// names are at most 32; an HLS source's are its heights).
    static func isRungName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64 && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    // MARK: content

    /// The content `name`, packaged once (a package already in the store is reused).
    public func content(_ name: String) async throws -> PreparedContent {
        try await packagedContent(name).prepared
    }

    func packagedContent(_ name: String) async throws -> PackagedContent {
        guard let source = options.contents[name] else { throw StoreError.unknownContent(name) }
        let task: Task<PackagedContent, any Error> = state.withLock { s in
            if let p = s.packaged[name] { return Task { p } }
            if let t = s.contentTasks[name] { return t }
            let t = Task {
                if MediaStore.isHLSSource(source) { return try await self.importHLS(name, source: source) }
                return try await onOwnThread("package content") { try self.packageContent(name, source: source) }
            }
            s.contentTasks[name] = t
            return t
        }
        do {
            let p = try await task.value
            state.withLock { s in
                s.packaged[name] = p
                s.contentTasks[name] = nil
                for r in p.renditions where s.renditions[r.rendition.name] == nil { s.renditions[r.rendition.name] = r.rendition }
            }
            return p
        } catch {
            state.withLock { $0.contentTasks[name] = nil }
            throw error
        }
    }

    /// Packages `source` (blocking), or loads the package the store already holds for it.
    private func packageContent(_ name: String, source: String) throws -> PackagedContent {
        var st = stat()
        guard stat(source, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { throw StoreError.unsupported("\(name): \(source) is not a readable file") }
        let sha = try ContentHash.sha256(fileAt: source)
        let scan = try ContentScan.scan(source)
        let ladder = options.ladder ?? Ladder.defaults(width: scan.width, height: scan.height, sourceBitrate: scan.videoBitrate)
        let ladderKey = ladder.map { "\($0.name):\($0.width)x\($0.height):\($0.videoBitrate):\($0.audioBitrate)" }.joined(separator: ",")
        let key = String(try ContentHash.sha256(Data("v\(PackagedContent.version) \(sha) \(ladderKey) \(options.segmentTarget.value)/\(options.segmentTarget.timescale)".utf8)).prefix(32))
        let prefix = "content/\(key)"
        if let p = loadPackage(prefix, name: name, source: source) ?? adoptPackage(prefix, name: name, source: source) { return p }
        state.withLock { $0.countEncode("ladder") }
        let temp = temporaryURL()
        try FileManager.default.createDirectory(at: temp, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: temp) }
        let p = try ContentPackager.package(name: name, source: source, sourceSHA256: sha, scan: scan, ladder: ladder,
                                            segmentTarget: options.segmentTarget, folder: temp, storePrefix: prefix)
        return try publishPackage(p, from: temp, prefix: prefix)
    }

    /// Whether a SOURCE is an HLS playlist (a URL, or a path ending in .m3u8) rather than an MP4.
    static func isHLSSource(_ source: String) -> Bool {
        source.contains("://") || source.lowercased().hasSuffix(".m3u8")
    }

    /// Reads an HLS origin into the store once (its segments kept byte for byte), or loads the
    /// import the store already holds for the same playlist.
    private func importHLS(_ name: String, source: String) async throws -> PackagedContent {
        let key = String(try ContentHash.sha256(Data("hls v\(PackagedContent.version)\(HLSImport.revision) \(source)".utf8)).prefix(32))
        let prefix = "content/\(key)"
        if let p = loadPackage(prefix, name: name, source: source) ?? adoptPackage(prefix, name: name, source: source) { return p }
        state.withLock { $0.countEncode("ladder") }
        let temp = temporaryURL()
        try FileManager.default.createDirectory(at: temp, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: temp) }
        let fetched = try await HLSImport.fetchAll(source, folder: temp, timeout: options.adFetchTimeout, maxTotalBytes: options.maxBytes)
        let p = try await onOwnThread("import HLS") {
            try HLSImport.package(name: name, source: source, fetched: fetched, folder: temp, storePrefix: prefix)
        }
        return try publishPackage(p, from: temp, prefix: prefix)
    }

    /// The package in the store under `prefix`, when it is there whole.
    func loadPackage(_ prefix: String, name: String, source: String) -> PackagedContent? {
        guard let unit = state.withLock({ $0.index.units[prefix] }), var p = packageRecord(prefix),
              p.isWellFormed(prefix: prefix, files: Set(unit.files)) else { return nil }
        p.name = name
        p.source = source
        return p
    }

    /// A package another process sharing the folder published under `prefix` (a node of the
    /// fleet that packaged the same content first), adopted: its record checked as `loadPackage`
    /// checks one (its paths inside the package, each a regular file there), then registered
    /// with the sizes found, so that this node serves those files rather than packaging the
    /// content again and replacing them. nil when there is none or it does not hold up.
    func adoptPackage(_ prefix: String, name: String, source: String) -> PackagedContent? {
        guard var p = packageRecord(prefix), p.isWellFormed(prefix: prefix, files: Set(p.files)),
              p.files.allSatisfy({ StoreFile.regular($0, in: root) != nil }) else { return nil }
        registerPackage(p, prefix: prefix)
        p.name = name
        p.source = source
        return p
    }

    /// The record (`content.json`) of the package under `prefix`, read as a regular file inside
    /// the store, when it decodes and is of this version; not checked against anything yet.
    private func packageRecord(_ prefix: String) -> PackagedContent? {
        guard StoreFile.regular("\(prefix)/content.json", in: root) != nil,
              let data = StoreFile.read(root.appendingPathComponent("\(prefix)/content.json"), maxBytes: 64 << 20),
              let p = try? JSONDecoder().decode(PackagedContent.self, from: data), p.version == PackagedContent.version else { return nil }
        return p
    }

    /// Registers the package `p` under `prefix`: its files and its record, with their sizes as found.
    private func registerPackage(_ p: PackagedContent, prefix: String) {
        let files = p.files + ["\(prefix)/content.json"]
        state.withLock { register(&$0, key: prefix, kind: "content", files: files, folder: prefix) }
    }

    /// Moves a package made in `temp` into the store under `prefix` and registers it; when
    /// another node published one there meanwhile (the folder's rename does not replace a
    /// folder that holds files), that one is adopted and `temp` dropped, so that every node
    /// serves the same files. What is at `prefix` and does not hold up (an incomplete or
    /// untrusted package) is replaced.
    func publishPackage(_ p: PackagedContent, from temp: URL, prefix: String) throws -> PackagedContent {
        try JSONEncoder().encode(p).write(to: temp.appendingPathComponent("content.json"))
        try StoreFile.makeFolders((prefix as NSString).deletingLastPathComponent, in: root)
        if rename(temp.path, root.appendingPathComponent(prefix).path) != 0 {
            if let theirs = adoptPackage(prefix, name: p.name, source: p.source) { return theirs }
            StoreFile.remove(prefix, in: root)
            try publish(temp, as: prefix)
        }
        registerPackage(p, prefix: prefix)
        return p
    }
}
