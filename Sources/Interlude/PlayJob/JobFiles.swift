// The one place that knows every file a job reads and every file or folder it writes, and
// refuses, before any work, an output that is (or resolves to) one of its inputs.
import Files
import Foundation
import Playback

/// The files of one job run (`StitchJob`, `PlayJob`): what it reads (content, ad media, tags, session scripts,
/// layouts, native formats and responses…) and what it writes (`-o`, `--report`, `--events`,
/// `--companions`). Every output must differ from every input and from every other output —
/// the same file by device and inode, or the same path once its folder is resolved — with or
/// without `-y`; an output folder that is replaced (an HLS package) may not hold an input.
package struct JobFiles: Sendable {
    /// What is read: the option that names it, and the path (URLs other than `file://` are not files).
    package var inputs: [(role: String, path: String)] = []
    /// Files written: the option, and the path (`-` is standard output and never a file).
    package var outputs: [(role: String, path: String)] = []
    /// Folders written into: the option, the path, and whether the whole folder is replaced
    /// (an HLS package) or only files named `prefix…` appear in it (`--companions DIR`).
    package var folders: [(role: String, path: String, replaced: Bool, prefix: String)] = []

    /// No files yet.
    package init() {}

    /// Adds an input given as a path or a URL; remote URLs are left out (they are not local files).
    package mutating func input(_ role: String, _ value: String?) {
        guard let value, !value.isEmpty else { return }
        if value.lowercased().hasPrefix("file://") {
            inputs.append((role, URL(string: value)?.path ?? String(value.dropFirst(7))))
        } else if !value.contains("://") {
            inputs.append((role, value))
        }
    }

    /// Adds a file output (`-` and nil are not files).
    package mutating func output(_ role: String, _ value: String?) {
        guard let value, value != "-", !value.isEmpty else { return }
        outputs.append((role, value))
    }

    /// The path with its folder resolved (symlinks and `..` in the folder followed), for
    /// comparing a file that does not exist yet; the path itself when the folder cannot be resolved.
    static func resolved(_ path: String) -> String {
        let folder = OutputTarget.folderOf(path), name = OutputTarget.nameOf(path)
        guard let real = realpath(folder, nil) else { return path }
        defer { free(real) }
        let f = String(cString: real)
        return (f == "/" ? "" : f) + "/" + name
    }

    /// Whether two paths are one file: same device and inode when both exist (a hard link, a
    /// symlink or another spelling), else the same resolved path.
    static func same(_ a: String, _ b: String) -> Bool {
        var sa = stat(), sb = stat()
        if stat(a, &sa) == 0, stat(b, &sb) == 0 { return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino }
        return resolved(a) == resolved(b)
    }

    /// Whether `path` lies inside `folder` (after resolving both).
    static func inside(_ path: String, _ folder: String) -> Bool {
        var real = resolved(path)
        if let r = realpath(path, nil) { real = String(cString: r); free(r) }
        var dir = resolved(folder)
        if let r = realpath(folder, nil) { dir = String(cString: r); free(r) }
        return real.hasPrefix(dir == "/" ? "/" : dir + "/")
    }

    /// The first output that is an input or another output, as one line; nil when none is.
    package func conflict() -> String? {
        for (i, out) in outputs.enumerated() {
            if let input = inputs.first(where: { JobFiles.same($0.path, out.path) }) {
                return "\(out.role) \(out.path) is the \(input.role) input \(input.path); refused (an input is never written)"
            }
            if let other = outputs[..<i].first(where: { JobFiles.same($0.path, out.path) }) {
                return "\(out.role) \(out.path) is also the \(other.role) output; refused"
            }
        }
        for folder in folders {
            for input in inputs where JobFiles.inside(input.path, folder.path)
                && (folder.replaced || OutputTarget.nameOf(input.path).hasPrefix(folder.prefix)) {
                return "\(folder.role) \(folder.path) would replace the \(input.role) input \(input.path); refused"
            }
            if folder.replaced, let out = outputs.first(where: { JobFiles.inside($0.path, folder.path) }) {
                return "\(out.role) \(out.path) is inside the \(folder.role) folder \(folder.path); refused"
            }
        }
        return nil
    }

    /// The first local input that cannot be read as a file without blocking or failing (a FIFO,
    /// a device, a folder), as one line; nil when every one is a regular file or missing (a
    /// missing input is reported where it is read).
    package func unreadableInput() -> String? {
        for input in inputs {
            var st = stat()
            guard stat(input.path, &st) == 0 else { continue }
            if let refusal = LocalFile.refusal(mode: st.st_mode, need: "inputs must be regular files or URLs") {
                return "\(input.role) \(input.path) \(refusal)"
            }
        }
        return nil
    }
}
