import Foundation
import Threads
import Timing

extension MediaStore {
    /// The frames of the stored MPEG-TS segment at store-relative `path` (a live segment
    /// `live/<channel>/<rung>/<msn>.ts`, an HLS origin's segment or an ad's `ads/<sha>/<rung>/segN.ts`)
    /// whose PTS lie in `[from, to)`: from the first frame with PTS ≥ `from` to before the first
    /// frame with PTS ≥ `to`. Bounds are 90 kHz ticks on the segment's own clock, unwrapped or
    /// modulo 2^33 (compared modulo 2^33 near the segment's first PTS); nil is the segment's start
    /// or end. Nil when the range holds no frame; the segment itself when it holds every frame.
    ///
    /// Frame-exact (`SegmentCutMaker`): GOPs wholly inside are the origin's packets, a GOP a bound
    /// splits is decoded and its frames inside encoded again at `rendition` (the segment's rung:
    /// its size and bitrate), an IDR first; sound before a cut is the origin's packets, after a
    /// cut the origin's sound encoded again from the cut's frame on (`CutSound`), and so at the
    /// segment's start too when `afterJoin` (the piece follows an ad or slate) and the segment's
    /// own sound starts after its first picture; timestamps are the origin's. The duration is the PTS of the first frame at or after `to` (or the segment's
    /// end: its last frame's PTS plus one frame) minus the PTS of the piece's first frame. A piece
    /// that starts at the segment's first frame continues the origin's MPEG-TS stream; one that
    /// starts at a cut is a new stream (put `EXT-X-DISCONTINUITY` before it); one that ends at the
    /// segment's end ends where the origin segment did, so the next origin segment follows it.
    ///
    /// Made once per (path, first frame, frame after) and shared by every caller, concurrent or
    /// later, and by other processes sharing the folder: stored as
    /// `cuts/live/<path without .ts>-<first PTS>-<PTS after or "end">[-s].ts` (PTS modulo 2^33;
    /// `-s`: a segment start whose sound was made again),
    /// registered in the index as kind "cut" (`encodeCounts()["cut"]` counts the encodes).
    public func segmentPiece(_ path: String, rendition: Rendition, from: Int64?, to: Int64?,
                             afterJoin: Bool = false) async throws -> StoredSegment? {
        guard MediaStore.isSafeRelativePath(path), path.hasSuffix(".ts") else { throw StoreError.unsupported("cut: '\(path)' is not a stored segment path") }
        let file = root.appendingPathComponent(path)
        guard let st = StoreFile.regular(path, in: root) else { throw StoreError.unsupported("cut: the store holds no segment \(path)") }
        // the plan (which frames) is remembered per file version and bounds: a session's every
        // playlist refresh asks again
        let memoKey = "\(file.path) \(st.st_size) \(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec) \(from.map(String.init) ?? "-") \(to.map(String.init) ?? "-") \(afterJoin)"
        let known = LiveCutPlans.shared.plan(memoKey)
        let resolved: SegmentCutMaker.Plan?
        if let known { resolved = known.plan } else {
            resolved = try await onOwnThread("live cut plan", { SegmentCutMaker.plan(try SegmentCutMaker.Segment(file), from: from, to: to, afterJoin: afterJoin) })
            LiveCutPlans.shared.remember(memoKey, resolved)
        }
        guard let plan = resolved else { return nil }
        if plan.isWhole { return StoredSegment(path: path, duration: plan.duration) }
        let wrap = SegmentCutMaker.wrap
        let mod = { (t: Int64) in ((t % wrap) + wrap) % wrap }
        let key = "cuts/live/\(path.dropLast(3))-\(mod(plan.start))-\(plan.end.map { String(mod($0)) } ?? "end")\(plan.resound ? "-s" : "").ts"
        let root = self.root
        return try await pieceMadeOnce(key, kind: "cut", duration: plan.duration) { output in
            let segment = try SegmentCutMaker.Segment(file)
            guard SegmentCutMaker.plan(segment, from: from, to: to, afterJoin: afterJoin) == plan else {
                throw StoreError.unsupported("cut: \(path) changed while it was cut")
            }
            let previous = MediaStore.previousSegmentPaths(path).lazy.filter { StoreFile.regular($0, in: root) != nil }
                .compactMap { try? SegmentCutMaker.Segment(root.appendingPathComponent($0)) }.first
            try SegmentCutMaker.piece(segment, plan: plan, rendition: rendition, previous: previous, output: output)
        }
    }

    /// Removes the pieces cut from the segment at `path` (`segmentPiece`), in the index and on
    /// disk, except those a session has pinned: for a live segment that left the channel's
    /// window. Returns how many were removed.
    @discardableResult
    public func removeSegmentPieces(of path: String) -> Int {
        guard MediaStore.isSafeRelativePath(path), path.hasSuffix(".ts") else { return 0 }
        let prefix = "cuts/live/\(path.dropLast(3))-"
        let folder = (prefix as NSString).deletingLastPathComponent
        let namePrefix = (prefix as NSString).lastPathComponent
        let fm = FileManager.default
        return state.withLock { s in
            var keys = Set(s.index.units.values.filter { $0.kind == "cut" && $0.key.hasPrefix(prefix) }.map(\.key))
            // listed only when a real folder inside the store (never through a planted link)
            let listed = StoreFile.isFolder(folder, in: root) ? (try? fm.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)) ?? [] : []
            for name in listed where name.hasPrefix(namePrefix) && name.hasSuffix(".ts") {
                keys.insert("\(folder)/\(name)")
            }
            var removed = 0
            for key in keys where s.pins[key] == nil && s.pieceTasks[key] == nil {
                s.index.remove(key)
                StoreFile.remove(key, in: root)
                removed += 1
            }
            if removed > 0 { saveIndex(s.index) }
            return removed
        }
    }

    /// The names the segment before `path` may have: `<n>.ts` (a live segment's media sequence
    /// number) or `<letters><n>.ts` (`seg00003.ts`, `seg3.ts`), with the digits as wide or plain;
    /// none for the first.
    static func previousSegmentPaths(_ path: String) -> [String] {
        guard path.hasSuffix(".ts") else { return [] }
        let name = path.split(separator: "/").last.map { String($0.dropLast(3)) } ?? ""
        let digits = String(name.reversed().prefix { $0.isASCII && $0.isNumber }.reversed())
        guard !digits.isEmpty, digits.count <= 18, let n = Int(digits), n > 0 else { return [] }
        let folder = String(path.dropLast(name.count + 3)) + name.dropLast(digits.count)
        let plain = String(n - 1)
        let wide = String(repeating: "0", count: max(0, digits.count - plain.count)) + plain
        return Array(Set([wide, plain])).sorted().map { folder + $0 + ".ts" }
    }

    /// Registers a live rung (e.g. from `LiveSegmentProbe`), so that `ad(mediaURL:rendition:)`
    /// transcodes ads to its size and bitrate and `slate(rendition:duration:)` makes slate for it.
    /// Registering the same rung again does nothing; a different rung under a name the store
    /// already knows is refused. Its frame rate (the channel's) is the ads' and the slate's.
    public func addRendition(_ r: Rendition) throws {
        guard !r.name.isEmpty, r.name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_".contains($0)) }) else {
            throw StoreError.unsupported("rendition name '\(r.name)' must be letters, digits, - or _")
        }
        guard r.width > 0, r.height > 0, r.width % 2 == 0, r.height % 2 == 0, r.width <= 8192, r.height <= 8192,
              r.videoBitrate > 0, r.audioBitrate > 0 else {
            throw StoreError.unsupported("rendition \(r.name): \(r.width)x\(r.height) at \(r.videoBitrate)+\(r.audioBitrate) b/s is not a rung the store encodes")
        }
        try state.withLock { s throws in
            if let known = s.renditions[r.name], known != r {
                throw StoreError.unsupported("rendition \(r.name) is already \(known.width)x\(known.height) at \(known.videoBitrate) b/s")
            }
            s.renditions[r.name] = r
        }
    }
}

/// Plans of recent `segmentPiece` calls, by file version and bounds (a bounded memory: cleared
/// when full).
final class LiveCutPlans: Sendable {
    static let shared = LiveCutPlans()
    static let capacity = 4096
    /// A remembered answer: the plan, or nil for a range without a frame.
    struct Entry { var plan: SegmentCutMaker.Plan? }
    private let plans = Locked<[String: Entry]>([:])

    /// What was remembered for `key`, if anything.
    func plan(_ key: String) -> Entry? { plans.withLock { $0[key] } }

    /// Remembers `plan` for `key` (forgetting every other one when full).
    func remember(_ key: String, _ plan: SegmentCutMaker.Plan?) {
        plans.withLock { plans in
            if plans.count >= LiveCutPlans.capacity { plans.removeAll(keepingCapacity: true) }
            plans[key] = Entry(plan: plan)
        }
    }
}
