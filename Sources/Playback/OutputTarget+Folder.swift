import Files
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension OutputTarget {
    /// What a folder output (an HLS package) may replace: nothing but a folder that holds only a
    /// package's files (playlists and segments), and only with `overwrite`. Symlinks, devices,
    /// FIFOs, regular files and any other folder are refused, with or without `-y`.
    public static func validateFolder(_ path: String, overwrite: Bool, role: String) throws(StitchFailure) {
        TemporaryFiles.removeStale(in: folderOf(path))
        var st = stat()
        if lstat(path, &st) == 0 {
            let kind = st.st_mode & S_IFMT
            if kind == S_IFLNK { throw .outputUnwritable("\(role) \(path) is a symbolic link; refused (name the folder itself)") }
            guard kind == S_IFDIR else { throw .outputUnwritable("\(role) \(path) exists and is not a folder; refused") }
            guard overwrite else { throw .outputExists(path) }
            guard TemporaryFiles.isPackageFolder(path) else {
                throw .outputUnwritable("\(role) \(path) is a folder with files other than an HLS package's; refused")
            }
        }
        let name = nameOf(path)
        if name.utf8.count > nameMax { throw .outputUnwritable("\(role) \(path): folder name longer than \(nameMax) bytes") }
        let folder = folderOf(path)
        var dst = stat()
        guard stat(folder, &dst) == 0, dst.st_mode & S_IFMT == S_IFDIR else {
            throw .outputUnwritable("\(role) \(path): folder \(folder) does not exist")
        }
    }

    /// The folder an HLS package for `path` is written into before it is moved there:
    /// `.NAME.PID.interlude-hls` beside it, NAME shortened (at a character boundary) so that the
    /// whole name stays within NAME_MAX, as `temporaryPath` does for files.
    public static func stagingFolderPath(for path: String) -> String {
        let suffix = ".\(getpid()).interlude-hls"
        var name = nameOf(path)
        while 1 + name.utf8.count + suffix.utf8.count > nameMax { name.removeLast() }
        return folderOf(path) + "/." + name + suffix
    }

    /// Puts the finished folder `staging` at `target`, replacing a previous package there (the
    /// caller checked it with `validateFolder`): the old folder is first renamed aside (to a
    /// `.interlude-hls` name of this process, so a run killed in between leaves only a
    /// temporary that the next run removes), the new one renamed in, then the old one removed.
    /// A reader sees the old package or the new one, never a mix; the name is missing only
    /// between two renames.
    public static func replaceFolder(_ target: String, with staging: String) throws(StitchFailure) {
        var st = stat()
        guard lstat(target, &st) == 0 else {
            guard rename(staging, target) == 0 else { throw .outputUnwritable("cannot write \(target): \(String(cString: strerror(errno)))") }
            return
        }
        let suffix = ".old.\(getpid()).interlude-hls"
        var name = nameOf(target)
        while 1 + name.utf8.count + suffix.utf8.count > nameMax { name.removeLast() }
        let aside = folderOf(target) + "/." + name + suffix
        TemporaryFiles.register(aside)
        defer { TemporaryFiles.unregister(aside) }
        guard rename(target, aside) == 0 else { throw .outputUnwritable("cannot replace \(target): \(String(cString: strerror(errno)))") }
        guard rename(staging, target) == 0 else {
            let reason = String(cString: strerror(errno))
            _ = rename(aside, target)   // put the previous package back
            throw .outputUnwritable("cannot write \(target): \(reason)")
        }
        try? FileManager.default.removeItem(atPath: aside)
    }
}
