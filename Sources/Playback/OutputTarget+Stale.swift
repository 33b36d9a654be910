import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension OutputTarget {
    /// The process id in a name of Interlude's own temporaries, `.NAME.PID.interlude-tmp` (a file)
    /// or `.NAME.PID.interlude-hls` (an HLS package being written), or nil for any other name.
    static func temporaryOwner(_ name: String) -> (pid: pid_t, folder: Bool)? {
        let folder: Bool
        if name.hasSuffix(".interlude-tmp") { folder = false } else if name.hasSuffix(".interlude-hls") { folder = true } else { return nil }
        guard name.hasPrefix(".") else { return nil }
        let parts = name.dropFirst().split(separator: ".", omittingEmptySubsequences: false)
        // NAME (may itself hold dots, not be empty), PID, interlude-tmp|hls
        guard parts.count >= 3, !parts[0].isEmpty, let pid = pid_t(parts[parts.count - 2]), pid > 0,
              parts[parts.count - 2].allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return (pid, folder)
    }

    /// Removes the temporaries a killed run (SIGKILL, a power cut) left in `folder`: only names of
    /// exactly Interlude's pattern (`temporaryOwner`), owned by this user, whose process is gone
    /// (`kill(pid, 0)` says ESRCH); files must be regular files, folders must hold only an HLS
    /// package's files. Anything else is never touched. Returns the names removed.
    @discardableResult
    public static func removeStaleTemporaries(in folder: String) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        var removed: [String] = []
        for name in names {
            guard let owner = temporaryOwner(name), owner.pid != getpid() else { continue }
            guard kill(owner.pid, 0) != 0, errno == ESRCH else { continue }   // alive, or not ours to ask
            let path = (folder == "/" ? "" : folder) + "/" + name
            var st = stat()
            guard lstat(path, &st) == 0, st.st_uid == geteuid() else { continue }
            let kind = st.st_mode & S_IFMT
            if !owner.folder, kind == S_IFREG, unlink(path) == 0 { removed.append(name) }
            if owner.folder, kind == S_IFDIR, isPackageFolder(path), (try? FileManager.default.removeItem(atPath: path)) != nil {
                removed.append(name)
            }
        }
        return removed
    }
}
