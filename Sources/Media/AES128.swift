import CFFmpeg
import Foundation

/// AES-128 in CBC mode with PKCS#7 padding, as HLS encrypts whole segments (`METHOD=AES-128`,
/// RFC 8216 §4.3.2.4), on libavutil's AES. Used to read an encrypted origin segment's frames;
/// the segment itself is kept and served as it came. Also raw CBC blocks without padding, for
/// the tests' CENC `cbcs` fixtures.
public enum AES128 {
    /// Why bytes cannot be decrypted (or encrypted).
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// One line.
        public var description: String
    }

    /// `data` decrypted with `key` (16 bytes) and `iv` (16 bytes), its padding removed.
    public static func decryptCBC(_ data: Data, key: [UInt8], iv: [UInt8]) throws -> Data {
        guard key.count == 16, iv.count == 16 else { throw Failure(description: "an AES-128 key and IV are 16 bytes each") }
        guard !data.isEmpty, data.count % 16 == 0 else { throw Failure(description: "\(data.count) bytes is not a whole number of AES blocks") }
        // one owner: the context lives in this call only
        guard let aes = av_aes_alloc() else { throw Failure(description: "out of memory") }
        defer { av_free(UnsafeMutableRawPointer(aes)) }
        guard av_aes_init(aes, key, 128, 1) == 0 else { throw Failure(description: "the key was refused") }
        var out = [UInt8](repeating: 0, count: data.count)
        var chain = iv
        data.withUnsafeBytes { src in
            out.withUnsafeMutableBufferPointer { dst in
                av_aes_crypt(aes, dst.baseAddress, src.bindMemory(to: UInt8.self).baseAddress, Int32(data.count / 16), &chain, 1)
            }
        }
        guard let pad = out.last, (1...16).contains(pad), out.suffix(Int(pad)).allSatisfy({ $0 == pad }) else {
            throw Failure(description: "wrong key or IV (the padding does not check)")
        }
        return Data(out.dropLast(Int(pad)))
    }

    /// Encrypts `bytes[range]` in place with AES-128-CBC under `key` (16 bytes): whole 16-byte
    /// blocks, no padding. `chain` (16 bytes) is the IV going in and the last ciphertext block
    /// coming out, so a later call continues the same chain (CENC `cbcs` encrypts one block, skips
    /// nine, and chains across the skipped ones).
    public static func encryptCBCBlocks(_ bytes: inout [UInt8], range: Range<Int>, key: [UInt8], chain: inout [UInt8]) throws {
        guard key.count == 16, chain.count == 16 else { throw Failure(description: "an AES-128 key and IV are 16 bytes each") }
        guard range.lowerBound >= 0, range.upperBound <= bytes.count else {
            throw Failure(description: "bytes \(range) are outside the \(bytes.count) given")
        }
        guard range.count % 16 == 0, range.count / 16 <= Int(Int32.max) else {
            throw Failure(description: "\(range.count) bytes is not a whole number of AES blocks (at most 2^31)")
        }
        guard !range.isEmpty else { return }
        // one owner: the context lives in this call only
        guard let aes = av_aes_alloc() else { throw Failure(description: "out of memory") }
        defer { av_free(UnsafeMutableRawPointer(aes)) }
        guard av_aes_init(aes, key, 128, 0) == 0 else { throw Failure(description: "the key was refused") }
        bytes.withUnsafeMutableBufferPointer { buffer in
            // in place: libavutil's CBC encryption reads each block before it writes it
            let block = buffer.baseAddress.map { $0 + range.lowerBound }
            av_aes_crypt(aes, block, block, Int32(range.count / 16), &chain, 0)
        }
    }
}
