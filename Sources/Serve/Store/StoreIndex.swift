import Foundation

/// What the store holds, for the size bound and for a restart: units (a packaged content, a cut
/// piece, an ad rendition, a slate piece), each a set of files, its size and when it was last
/// used. `index.json` in the store's root, written to a temporary name and renamed.
///
/// Not thread-safe: the store calls it under its lock.
struct StoreIndex: Codable {
    /// One thing evicted or kept as a whole.
    struct Unit: Codable, Equatable {
        var key: String
        var kind: String
        /// Store-relative paths; a content's folder is removed with it.
        var files: [String]
        /// Store-relative folder removed with the unit (a content package), if any.
        var folder: String?
        var bytes: Int64
        var lastUsed: Double
        /// Each file's size when registered (nil in an index written before sizes were kept): a
        /// file whose size differs is not the one registered, and is never served.
        var sizes: [String: Int64]?
    }

    private(set) var units: [String: Unit] = [:]
    private var fileUnit: [String: String] = [:]

    enum CodingKeys: String, CodingKey { case units }

    init() {}

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        units = try c.decode([String: Unit].self, forKey: .units)
        for (k, u) in units { for f in u.files { fileUnit[f] = k } }
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(units, forKey: .units)
    }

    var totalBytes: Int64 { units.values.reduce(0) { $0 + $1.bytes } }

    /// The unit holding store-relative `path`.
    func unit(holding path: String) -> Unit? { fileUnit[path].flatMap { units[$0] } }

    /// Adds (or replaces) a unit.
    mutating func add(_ unit: Unit) {
        if let old = units[unit.key] { for f in old.files { fileUnit[f] = nil } }
        units[unit.key] = unit
        for f in unit.files { fileUnit[f] = unit.key }
    }

    /// Marks the unit holding `path` (or keyed `key`) used now.
    mutating func touch(path: String? = nil, key: String? = nil, now: Double) {
        guard let k = key ?? path.flatMap({ fileUnit[$0] }) else { return }
        units[k]?.lastUsed = now
    }

    /// Removes a unit from the index (its files are the caller's to delete).
    mutating func remove(_ key: String) {
        guard let u = units.removeValue(forKey: key) else { return }
        for f in u.files { fileUnit[f] = nil }
    }

    /// The units to evict, least recently used first, so that the rest fits in `maxBytes`;
    /// units for which `pinned` is true are never chosen.
    func victims(maxBytes: Int64, pinned: (Unit) -> Bool) -> [Unit] {
        var total = totalBytes
        guard total > maxBytes else { return [] }
        var out: [Unit] = []
        for u in units.values.sorted(by: { ($0.lastUsed, $0.key) < ($1.lastUsed, $1.key) }) where !pinned(u) {
            guard total > maxBytes else { break }
            out.append(u)
            total -= u.bytes
        }
        return out
    }
}
