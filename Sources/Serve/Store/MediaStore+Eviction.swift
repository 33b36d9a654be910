import Foundation

extension MediaStore {
    /// Marks segments as referenced by a live session: the units holding them are not evicted
    /// until as many `unpin` calls release them.
    public func pin(_ paths: [String]) {
        state.withLock { s in for p in paths { s.pins[p, default: 0] += 1 } }
    }

    /// Releases segments pinned by `pin`.
    public func unpin(_ paths: [String]) {
        state.withLock { s in
            for p in paths {
                guard let n = s.pins[p] else { continue }
                s.pins[p] = n > 1 ? n - 1 : nil
            }
        }
    }

    /// Removes least recently used units until the store fits in `maxBytes`; never a unit with a
    /// pinned file, nor `keeping` (just made for a caller). `s`: the state, its lock held.
    ///
    /// A rung's slate pieces go together: each continues the previous one's MPEG-TS stream, so
    /// one is kept while any of them is pinned (or just made), and removing one removes them all.
    /// A store whose transcodes go to a job queue shares its folder with workers and other nodes:
    /// one node's LRU would remove files the others' sessions play, so it never evicts.
    func evictPastBound(_ s: inout State, keeping: String) {
        guard options.jobQueue == nil else { return }
        let units = s.index.units, pins = s.pins
        func group(_ u: StoreIndex.Unit) -> [StoreIndex.Unit] {
            guard u.kind == "slate" else { return [u] }
            let folder = (u.key as NSString).deletingLastPathComponent
            return units.values.filter { $0.kind == "slate" && ($0.key as NSString).deletingLastPathComponent == folder }
        }
        let chosen = s.index.victims(maxBytes: options.maxBytes) { u in
            group(u).contains { g in g.key == keeping || g.files.contains { pins[$0] != nil } }
        }
        guard !chosen.isEmpty else { return }
        var victims: [StoreIndex.Unit] = []
        for u in chosen { for g in group(u) where !victims.contains(where: { $0.key == g.key }) { victims.append(g) } }
        // every path is removed through `StoreFile.remove`: never through a link planted on the way
        for u in victims {
            s.index.remove(u.key)
            for f in u.files { StoreFile.remove(f, in: root) }
            if let folder = u.folder { StoreFile.remove(folder, in: root) }
            forget(&s, u)
        }
    }

    /// Drops what memory knew of an evicted unit, so that the next request makes it again.
    private func forget(_ s: inout State, _ u: StoreIndex.Unit) {
        switch u.kind {
        case "content":
            for (name, p) in s.packaged where p.renditions.contains(where: { $0.segments.first.map { u.files.contains($0.path) } ?? false }) {
                s.packaged[name] = nil
            }
        case "ad":
            for (sha, r) in s.adBySHA {
                if case .ready(let segs, _) = r, segs.contains(where: { u.files.contains($0.path) }) { s.adBySHA[sha] = nil }
            }
        default:
            break   // cuts and slate pieces are found on disk by their key
        }
    }
}
