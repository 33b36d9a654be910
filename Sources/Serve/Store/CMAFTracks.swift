import Foundation
import Media
import Threads
import Timing

/// The CMAF tracks of stored MPEG-TS segments, what the DASH answers send: a segment
/// `PATH` (`….ts`) is also served as `PATH.v.m4s` and `PATH.a.m4s` (its video and audio as CMAF
/// media segments) with `PATH.v.mp4` and `PATH.a.mp4` (their initialization segments), made by
/// `CMAFTrackRemux` (packets copied) the first time one is asked for and kept in memory up to a
/// byte budget, the least recently used going first (each clock shift an HLS session asks for,
/// `o=`, its own entry). A content segment's tracks are made once
/// per node and shared by every session, as its TS is; the TS stays the one stored form.
final class CMAFTracks: Sendable {
    /// Which file of a segment's CMAF tracks.
    enum Part: String, Sendable, CaseIterable {
        /// The video track's initialization segment.
        case videoInit = "v.mp4"
        /// The video track's media segment.
        case video = "v.m4s"
        /// The audio track's initialization segment.
        case audioInit = "a.mp4"
        /// The audio track's media segment.
        case audio = "a.m4s"

        /// The stream kind it carries.
        var kind: StreamInfo.Kind { self == .videoInit || self == .video ? .video : .audio }
        /// Whether it is an initialization segment.
        var isInitialization: Bool { self == .videoInit || self == .audioInit }
        /// Its MIME type.
        var contentType: String { kind == .video ? "video/mp4" : "audio/mp4" }
    }

    /// `path` split into the stored segment it is made from and the part: nil for a path that
    /// names no CMAF part of a `.ts` segment.
    static func parse(_ path: String) -> (segment: String, part: Part)? {
        for part in Part.allCases where path.hasSuffix(".ts." + part.rawValue) {
            return (String(path.dropLast(part.rawValue.count + 1)), part)
        }
        return nil
    }

    /// The path of `part` of the stored segment `segment`.
    static func path(_ segment: String, _ part: Part) -> String { segment + "." + part.rawValue }

    private struct Cache {
        var entries: [String: (output: CMAFTrackRemux.Output, used: UInt64)] = [:]
        var bytes = 0
        var clock: UInt64 = 0
    }
    private let cache = Locked(Cache())
    private let budget: Int
    private let scratch: URL

    /// Tracks kept up to `budget` bytes, scratch files written in `scratch`.
    init(budget: Int = 256 << 20, scratch: URL = FileManager.default.temporaryDirectory) {
        self.budget = budget; self.scratch = scratch
    }

    /// The bytes of `part` of the stored segment `segment` (the file `file`), its timestamps moved
    /// by `shift` 90 kHz ticks (a media segment; an initialization segment has none), made now when
    /// they are not kept. Throws `MediaError` when the segment has no such track.
    func bytes(_ part: Part, of segment: String, file: URL, shift: Int64 = 0) throws -> Data {
        let shift = part.isInitialization ? 0 : shift
        let key = segment + "|" + (part.kind == .video ? "v" : "a") + "|\(shift)"
        let kept: CMAFTrackRemux.Output? = cache.withLock { c in
            c.clock += 1
            guard var e = c.entries[key] else { return nil }
            e.used = c.clock
            c.entries[key] = e
            return e.output
        }
        let output = try kept ?? CMAFTrackRemux.track(part.kind, of: file, shift: MediaTime(value: shift, timescale: 90_000), scratch: scratch)
        if kept == nil { keep(output, under: key) }
        return part.isInitialization ? output.initialization : output.segment
    }

    private func keep(_ output: CMAFTrackRemux.Output, under key: String) {
        let size = output.initialization.count + output.segment.count
        guard size <= budget else { return }
        cache.withLock { c in
            c.clock += 1
            if let old = c.entries[key] { c.bytes -= old.output.initialization.count + old.output.segment.count }
            c.entries[key] = (output, c.clock)
            c.bytes += size
            while c.bytes > budget, let oldest = c.entries.min(by: { $0.value.used < $1.value.used }) {
                c.entries[oldest.key] = nil
                c.bytes -= oldest.value.output.initialization.count + oldest.value.output.segment.count
            }
        }
    }
}
