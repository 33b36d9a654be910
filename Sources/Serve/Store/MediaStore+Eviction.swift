import Foundation

extension MediaStore {
    /// Marks segments as referenced by a live session: the units holding them are not evicted
    /// until as many `unpin` calls release them.
    public func pin(_ paths: [String]) {
        lock.withLock { for p in paths { pins[p, default: 0] += 1 } }
    }

    /// Releases segments pinned by `pin`.
    public func unpin(_ paths: [String]) {
        lock.withLock {
            for p in paths {
                guard let n = pins[p] else { continue }
                pins[p] = n > 1 ? n - 1 : nil
            }
        }
    }

    /// Removes least recently used units until the store fits in `maxBytes`; never a unit with a
    /// pinned file, nor `keeping` (just made for a caller). Under the lock.
    func evictPastBound(keeping: String) {
        let victims = index.victims(maxBytes: options.maxBytes) { u in
            u.key == keeping || u.files.contains { pins[$0] != nil }
        }
        guard !victims.isEmpty else { return }
        let fm = FileManager.default
        for u in victims {
            index.remove(u.key)
            for f in u.files { try? fm.removeItem(at: root.appendingPathComponent(f)) }
            if let folder = u.folder { try? fm.removeItem(at: root.appendingPathComponent(folder)) }
            forget(u)
        }
    }

    /// Drops what memory knew of an evicted unit, so that the next request makes it again.
    private func forget(_ u: StoreIndex.Unit) {
        switch u.kind {
        case "content":
            for (name, p) in packaged where p.renditions.contains(where: { $0.segments.first.map { u.files.contains($0.path) } ?? false }) {
                packaged[name] = nil
            }
        case "ad":
            for (sha, r) in adBySHA {
                if case .ready(let segs, _) = r, segs.contains(where: { u.files.contains($0.path) }) { adBySHA[sha] = nil }
            }
        default:
            break   // cuts and slate pieces are found on disk by their key
        }
    }
}
