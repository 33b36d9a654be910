import CFFmpeg
import Foundation

/// SHA-256 of bytes or of a file's content (libavutil's hash), as lower-case hex.
public final class ContentHash {
    private var context: OpaquePointer?

    /// A fresh SHA-256.
    public init() throws {
        try check(av_hash_alloc(&context, "SHA256"), "allocating a hash")
        av_hash_init(context)
    }

    deinit { av_hash_freep(&context) }

    /// Adds bytes.
    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        av_hash_update(context, base.assumingMemoryBound(to: UInt8.self), bytes.count)
    }

    /// The digest as hex (the hash cannot be updated afterwards).
    public func finish() -> String {
        var out = [UInt8](repeating: 0, count: 65)
        av_hash_final_hex(context, &out, 65)
        return String(decoding: out.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// SHA-256 of `data`.
    public static func sha256(_ data: Data) throws -> String {
        let h = try ContentHash()
        data.withUnsafeBytes { h.update($0) }
        return h.finish()
    }

    /// SHA-256 of `text`'s UTF-8 bytes.
    public static func sha256(_ text: String) throws -> String { try sha256(Data(text.utf8)) }

    /// SHA-256 of the file at `path`, read in 1 MiB pieces.
    public static func sha256(fileAt path: String) throws -> String {
        let h = try ContentHash()
        guard let handle = FileHandle(forReadingAtPath: path) else { throw MediaError.unsupported("cannot read \(path)") }
        defer { try? handle.close() }
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            chunk.withUnsafeBytes { h.update($0) }
        }
        return h.finish()
    }
}
