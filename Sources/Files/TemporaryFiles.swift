import Foundation
import Threads
#if canImport(Glibc)
import Glibc
#endif

/// Interlude's own temporary files, process-wide: those registered now are removed on SIGINT,
/// SIGTERM or SIGHUP (`installSignalCleanup()`), and those a killed run left behind are removed by
/// the next run that looks in their folder (`removeStale(in:)`).
///
/// A temporary is named `.NAME.PID.interlude-tmp` (a file: an output being written, an ad being
/// downloaded into the media cache) or `.NAME.PID.interlude-hls` (an HLS package's folder being
/// written, or a previous package set aside); the PID in the name says whose it is.
package enum TemporaryFiles {
    // MARK: cleanup on signals

    /// The temporary files to remove on a signal, and the signal sources once installed.
    private struct Cleanup {
        var pending: Set<String> = []
        var sources: [DispatchSourceSignal] = []
    }
    private static let cleanup = Locked(Cleanup())

    /// Remembers a temporary file to remove if the process is interrupted.
    package static func register(_ temporary: String) { cleanup.withLock { _ = $0.pending.insert(temporary) } }

    /// Forgets a temporary file (committed or removed).
    package static func unregister(_ temporary: String) { cleanup.withLock { _ = $0.pending.remove(temporary) } }

    /// Removes a temporary file and forgets it.
    package static func discard(_ temporary: String) {
        unlink(temporary)
        unregister(temporary)
    }

    /// Temporary files registered now (for tests and diagnostics).
    package static var registered: Set<String> { cleanup.withLock { $0.pending } }

    /// On SIGINT, SIGTERM or SIGHUP: removes every registered temporary file and exits with
    /// 128 + the signal number. Call once, early (the CLI does).
    package static func installSignalCleanup() {
        cleanup.withLock { c in
            guard c.sources.isEmpty else { return }
            for sig in [SIGINT, SIGTERM, SIGHUP] {
                signal(sig, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
                source.setEventHandler {
                    let paths = cleanup.withLock { $0.pending }
                    // registered paths are only Interlude's own temporary names: files, or an HLS
                    // package's staging folder
                    for p in paths where unlink(p) != 0 { try? FileManager.default.removeItem(atPath: p) }
                    _exit(128 + sig)
                }
                source.resume()
                c.sources.append(source)
            }
        }
    }

    // MARK: what killed runs left

    /// The process id in a name of Interlude's own temporaries, `.NAME.PID.interlude-tmp` (a file)
    /// or `.NAME.PID.interlude-hls` (an HLS package being written), or nil for any other name.
    package static func owner(_ name: String) -> (pid: pid_t, folder: Bool)? {
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
    /// exactly Interlude's pattern (`owner`), owned by this user, whose process is gone
    /// (`kill(pid, 0)` says ESRCH); files must be regular files, folders must hold only an HLS
    /// package's files. Anything else is never touched. Returns the names removed.
    @discardableResult
    package static func removeStale(in folder: String) -> [String] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        var removed: [String] = []
        for name in names {
            guard let owner = owner(name), owner.pid != getpid() else { continue }
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

    /// Whether a folder holds only regular files named like an HLS package's (m3u8, ts, m4s, mp4).
    package static func isPackageFolder(_ path: String) -> Bool {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { return false }
        for name in names {
            var st = stat()
            guard lstat(path + "/" + name, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return false }
            guard ["m3u8", "ts", "m4s", "mp4"].contains((name as NSString).pathExtension.lowercased()) else { return false }
        }
        return true
    }
}
