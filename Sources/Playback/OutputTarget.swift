import Files
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Output safety: what may be written where, and how files appear there.
///
/// A target is refused when it is a directory, a device, a FIFO, a socket or a symbolic link —
/// with or without `-y` — and when it exists and overwriting was not asked for. Output is written
/// to a temporary file beside the target (created exclusively, its name within NAME_MAX) and
/// committed at the end: without overwrite by `link(2)`, which fails when the target appeared in
/// the meantime (two stitches to one new name: one wins, the other fails and writes nothing);
/// with overwrite by `rename(2)`. Several files (video and report) are committed together and the
/// ones already committed are removed again when a later one fails. Temporary files are
/// registered with `TemporaryFiles`, which removes them on SIGINT, SIGTERM or SIGHUP.
package enum OutputTarget {
    /// Longest file name (one path component) Linux file systems accept.
    public static let nameMax = 255

    /// Throws unless `path` may be written as `role` ("output", "report"): not a directory, device,
    /// FIFO, socket or symlink; a regular file there only with `overwrite`; its folder exists.
    public static func validate(_ path: String, overwrite: Bool, role: String) throws(StitchFailure) {
        var st = stat()
        if lstat(path, &st) == 0 {
            let kind = st.st_mode & S_IFMT
            if kind == S_IFLNK { throw .outputUnwritable("\(role) \(path) is a symbolic link; refused (name the file itself)") }
            if kind == S_IFDIR { throw .outputUnwritable("\(role) \(path) is a directory; refused") }
            if kind == S_IFCHR || kind == S_IFBLK { throw .outputUnwritable("\(role) \(path) is a device; refused (use -o - and redirect standard output)") }
            if kind == S_IFIFO { throw .outputUnwritable("\(role) \(path) is a FIFO; refused (use -o - and redirect standard output)") }
            if kind != S_IFREG { throw .outputUnwritable("\(role) \(path) is not a regular file; refused") }
            if !overwrite { throw role == "output" ? .outputExists(path) : .outputUnwritable("\(role) \(path) exists (use -y to overwrite)") }
        }
        let name = nameOf(path)
        if name.utf8.count > nameMax { throw .outputUnwritable("\(role) \(path): file name longer than \(nameMax) bytes") }
        let folder = folderOf(path)
        var dst = stat()
        guard stat(folder, &dst) == 0, dst.st_mode & S_IFMT == S_IFDIR else {
            throw .outputUnwritable("\(role) \(path): folder \(folder) does not exist")
        }
    }

    /// Whether two paths name one file (same device and inode), or the same absolute path.
    public static func sameFile(_ a: String, _ b: String) -> Bool {
        var sa = stat(), sb = stat()
        if stat(a, &sa) == 0, stat(b, &sb) == 0 { return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino }
        return URL(fileURLWithPath: a).standardizedFileURL.path == URL(fileURLWithPath: b).standardizedFileURL.path
    }

    /// The temporary file beside `path`: `.NAME.PID.interlude-tmp`, NAME shortened (at a
    /// character boundary) so that the whole name stays within NAME_MAX.
    public static func temporaryPath(for path: String) -> String {
        let suffix = ".\(getpid()).interlude-tmp"
        var name = nameOf(path)
        while 1 + name.utf8.count + suffix.utf8.count > nameMax { name.removeLast() }
        return folderOf(path) + "/." + name + suffix
    }

    /// Creates the temporary file for `path` exclusively (a stale one of a dead process with this
    /// pid is removed first, and so are those of killed runs in that folder:
    /// `TemporaryFiles.removeStale`; nothing is followed through a symlink) and registers it for cleanup.
    @discardableResult
    public static func createTemporary(for path: String) throws(StitchFailure) -> String {
        TemporaryFiles.removeStale(in: folderOf(path))
        let tmp = temporaryPath(for: path)
        var st = stat()
        if lstat(tmp, &st) == 0, st.st_mode & S_IFMT == S_IFREG || st.st_mode & S_IFMT == S_IFLNK { unlink(tmp) }
        // registered before it exists: a signal between creating and registering it would leave it behind
        TemporaryFiles.register(tmp)
        let fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            TemporaryFiles.unregister(tmp)
            throw .outputUnwritable("cannot write \(path): \(reason)")
        }
        close(fd)
        return tmp
    }

    /// Writes `data` to the temporary file of `path` (created exclusively); returns its path.
    public static func stage(_ data: Data, for path: String) throws(StitchFailure) -> String {
        let tmp = try createTemporary(for: path)
        do {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: tmp))
            defer { try? handle.close() }
            try handle.write(contentsOf: data)
            try handle.synchronize()
        } catch {
            TemporaryFiles.discard(tmp)
            throw .outputUnwritable("cannot write \(path): \(error.localizedDescription)")
        }
        return tmp
    }

    /// Moves each staged temporary file to its target, in order. Without `overwrite` a target that
    /// exists by now fails the commit. On any failure the targets already committed are removed
    /// and every temporary file is deleted: all or nothing.
    public static func commit(_ items: [(temporary: String, target: String)], overwrite: Bool) throws(StitchFailure) {
        var done: [String] = []
        for item in items {
            do throws(StitchFailure) {
                try validate(item.target, overwrite: overwrite, role: "output")
                if overwrite {
                    guard rename(item.temporary, item.target) == 0 else { throw .outputUnwritable("cannot write \(item.target): \(String(cString: strerror(errno)))") }
                } else {
                    if link(item.temporary, item.target) != 0 {
                        if errno == EEXIST { throw .outputExists(item.target) }
                        throw .outputUnwritable("cannot write \(item.target): \(String(cString: strerror(errno)))")
                    }
                    unlink(item.temporary)
                }
                TemporaryFiles.unregister(item.temporary)
                done.append(item.target)
            } catch {
                for target in done { unlink(target) }
                for other in items { TemporaryFiles.discard(other.temporary) }
                throw error
            }
        }
    }

    /// The folder part of `path` (`.` for a bare name, `/` at the root), trailing slashes ignored.
    /// Plain string work: Foundation's `NSString.deletingLastPathComponent` traps on one-character
    /// names on Linux (`-o x` died with SIGILL).
    public static func folderOf(_ path: String) -> String {
        let trimmed = trimmingTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        let folder = trimmingTrailingSlashes(String(trimmed[..<slash]))
        return folder.isEmpty ? "/" : folder
    }

    /// The last component of `path` (trailing slashes ignored).
    public static func nameOf(_ path: String) -> String {
        let trimmed = trimmingTrailingSlashes(path)
        guard let slash = trimmed.lastIndex(of: "/") else { return trimmed }
        return String(trimmed[trimmed.index(after: slash)...])
    }

    private static func trimmingTrailingSlashes(_ path: String) -> String {
        var p = Substring(path)
        while p.count > 1, p.hasSuffix("/") { p = p.dropLast() }
        return String(p)
    }
}
