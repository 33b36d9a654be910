import Foundation

/// How the store touches what lies in its folder without trusting it (the folder may be shared,
/// and anyone who can write it can plant links, FIFOs or other files): a store-relative path is
/// walked component by component with `lstat`, so that a symbolic link anywhere on the way, or
/// anything but a folder before the last component, refuses it; a file is opened with
/// `O_NOFOLLOW | O_NONBLOCK` and checked regular with `fstat` before a byte is read, so a FIFO
/// never blocks; removals and new folders go through the same walk, so that nothing outside the
/// root is ever removed or written through a planted link.
enum StoreFile {
    /// The `lstat` of `relative` below `root` when it is a plain relative path
    /// (`MediaStore.isSafeRelativePath`) whose every component before the last is a folder that
    /// is not a link; nil otherwise. The last component may be anything, a link included.
    static func status(_ relative: String, in root: URL) -> stat? {
        guard MediaStore.isSafeRelativePath(relative) else { return nil }
        let parts = relative.split(separator: "/")
        var path = root.path
        var st = stat()
        for (i, part) in parts.enumerated() {
            path += "/\(part)"
            guard lstat(path, &st) == 0 else { return nil }
            if i < parts.count - 1, st.st_mode & S_IFMT != S_IFDIR { return nil }
        }
        return st
    }

    /// The `lstat` of `relative` when it is a regular file reached through real folders only.
    static func regular(_ relative: String, in root: URL) -> stat? {
        guard let st = status(relative, in: root), st.st_mode & S_IFMT == S_IFREG else { return nil }
        return st
    }

    /// Whether `relative` is a folder (not a link) reached through real folders only.
    static func isFolder(_ relative: String, in root: URL) -> Bool {
        status(relative, in: root).map { $0.st_mode & S_IFMT == S_IFDIR } ?? false
    }

    /// Opens `path` to read without following a link at its last component and without blocking
    /// (a FIFO); the descriptor (close-on-exec) when it is a regular file, else nil.
    static func openRegular(_ path: String) -> Int32? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { close(fd); return nil }
        return fd
    }

    /// The bytes of the regular file at `url` (opened as `openRegular` does), when it holds at
    /// most `maxBytes`; nil otherwise.
    static func read(_ url: URL, maxBytes: Int) -> Data? {
        guard let fd = openRegular(url.path) else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_size >= 0, st.st_size <= maxBytes else { return nil }
        var data = Data(count: Int(st.st_size))
        var done = 0
        let ok = data.withUnsafeMutableBytes { buffer -> Bool in
            while done < buffer.count {
                let n = Glibc.read(fd, buffer.baseAddress! + done, buffer.count - done)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                done += n
            }
            return true
        }
        return ok ? data : nil
    }

    /// Removes `relative` below `root` (a file, a link itself, or a folder with what it holds,
    /// links inside removed as links) when every component before the last is a real folder;
    /// anything else is left alone. Whether it is gone.
    @discardableResult
    static func remove(_ relative: String, in root: URL) -> Bool {
        guard status(relative, in: root) != nil else { return false }
        return (try? FileManager.default.removeItem(at: root.appendingPathComponent(relative))) != nil
    }

    /// Makes the folders of `relative` below `root` that are missing (0700) and checks those that
    /// are there are real folders, not links; throws `StoreError.folder` otherwise.
    static func makeFolders(_ relative: String, in root: URL) throws {
        guard MediaStore.isSafeRelativePath(relative) else { throw StoreError.folder("'\(relative)' is not a plain store path") }
        var path = root.path
        var st = stat()
        for part in relative.split(separator: "/") {
            path += "/\(part)"
            if lstat(path, &st) != 0 {
                guard mkdir(path, 0o700) == 0 || (errno == EEXIST && lstat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFDIR) else {
                    throw StoreError.folder("cannot create \(relative): \(String(cString: strerror(errno)))")
                }
                continue
            }
            guard st.st_mode & S_IFMT == S_IFDIR else { throw StoreError.folder("\(relative): '\(part)' is not a folder (a link?)") }
        }
    }
}
