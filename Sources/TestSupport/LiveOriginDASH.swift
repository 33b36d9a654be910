import Foundation
import Timing

/// A `LiveOrigin`'s content as a live DASH origin serves it: each rendition's video and the
/// first rendition's audio as separate CMAF tracks (an AdaptationSet each, as DASH origins
/// publish them), with every segment's start and duration on its track's timescale, measured
/// from the files. Made once by ffmpeg's hls muxer from the MPEG-TS segments (`-copyts`: the
/// timestamps kept) and cached beside them.
public struct LiveOriginDASH: Sendable {
    /// One track: a folder of `init.mp4` and `0.m4s`, `1.m4s` …
    public struct Track: Sendable {
        /// Where its files are.
        public var folder: URL
        /// Ticks per second.
        public var timescale: Int64
        /// Each segment's first presentation time (as a reader sees it) and duration, in ticks.
        public var starts: [Int64], durations: [Int64]
        /// The end of segment `i`.
        public func end(_ i: Int) -> Int64 { starts[i] + durations[i] }
    }

    /// The video of each rendition (90 kHz).
    public var videos: [Track]
    /// The sound (48 kHz).
    public var audio: Track
    /// Other languages' sound (48 kHz), with `secondLanguage`: the same sound at a quarter of
    /// its amplitude (re-encoded: 12 dB quieter, so a decoded segment tells which language it is).
    public var languages: [Track] = []
    /// What a reader's video timestamps are moved by from the MPEG-TS ones (90 kHz): splice times move with them.
    public var ptsOffset: Int64
    /// Subtitles as a text AdaptationSet (`LiveOrigin+DASHText`), nil: none.
    public var text: TextFormat?
    /// The MPD starts a second Period (`p1`) at this segment: its start and its timelines'
    /// `presentationTimeOffset` that segment's media time, the same tracks and initialization
    /// segments (an upstream splice, say); a key rotation (`LiveOriginSampleEncryption.Rotation`)
    /// starts one the same way. Nil: one Period.
    public var secondPeriodAt: Int?

    /// How the origin's subtitles are carried in MP4.
    public enum TextFormat: Sendable {
        /// WebVTT samples (`wvtt`): a cue's samples show it, empty samples between.
        case webVTT
        /// TTML (`stpp`): one document a segment, its times on the track's media timeline.
        case ttml
    }

    /// The tracks of `media` (`secondLanguage`: and `languages`' one).
    public static func make(_ media: LiveOriginMedia, secondLanguage: Bool = false) throws -> LiveOriginDASH {
        var videos: [Track] = []
        for r in media.renditions {
            let folder = try split(r, stream: "v")
            let first = try firstTimes(folder, count: r.segments.count, timescale: 90_000)
            videos.append(Track(folder: folder, timescale: 90_000, starts: first, durations: r.segments.map { $0.duration.mpegTicks }))
        }
        let audio = try audioTrack(try split(media.renditions[0], stream: "a"))
        let languages = secondLanguage ? [try audioTrack(try split(media.renditions[0], stream: "a", volume: 0.25))] : []
        return LiveOriginDASH(videos: videos, audio: audio, languages: languages, ptsOffset: videos[0].starts[0] - media.segments[0].firstPTS)
    }

    /// The audio track in folder `a`: its segments' times measured.
    static func audioTrack(_ a: URL) throws -> Track {
        var count = 0
        while FileManager.default.fileExists(atPath: a.appendingPathComponent("\(count).m4s").path) { count += 1 }
        let starts = try firstTimes(a, count: count, timescale: 48_000)
        // each audio segment lasts to the next one's start; the last, its packets' own durations
        let lastEnd = try endTime(a, index: count - 1, timescale: 48_000)
        var durations = zip(starts, starts.dropFirst()).map { $1 - $0 }
        durations.append(lastEnd - starts[count - 1])
        return Track(folder: a, timescale: 48_000, starts: starts, durations: durations)
    }

    /// Rendition `r`'s video (`stream` "v") or audio ("a") as CMAF segments, cached; `volume`:
    /// the audio re-encoded at that gain (its timestamps kept).
    static func split(_ r: LiveOriginMedia.Rendition, stream: String, volume: Double? = nil) throws -> URL {
        let fm = FileManager.default
        let out = r.folder.deletingLastPathComponent().appendingPathComponent(r.folder.lastPathComponent + "-dash-\(stream)" + (volume.map { "-gain\($0)" } ?? ""),
                                                                              isDirectory: true)
        if fm.fileExists(atPath: out.appendingPathComponent("done").path) { return out }
        let temp = TestMedia.cacheDirectory.appendingPathComponent(".partial-\(UUID().uuidString)", isDirectory: true)
        try fm.createDirectory(at: temp, withIntermediateDirectories: true)
        defer { try? fm.removeItem(at: temp) }
        var args = ["-v", "error", "-y", "-copyts", "-i", r.folder.appendingPathComponent("index.m3u8").path, "-map", "0:\(stream)", "-c", "copy"]
        if let volume { args += ["-af", "volume=\(volume)", "-c:a", "aac", "-b:a", "96k", "-ar", "48000", "-ac", "2"] }
        else if stream == "a" { args += ["-bsf:a", "aac_adtstoasc"] }
        args += ["-f", "hls", "-hls_time", "2", "-hls_list_size", "0", "-hls_segment_type", "fmp4",
                 "-hls_segment_options", "video_track_timescale=90000", "-hls_fmp4_init_filename", "init.mp4",
                 "-hls_segment_filename", temp.appendingPathComponent("%d.m4s").path, temp.appendingPathComponent("index.m3u8").path]
        try Tools.ffmpeg(args)
        try Data().write(to: temp.appendingPathComponent("done"))
        if rename(temp.path, out.path) != 0 && !fm.fileExists(atPath: out.appendingPathComponent("done").path) {
            throw VerifierError.malformedOutput("could not move \(temp.path) to \(out.path)")
        }
        return out
    }

    /// The packets' presentation times and durations of segment `index` of the track in `folder`, in `timescale` ticks.
    static func packets(_ folder: URL, index: Int, timescale: Int64) throws -> [(pts: Int64, duration: Int64)] {
        let joined = folder.deletingLastPathComponent().appendingPathComponent(".probe-\(UUID().uuidString).mp4")
        defer { try? FileManager.default.removeItem(at: joined) }
        try (try Data(contentsOf: folder.appendingPathComponent("init.mp4")) + (try Data(contentsOf: folder.appendingPathComponent("\(index).m4s")))).write(to: joined)
        // seconds to the microsecond: one tick of 90 or 48 kHz is over 10 µs, so rounding gives the tick back
        let probe = String(decoding: try Tools.ffprobe(["-v", "error", "-show_entries", "packet=pts_time,duration_time", "-of", "csv=p=0", joined.path]).stdout,
                           as: UTF8.self)
        var out: [(Int64, Int64)] = []
        for line in probe.split(separator: "\n") {
            let f = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            // ffprobe gives no duration for a fragment's first packet: an AAC frame's (the only track asked for its end)
            guard f.count >= 2, let pts = Double(f[0]) else { continue }
            let d = Double(f[1]) ?? 1024.0 / 48_000
            out.append((Int64((pts * Double(timescale)).rounded()), Int64((d * Double(timescale)).rounded())))
        }
        return out
    }

    static func firstTimes(_ folder: URL, count: Int, timescale: Int64) throws -> [Int64] {
        try (0..<count).map { i in
            guard let first = try packets(folder, index: i, timescale: timescale).map(\.pts).min() else {
                throw VerifierError.malformedOutput("\(folder.path)/\(i).m4s has no packets")
            }
            return first
        }
    }

    static func endTime(_ folder: URL, index: Int, timescale: Int64) throws -> Int64 {
        guard let end = try packets(folder, index: index, timescale: timescale).map({ $0.pts + $0.duration }).max() else {
            throw VerifierError.malformedOutput("\(folder.path)/\(index).m4s has no packets")
        }
        return end
    }
}
