import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension OutputTarget {
    /// What a folder output (an HLS package) may replace: nothing but a folder that holds only a
    /// package's files (playlists and segments), and only with `overwrite`. Symlinks, devices,
    /// FIFOs, regular files and any other folder are refused, with or without `-y`.
    public static func validateFolder(_ path: String, overwrite: Bool, role: String) throws(StitchFailure) {
        var st = stat()
        if lstat(path, &st) == 0 {
            let kind = st.st_mode & S_IFMT
            if kind == S_IFLNK { throw .outputUnwritable("\(role) \(path) is a symbolic link; refused (name the folder itself)") }
            guard kind == S_IFDIR else { throw .outputUnwritable("\(role) \(path) exists and is not a folder; refused") }
            guard overwrite else { throw .outputExists(path) }
            guard isPackageFolder(path) else {
                throw .outputUnwritable("\(role) \(path) is a folder with files other than an HLS package's; refused")
            }
        }
        let name = (URL(fileURLWithPath: path).standardizedFileURL.lastPathComponent)
        if name.utf8.count + 40 > nameMax { throw .outputUnwritable("\(role) \(path): folder name too long") }
        let folder = folderOf(URL(fileURLWithPath: path).standardizedFileURL.path)
        var dst = stat()
        guard stat(folder, &dst) == 0, dst.st_mode & S_IFMT == S_IFDIR else {
            throw .outputUnwritable("\(role) \(path): folder \(folder) does not exist")
        }
    }

    /// Whether a folder holds only regular files named like an HLS package's (m3u8, ts, m4s, mp4).
    static func isPackageFolder(_ path: String) -> Bool {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return false }
        for name in names {
            var st = stat()
            guard lstat(path + "/" + name, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return false }
            guard ["m3u8", "ts", "m4s", "mp4"].contains((name as NSString).pathExtension.lowercased()) else { return false }
        }
        return true
    }
}
