import Foundation
import Media
import Timing

/// Ads already encoded to an output profile, kept on disk so that the next stitch with the same
/// ad copies its packets instead of encoding it again. Keyed by the SHA-256 of the ad media
/// file's bytes and of the profile (output format, every libx264 option and libx264's own
/// parameter sets), bounded in size (least recently used entries go first). Entries are written
/// to a temporary name and renamed, so a reader never sees half an entry; a damaged entry is a miss.
final class AdTranscodeCache: Sendable {
    /// The folder.
    let directory: URL
    /// Most bytes kept.
    let maxBytes: Int64
    static let magic = Array("ILTC1\n".utf8)

    /// A cache in `directory` (created when missing) holding at most `maxBytes`.
    init(directory: URL, maxBytes: Int64 = 2 << 30) throws {
        self.directory = directory
        self.maxBytes = maxBytes
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// One encoded ad.
    struct Entry: Codable {
        /// Output frames the ad fills.
        var frames: Int
        /// The ad's source time of each output frame (value, timescale).
        var sourcePTS: [[Int64]]
        /// Where its segment ends in source time (value, timescale).
        var sourceEnd: [Int64]
        /// Absolute time of its first video frame (the origin of its audio), (value, timescale).
        var origin: [Int64]
        /// The end adjustment (rounding carried from earlier ads) it was encoded with; nil: none.
        var endAdjustment: [Int64]?
        /// Packets in decode order: presentation index from the ad's first frame, keyframe, bytes.
        var packets: [CachedPacket] = []

        enum CodingKeys: String, CodingKey { case frames, sourcePTS, sourceEnd, origin, endAdjustment }
    }

    struct CachedPacket {
        var index: Int64
        var key: Bool
        var bytes: [UInt8]
    }

    func url(for key: String) -> URL { directory.appendingPathComponent(key + ".iltc") }

    /// The entry for `key`, or nil (missing or unreadable). A hit marks the entry as recently used.
    func load(_ key: String) -> Entry? {
        let u = url(for: key)
        guard let data = try? Data(contentsOf: u, options: .mappedIfSafe) else { return nil }
        guard let entry = Self.decode(data) else { try? FileManager.default.removeItem(at: u); return nil }
        try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: u.path)
        return entry
    }

    /// Stores `entry` under `key`, then trims the cache to its bound.
    func store(_ entry: Entry, key: String) {
        var data = Data(Self.magic)
        guard let header = try? JSONEncoder().encode(entry) else { return }
        var n = UInt32(header.count).bigEndian
        data.append(Data(bytes: &n, count: 4))
        data.append(header)
        for p in entry.packets {
            var index = p.index.bigEndian, size = UInt32(p.bytes.count).bigEndian
            data.append(Data(bytes: &index, count: 8))
            data.append(p.key ? 1 : 0)
            data.append(Data(bytes: &size, count: 4))
            data.append(contentsOf: p.bytes)
        }
        let temp = directory.appendingPathComponent(".\(key).\(getpid()).partial")
        do {
            try data.write(to: temp)
            _ = rename(temp.path, url(for: key).path)
        } catch {
            try? FileManager.default.removeItem(at: temp)
        }
        trim()
    }

    /// The file format: magic, a JSON header, the packets.
    static func decodeFile(_ data: Data) -> Entry? {
        let b = [UInt8](data)
        guard b.count > magic.count + 4, Array(b[0..<magic.count]) == magic else { return nil }
        var i = magic.count
        func uint(_ bytes: Int) -> UInt64? {
            guard i + bytes <= b.count else { return nil }
            var v: UInt64 = 0
            for k in 0..<bytes { v = v << 8 | UInt64(b[i + k]) }
            i += bytes
            return v
        }
        guard let n = uint(4), i + Int(n) <= b.count,
              var entry = try? JSONDecoder().decode(Entry.self, from: Data(b[i..<i + Int(n)])) else { return nil }
        i += Int(n)
        while i < b.count {
            guard let index = uint(8), let key = uint(1), let size = uint(4), i + Int(size) <= b.count else { return nil }
            entry.packets.append(CachedPacket(index: Int64(bitPattern: index), key: key == 1, bytes: Array(b[i..<i + Int(size)])))
            i += Int(size)
        }
        return entry
    }

    /// An ad's entry: `decodeFile`, and one keyframe-first packet per frame.
    static func decode(_ data: Data) -> Entry? {
        guard let entry = decodeFile(data), entry.frames > 0, entry.sourcePTS.count == entry.frames, !entry.packets.isEmpty,
              entry.packets.count == entry.frames, entry.packets.first?.key == true else { return nil }
        return entry
    }

    /// Entry `key` in the file format whatever it holds (`AudioRunCache`'s packets); a damaged one
    /// is removed.
    func loadFile(_ key: String) -> Entry? {
        let u = url(for: key)
        guard let data = try? Data(contentsOf: u, options: .mappedIfSafe) else { return nil }
        guard let entry = Self.decodeFile(data) else { try? FileManager.default.removeItem(at: u); return nil }
        try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: u.path)
        return entry
    }

    /// Removes least recently used entries until the cache fits its bound.
    func trim() {
        let fm = FileManager.default
        guard let names = try? fm.contentsOfDirectory(at: directory, includingPropertiesForKeys: [.fileSizeKey, .contentModificationDateKey]) else { return }
        var files = names.filter { $0.pathExtension == "iltc" }.compactMap { u -> (URL, Int64, Date)? in
            guard let v = try? u.resourceValues(forKeys: [.fileSizeKey, .contentModificationDateKey]) else { return nil }
            return (u, Int64(v.fileSize ?? 0), v.contentModificationDate ?? .distantPast)
        }
        var total = files.reduce(0) { $0 + $1.1 }
        files.sort { $0.2 < $1.2 }
        for f in files where total > maxBytes {
            try? fm.removeItem(at: f.0)
            total -= f.1
        }
    }
}

extension MediaTime {
    var pair: [Int64] { [value, timescale] }
    init?(pair: [Int64]) {
        guard pair.count == 2, pair[1] > 0 else { return nil }
        self.init(value: pair[0], timescale: pair[1])
    }
}
