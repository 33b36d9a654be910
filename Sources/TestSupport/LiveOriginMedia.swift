import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Threads
import Timing

/// The content a `LiveOrigin` publishes: an identity-band clip (`TestMedia.videoGraph` /
/// `audioGraph`: H.264 with a key frame every 2 s and `-sc_threshold 0`, no B-frames, AAC 48 kHz
/// stereo) encoded once per rendition by the ffmpeg CLI and cut by ffmpeg's hls muxer into exact
/// 2 s MPEG-TS segments, cached under `TestMedia.cacheDirectory` (safe to call concurrently).
///
/// Frame `n` of the content (counted from 0 over the whole clip) has PTS `firstPTS + n * ticksPerFrame`
/// and draws identity `(sourceID, n mod 4096)`, so a decoded picture tells which content frame it is.
/// Every rendition has the same frames, key frames and segment boundaries.
public struct LiveOriginMedia: Sendable {
    /// One segment of a rendition, as measured from its bytes (not taken from ffmpeg's playlist).
    public struct Segment: Sendable, Equatable {
        /// Index in the rendition, from 0 (the origin's media sequence number).
        public var index: Int
        /// The content frame number of its first frame.
        public var firstFrame: Int
        /// Its number of video frames.
        public var frameCount: Int
        /// The PTS (90 kHz) of its first frame: the smallest video PTS in it.
        public var firstPTS: Int64
        /// Its exact duration: `frameCount / fps`.
        public var duration: MediaTime
    }

    /// One rendition (a rung of the ladder).
    public struct Rendition: Sendable {
        /// Picture size.
        public var size: PixelSize
        /// The folder holding `0.ts`, `1.ts`, … (and ffmpeg's own `index.m3u8`).
        public var folder: URL
        /// The segments, in order.
        public var segments: [Segment]
        /// The largest segment's bit rate, bits per second (for `BANDWIDTH`).
        public var peakBitRate: Int

        /// The file of segment `index`.
        public func file(_ index: Int) -> URL { folder.appendingPathComponent("\(index).ts") }

        /// The same segments as CMAF (fragmented MP4: `init.mp4`, `0.m4s`, `1.m4s` …, a 90 kHz
        /// video timescale), made once by ffmpeg's hls muxer from the MPEG-TS ones with their
        /// timestamps (`-copyts`) and cached beside them; and what the MP4 edit list ffmpeg writes
        /// moves every timestamp by as a reader sees it (90 kHz ticks, measured: the CMAF
        /// segment's first frame less the MPEG-TS one's).
        public func cmaf() throws -> (folder: URL, ptsOffset: Int64) {
            let fm = FileManager.default
            let out = folder.deletingLastPathComponent().appendingPathComponent(folder.lastPathComponent + "-cmaf", isDirectory: true)
            let offsetFile = out.appendingPathComponent("offset")
            if !fm.fileExists(atPath: offsetFile.path) {
                let temp = TestMedia.cacheDirectory.appendingPathComponent(".partial-\(UUID().uuidString)", isDirectory: true)
                try fm.createDirectory(at: temp, withIntermediateDirectories: true)
                defer { try? fm.removeItem(at: temp) }
                try Tools.ffmpeg(["-v", "error", "-y", "-copyts", "-i", folder.appendingPathComponent("index.m3u8").path, "-map", "0", "-c", "copy",
                                  "-bsf:a", "aac_adtstoasc", "-f", "hls", "-hls_time", "2", "-hls_list_size", "0", "-hls_segment_type", "fmp4",
                                  "-hls_segment_options", "video_track_timescale=90000", "-hls_fmp4_init_filename", "init.mp4",
                                  "-hls_segment_filename", temp.appendingPathComponent("%d.m4s").path, temp.appendingPathComponent("index.m3u8").path])
                guard segments.indices.allSatisfy({ fm.fileExists(atPath: temp.appendingPathComponent("\($0).m4s").path) }) else {
                    throw VerifierError.malformedOutput("ffmpeg made other CMAF segments than the MPEG-TS ones")
                }
                let joined = temp.appendingPathComponent("first.mp4")
                try (try Data(contentsOf: temp.appendingPathComponent("init.mp4")) + (try Data(contentsOf: temp.appendingPathComponent("0.m4s")))).write(to: joined)
                let probe = String(decoding: try Tools.ffprobe(["-v", "error", "-select_streams", "v", "-show_entries", "packet=pts",
                                                                "-of", "csv=p=0", joined.path]).stdout, as: UTF8.self)
                let pts = probe.split(separator: "\n").compactMap { Int64($0.trimmingCharacters(in: CharacterSet(charactersIn: " ,"))) }
                guard let first = pts.min() else { throw VerifierError.malformedOutput("the first CMAF segment has no video") }
                try fm.removeItem(at: joined)
                try "\(first - segments[0].firstPTS)".write(to: temp.appendingPathComponent("offset"), atomically: true, encoding: .utf8)
                if rename(temp.path, out.path) != 0 && !fm.fileExists(atPath: offsetFile.path) {
                    throw VerifierError.malformedOutput("could not move \(temp.path) to \(out.path)")
                }
            }
            guard let offset = Int64(try String(contentsOf: offsetFile, encoding: .utf8)) else {
                throw VerifierError.malformedOutput("\(offsetFile.path) holds no offset")
            }
            return (out, offset)
        }
    }

    /// The source id drawn in the identity band.
    public let sourceID: Int
    /// Frames per second (90 000 must be a multiple of it).
    public let fps: Int
    /// The renditions, largest first; `renditions[0]` is the media playlist's.
    public let renditions: [Rendition]

    /// Segments are this long (the key frame interval), exactly.
    public static let segmentDuration = MediaTime(seconds: 2)

    /// The segments of the first rendition.
    public var segments: [Segment] { renditions[0].segments }
    /// 90 kHz ticks per frame.
    public var ticksPerFrame: Int64 { 90_000 / Int64(fps) }
    /// The PTS of content frame 0.
    public var firstPTS: Int64 { segments[0].firstPTS }
    /// The number of content frames.
    public var frameCount: Int { segments.reduce(0) { $0 + $1.frameCount } }
    /// The PTS of content frame `n`.
    public func pts(ofFrame n: Int) -> Int64 { firstPTS + Int64(n) * ticksPerFrame }
    /// The content frame shown at `pts` (the last frame whose PTS is at or before it), nil before
    /// the first frame or after the last one ends.
    public func frame(atPTS pts: Int64) -> Int? {
        guard pts >= firstPTS else { return nil }
        let n = Int((pts - firstPTS) / ticksPerFrame)
        return n < frameCount ? n : nil
    }
    /// The first content frame at or after `pts` (nil past the end).
    public func firstFrame(atOrAfter pts: Int64) -> Int? {
        let n = pts <= firstPTS ? 0 : Int((pts - firstPTS + ticksPerFrame - 1) / ticksPerFrame)
        return n < frameCount ? n : nil
    }
    /// The index of the segment that holds content frame `n`, nil out of range.
    public func segmentIndex(holdingFrame n: Int) -> Int? {
        segments.firstIndex { n >= $0.firstFrame && n < $0.firstFrame + $0.frameCount }
    }

    /// Makes (or finds cached) content of `seconds` (a multiple of 2) at each of `sizes`.
    /// Made once per cache folder: 240 s at 320x180 took 13-18 s on the shared 2-core machine
    /// (38 s during a parallel build), a 160x90 rung about 10 s more; later calls read the cached
    /// segment table (milliseconds). Throws `VerifierError` when ffmpeg fails or a segment is not
    /// exactly 2 s on the frame grid.
    public static func make(sourceID: Int = 9, sizes: [PixelSize] = [PixelSize(width: 320, height: 180)],
                            fps: Int = 30, seconds: Int = 240) throws -> LiveOriginMedia {
        precondition((0...15).contains(sourceID) && !sizes.isEmpty && fps > 0 && 90_000 % fps == 0)
        precondition(seconds >= 2 && seconds % 2 == 0, "whole 2 s segments")
        let key = "\(sourceID)-\(sizes)-\(fps)-\(seconds)"
        // held while making: concurrent tests wait for one ffmpeg run
        return try memo.withLock { memo in
            if let m = memo[key] { return m }
            var renditions: [Rendition] = []
            for size in sizes {
                renditions.append(try rendition(sourceID: sourceID, size: size, fps: fps, seconds: seconds))
            }
            for r in renditions.dropFirst() where r.segments.map(\.frameCount) != renditions[0].segments.map(\.frameCount) {
                throw VerifierError.malformedOutput("live origin rendition \(r.size) has other segment boundaries")
            }
            let media = LiveOriginMedia(sourceID: sourceID, fps: fps, renditions: renditions)
            memo[key] = media
            return media
        }
    }

    /// The media made so far, by parameters.
    private static let memo = Locked<[String: LiveOriginMedia]>([:])

    /// One rendition: the MP4 by `TestMedia.generated`, segmented (stream copy) into a cached folder.
    static func rendition(sourceID: Int, size: PixelSize, fps: Int, seconds: Int) throws -> Rendition {
        let g = 2 * fps
        let base = "live-s\(sourceID)-\(size.width)x\(size.height)-\(fps)fps-\(seconds)s-g\(g)"
        let clip = try TestMedia.generated("\(base).mp4", arguments: [
            "-f", "lavfi", "-i", TestMedia.videoGraph(sourceID: sourceID, width: size.width, height: size.height,
                                                      fps: fps, seconds: Double(seconds)),
            "-f", "lavfi", "-i", TestMedia.audioGraph(sampleRate: 48_000, channels: 2, fps: fps, seconds: Double(seconds)),
            "-map", "0:v", "-map", "1:a", "-c:a", "aac", "-b:a", "96k", "-ar", "48000", "-ac", "2",
            "-c:v", "libx264", "-preset", "veryfast", "-crf", "24", "-pix_fmt", "yuv420p", "-threads", "2",
            "-bf", "0", "-sc_threshold", "0", "-g", "\(g)", "-keyint_min", "\(g)",
            "-map_metadata", "-1", "-fflags", "+bitexact", "-movflags", "+faststart",
        ])
        let fm = FileManager.default
        let folder = TestMedia.cacheDirectory.appendingPathComponent(base + "-hls", isDirectory: true)
        let manifest = folder.appendingPathComponent("segments.txt")
        if !fm.fileExists(atPath: manifest.path) {
            let temp = TestMedia.cacheDirectory.appendingPathComponent(".partial-\(UUID().uuidString)", isDirectory: true)
            try fm.createDirectory(at: temp, withIntermediateDirectories: true)
            defer { try? fm.removeItem(at: temp) }
            try Tools.ffmpeg(["-v", "error", "-y", "-i", clip.path, "-map", "0", "-c", "copy",
                              "-f", "hls", "-hls_time", "2", "-hls_list_size", "0",
                              "-hls_segment_filename", temp.appendingPathComponent("%d.ts").path,
                              temp.appendingPathComponent("index.m3u8").path])
            var lines: [String] = []
            for i in 0..<(seconds / 2) {
                let data = try Data(contentsOf: temp.appendingPathComponent("\(i).ts"))
                let pts = LiveOriginTS.videoPTS([UInt8](data))
                guard let first = pts.min() else {
                    throw VerifierError.malformedOutput("live origin segment \(i) has no video PTS")
                }
                lines.append("\(pts.count) \(first) \(data.count)")
            }
            try lines.joined(separator: "\n").write(to: temp.appendingPathComponent("segments.txt"), atomically: true, encoding: .utf8)
            if rename(temp.path, folder.path) != 0 && !fm.fileExists(atPath: manifest.path) {
                throw VerifierError.malformedOutput("could not move \(temp.path) to \(folder.path)")
            }
        }
        let rows = try String(contentsOf: manifest, encoding: .utf8).split(separator: "\n").map { $0.split(separator: " ").compactMap { Int64($0) } }
        var segments: [Segment] = [], frame = 0, peak = 0
        for (i, row) in rows.enumerated() {
            guard row.count == 3 else { throw VerifierError.malformedOutput("\(manifest.path) line \(i + 1)") }
            let count = Int(row[0])
            segments.append(Segment(index: i, firstFrame: frame, frameCount: count, firstPTS: row[1],
                                    duration: MediaTime(value: Int64(count), timescale: Int64(fps))))
            frame += count
            peak = max(peak, Int(row[2]) * 8 / 2)
        }
        for s in segments where s.frameCount != g || s.firstPTS != segments[0].firstPTS + Int64(s.firstFrame) * Int64(90_000 / fps) {
            throw VerifierError.malformedOutput("live origin segment \(s.index): \(s.frameCount) frames from PTS \(s.firstPTS), not 2 s on the frame grid")
        }
        return Rendition(size: size, folder: folder, segments: segments, peakBitRate: peak)
    }
}
