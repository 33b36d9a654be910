import Foundation

extension StoreIndex.Unit {
    /// The store-relative prefix every file of a unit of `kind` lies under; nil for an unknown kind.
    static func prefix(ofKind kind: String) -> String? {
        switch kind {
        case "content": "content/"
        case "cut": "cuts/"
        case "ad": "ads/"
        case "slate": "slate/"
        default: nil
        }
    }

    /// This unit as read back from an `index.json` (which anyone who can write the store can
    /// plant), checked against the folder at `root`: nil unless its shape is one the store
    /// writes (a content `content/<key>` or an ad `ads/<sha>/<rung>` keyed and foldered by its
    /// prefix, every file under it; a cut or slate piece one file keyed by its path), every path
    /// is plain (`MediaStore.isSafeRelativePath`), every file is a regular file reached through
    /// real folders (no link), and each file's size is the one recorded, when one is. Its bytes
    /// and sizes are then what the disk holds, not what the record says.
    func checked(in root: URL) -> StoreIndex.Unit? {
        guard let prefix = StoreIndex.Unit.prefix(ofKind: kind), MediaStore.isSafeRelativePath(key), key.hasPrefix(prefix),
              !files.isEmpty, files.count <= 100_000, Set(files).count == files.count else { return nil }
        let depth = key.split(separator: "/").count
        switch kind {
        case "content", "ad":
            guard folder == key, depth == (kind == "content" ? 2 : 3), StoreFile.isFolder(key, in: root),
                  files.allSatisfy({ $0.hasPrefix(key + "/") }) else { return nil }
        default:
            guard folder == nil, files == [key] else { return nil }
        }
        var unit = self
        var found: [String: Int64] = [:]
        for f in files {
            guard MediaStore.isSafeRelativePath(f), let st = StoreFile.regular(f, in: root) else { return nil }
            if let recorded = sizes?[f], recorded != Int64(st.st_size) { return nil }
            found[f] = Int64(st.st_size)
        }
        unit.sizes = found
        unit.bytes = found.values.reduce(0, +)
        guard lastUsed.isFinite else { return nil }
        return unit
    }
}
