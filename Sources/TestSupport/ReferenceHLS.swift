import Foundation

/// HLS packages the ffmpeg CLI makes, the players' clean references (the field check's baseline:
/// what every player must play without a complaint), and copies of them broken on purpose (what
/// a player's check must catch).
public enum ReferenceHLS {
    /// A VOD package in a new folder `name` under `directory`: `seconds` of `testsrc2` at 640x360,
    /// 30 fps, and a sine tone, H.264 (a key frame every 2 s) and AAC, cut by ffmpeg's hls muxer
    /// (stream copy) into `segmentSeconds` MPEG-TS segments `seg<N>.ts`. Returns the playlist,
    /// `index.m3u8`. The encode is cached (`TestMedia.generated`); the cut takes a moment.
    public static func vod(in directory: URL, name: String = "reference", seconds: Int = 20, segmentSeconds: Int = 4) throws -> URL {
        precondition(seconds > 0 && segmentSeconds > 0 && segmentSeconds % 2 == 0, "segments of whole GOPs")
        let clip = try TestMedia.generated("hls-reference-640x360-30fps-\(seconds)s.mp4", arguments: [
            "-f", "lavfi", "-i", "testsrc2=s=640x360:r=30:d=\(seconds)",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:duration=\(seconds)",
            "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p", "-g", "60", "-keyint_min", "60",
            "-sc_threshold", "0", "-c:a", "aac", "-b:a", "96k", "-threads", "2", "-map_metadata", "-1",
        ])
        let folder = directory.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let playlist = folder.appendingPathComponent("index.m3u8")
        try Tools.ffmpeg(["-v", "error", "-y", "-i", clip.path, "-map", "0", "-c", "copy",
                          "-f", "hls", "-hls_time", "\(segmentSeconds)", "-hls_playlist_type", "vod",
                          "-hls_segment_filename", folder.appendingPathComponent("seg%d.ts").path, playlist.path])
        return playlist
    }

    /// A way to break a package.
    public enum Fault: String, Sendable, CaseIterable {
        /// The fourth segment is the second one again (its bytes, with the continuity counters
        /// carried on so that only the timestamps are wrong): the PTS jumps back by two segments
        /// with no EXT-X-DISCONTINUITY.
        case timestampsBack
        /// The third segment is cut mid-packet, a little past half its bytes.
        case truncatedSegment
        /// The third segment is not there (a server answers 404).
        case missingSegment
    }

    /// A copy of the package of `playlist` (made by `vod`, at least four segments) with `fault`, in
    /// a new folder `fault.rawValue` under `directory`. Returns its playlist.
    public static func broken(_ playlist: URL, _ fault: Fault, in directory: URL) throws -> URL {
        let fm = FileManager.default
        let source = playlist.deletingLastPathComponent()
        let folder = directory.appendingPathComponent(fault.rawValue, isDirectory: true)
        try fm.createDirectory(at: folder, withIntermediateDirectories: true)
        let text = try String(contentsOf: playlist, encoding: .utf8)
        let names = text.split(separator: "\n").map(String.init).filter { $0.hasSuffix(".ts") }
        guard names.count >= 4 else { throw VerifierError.malformedOutput("\(playlist.path): fewer than 4 segments") }
        var segments = try names.map { try Data(contentsOf: source.appendingPathComponent($0)) }
        switch fault {
        case .timestampsBack:
            segments[3] = segments[1]
            segments = continuingCounters(segments)
        case .truncatedSegment:
            segments[2] = segments[2].prefix(segments[2].count / 2 / 188 * 188 + 101)
        case .missingSegment:
            break
        }
        for (i, name) in names.enumerated() where !(fault == .missingSegment && i == 2) {
            try segments[i].write(to: folder.appendingPathComponent(name))
        }
        let copy = folder.appendingPathComponent(playlist.lastPathComponent)
        try text.write(to: copy, atomically: true, encoding: .utf8)
        return copy
    }

    /// `segments` (in play order) with each PID's continuity counter carried on from one segment to
    /// the next, as one muxer writing them all would.
    static func continuingCounters(_ segments: [Data]) -> [Data] {
        var next: [Int: UInt8] = [:]
        return segments.map { data in
            var bytes = [UInt8](data)
            for offset in stride(from: 0, to: bytes.count - 187, by: 188) where bytes[offset] == 0x47 {
                guard bytes[offset + 3] & 0x10 != 0 else { continue }   // no payload: the counter stays
                let pid = Int(bytes[offset + 1] & 0x1F) << 8 | Int(bytes[offset + 2])
                let cc = next[pid] ?? (bytes[offset + 3] & 0x0F)
                bytes[offset + 3] = (bytes[offset + 3] & 0xF0) | cc
                next[pid] = (cc + 1) & 0x0F
            }
            return Data(bytes)
        }
    }
}
