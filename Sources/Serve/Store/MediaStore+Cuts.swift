import Foundation
import Timing

extension PackagedContent {
    /// The store key of the package ("content/<key>/…" → "<key>").
    var storeKey: String { renditions.first?.segments.first.map { String($0.path.split(separator: "/")[1]) } ?? "" }
}

extension MediaStore {
    /// One rung of `content` cut at `cues` (content times, on the timeline the stitch counts from:
    /// `ContentTimeline`): each cue moved to the first frame at or after it,
    /// runs of origin segments and, where a cue falls inside a segment, shared pieces made once
    /// per (content, rung, segment, piece bounds) and reused by every later call. A run after a
    /// cue starts with a piece even where the cue is a segment's start when that segment's sound
    /// starts after its first picture: its sound is made from the cue's frame on (`CutSound`), so
    /// that no gap opens before it at the join.
    public func cut(_ content: String, rendition: String, at cues: [MediaTime]) async throws -> CutContent {
        let p = try await packagedContent(content)
        guard let rung = p.rendition(rendition) else { throw StoreError.unknownRendition(rendition) }
        let lead = p.videoStart
        let encrypted = rung.segments.contains { $0.encryption != nil }
        let frames = Array(Set(cues.map { cue -> Int in
            let n = cue <= lead ? 0 : Int((cue - lead).count(of: p.period, rounding: .up))
            // an encrypted segment cannot be cut (its pictures cannot be read again): the break
            // goes in at the nearest segment boundary
            return encrypted ? Self.nearestBoundary(n, rung.segments) : min(n, p.frameCount)
        })).sorted()
        let bounds = [0] + frames + [p.frameCount]
        var runs: [[StoredSegment]] = []
        for i in 0..<(bounds.count - 1) {
            let (s, e) = (bounds[i], bounds[i + 1])
            var run: [StoredSegment] = []
            for (k, span) in rung.segments.enumerated() where span.endFrame > s && span.startFrame < e {
                let a = max(s, span.startFrame), b = min(e, span.endFrame)
                // a run's first segment after a cue whose own sound starts after its picture
                let afterJoin = i > 0 && a == s && a == span.startFrame && span.encryption == nil && soundStartsLate(span.path)
                if a == span.startFrame && b == span.endFrame && !afterJoin {
                    run.append(StoredSegment(path: span.path, duration: p.period * Int64(b - a), encryption: span.encryption))
                } else {
                    run.append(try await piece(p, rung: rung, segment: k, from: a, to: b, afterJoin: afterJoin))
                }
            }
            runs.append(run)
        }
        return CutContent(cues: frames.map { lead + p.period * Int64($0) }, runs: runs)
    }

    /// The segment boundary (a span's start frame, or the end) nearest frame `n`, the earlier of two as near.
    static func nearestBoundary(_ n: Int, _ spans: [SegmentSpan]) -> Int {
        let bounds = spans.map(\.startFrame) + [spans.last?.endFrame ?? 0]
        return bounds.min { (abs($0 - n), $0) < (abs($1 - n), $1) } ?? 0
    }

    /// Whether the packaged segment at `path` has its sound start after its first picture
    /// (`TSTimestamps.soundStartsLate`), read from the file the first time it is asked (every
    /// session's cut asks) and remembered: a packaged segment never changes.
    func soundStartsLate(_ path: String) -> Bool {
        if let known = state.withLock({ $0.lateSound[path] }) { return known }
        let late = StoreFile.read(root.appendingPathComponent(path), maxBytes: 1 << 28).map(TSTimestamps.soundStartsLate) ?? false
        state.withLock { $0.lateSound[path] = late }
        return late
    }

    /// The piece `[a, b)` of segment `k`: from the store when made before, else made now (once,
    /// however many callers ask at the same time).
    private func piece(_ p: PackagedContent, rung: PackagedRendition, segment k: Int, from a: Int, to b: Int,
                       afterJoin: Bool) async throws -> StoredSegment {
        let path = "cuts/\(p.storeKey)/\(rung.rendition.name)/seg\(String(format: "%05d", k))-\(a)-\(b)\(afterJoin ? "-s" : "").ts"
        let root = self.root
        // what the cut reads (the rung's segments up to this one, its encoded video) is read only
        // as regular files inside the store, never through a link planted since the package loaded
        let reads = rung.segments[...k].map(\.path) + (rung.copied ? [] : [rung.video])
        guard reads.allSatisfy({ StoreFile.regular($0, in: root) != nil }) else {
            throw StoreError.unsupported("cut: \(p.name) \(rung.rendition.name): a stored file it reads is missing or not a regular file")
        }
        return try await pieceMadeOnce(path, kind: "cut", duration: p.period * Int64(b - a)) { output in
            try CutMaker.piece(content: p, rung: rung, segment: k, from: a, to: b, soundFromFirstPicture: afterJoin, root: root, output: output)
        }
    }
}
