import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reading a small local file the user named (a session script, a layout, an image) without ever
/// blocking: it is opened non-blocking and must be a regular file (a FIFO would wait for a writer
/// for ever, a device never end), of at most `maxBytes`.
package enum LocalFile {
    /// Why a file could not be read: one line naming it.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        /// One line.
        package var description: String
    }

    /// Why a file of `mode` (`stat`'s `st_mode`) cannot be read as a regular file, as the end of a
    /// line ("is a FIFO; refused (NEED)"), or nil for a regular file: a FIFO would wait for a writer
    /// for ever, a device never end.
    package static func refusal(mode: mode_t, need: String) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFIFO: return "is a FIFO; refused (\(need))"
        case S_IFCHR, S_IFBLK: return "is a device; refused (\(need))"
        case S_IFDIR: return "is a directory"
        default: return "is not a regular file; refused"
        }
    }

    /// The first `bytes` bytes of `path` when it is a regular file that can be read; nil otherwise
    /// (missing, a FIFO, a device, a folder), without blocking.
    package static func head(_ path: String, bytes: Int) -> Data? {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
        var buffer = [UInt8](repeating: 0, count: bytes)
        let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        return n >= 0 ? Data(buffer[0..<n]) : nil
    }

    /// The bytes of the regular file at `path` (`what` names it in errors: "session script").
    package static func read(_ path: String, maxBytes: Int, what: String) throws(Failure) -> Data {
        // O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(description: "cannot read \(what) \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw Failure(description: "cannot read \(what) \(path): \(String(cString: strerror(errno)))") }
        if let refusal = refusal(mode: st.st_mode, need: "a regular file is needed") { throw Failure(description: "\(what) \(path) \(refusal)") }
        guard Int(st.st_size) <= maxBytes else { throw Failure(description: "\(what) \(path) is larger than \(maxBytes) bytes") }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw Failure(description: "cannot read \(what) \(path): \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            data.append(contentsOf: buffer[0..<n])
            guard data.count <= maxBytes else { throw Failure(description: "\(what) \(path) is larger than \(maxBytes) bytes") }
        }
        return data
    }
}
