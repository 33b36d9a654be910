import Foundation
import Media
import Timing

/// Facts about a media file that both tools' command lines need.
struct MediaFacts: Codable, Sendable {
    var path: String
    var width: Int
    var height: Int
    /// Frame rate as `num/den`.
    var frameRate: String
    var fps: Double
    var duration: Double
    var sampleRate: Int
    var channels: Int
    var videoCodec: String

    var hasAudio: Bool { sampleRate > 0 }

    /// Opens `path` with the engine's demuxer and reads its best video and audio streams.
    static func probe(_ path: String) throws -> MediaFacts {
        let d = try Demuxer(url: path)
        guard let vi = d.bestStream(.video) else { throw UsageError("\(path) has no video stream") }
        let v = d.streams[vi]
        let a = d.bestStream(.audio).map { d.streams[$0] }
        let rate = v.frameRate?.standardFrameRate ?? Rational(30, 1)
        let size = v.displaySize
        let duration = (v.duration ?? d.duration)?.seconds ?? 0
        return MediaFacts(path: path, width: size.width & ~1, height: size.height & ~1, frameRate: rate.description,
                          fps: rate.doubleValue, duration: duration, sampleRate: a?.sampleRate ?? 0,
                          channels: a?.channels ?? 0, videoCodec: v.codecName)
    }
}

/// The ads of the benchmark schedule, deliberately unlike the content and each other.
enum BenchAd: String, CaseIterable, Codable, Sendable {
    /// 640x480 at 25 fps, 44.1 kHz mono, 10 s.
    case a = "ad-a-640x480-25fps-44k-mono-10s"
    /// 1280x720 at 24 fps, no audio, 6 s.
    case b = "ad-b-1280x720-24fps-noaudio-6s"
    /// 854x480 at 60 fps, 32 kHz stereo, 5 s.
    case c = "ad-c-854x480-60fps-32k-stereo-5s"
    /// 1920x1080 at 60 fps, 48 kHz 5.1, 8 s (only with `BENCH_HD_AD=1`).
    case d = "ad-d-1920x1080-60fps-48k-51-8s"

    var generatorArguments: [String] {
        switch self {
        case .a:
            return ["-f", "lavfi", "-i", "testsrc=size=640x480:rate=25",
                    "-f", "lavfi", "-i", "sine=frequency=880:sample_rate=44100",
                    "-t", "10", "-ac", "1"]
        case .b:
            return ["-f", "lavfi", "-i", "smptehdbars=size=1280x720:rate=24", "-t", "6", "-an"]
        case .c:
            return ["-f", "lavfi", "-i", "testsrc2=size=854x480:rate=60",
                    "-f", "lavfi", "-i", "sine=frequency=660:sample_rate=32000",
                    "-t", "5", "-ac", "2"]
        case .d:
            return ["-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=60",
                    "-f", "lavfi", "-i", "sine=frequency=550:sample_rate=48000",
                    "-t", "8", "-ac", "6"]
        }
    }
}

/// One ad break of the schedule.
struct BenchBreak: Codable, Sendable {
    /// `start`, `end` or seconds.
    var cue: String
    var cueSeconds: Double?
    var ads: [String]
}

/// A benchmark case: one content file and the pre + two mid + post schedule placed on it.
struct BenchCase: Codable, Sendable {
    var id: String
    var content: MediaFacts
    var breaks: [BenchBreak]
    var ads: [String: MediaFacts]

    /// Pre-roll A; mid-rolls [B, C] at ⌊d/3⌋+0.5 s and [A] at ⌊2d/3⌋ s ([A, D] when D is given:
    /// `BENCH_HD_AD=1`); post-roll C. Content shorter than 6 s gets its mid-rolls at d/3 and 2d/3
    /// (to the millisecond).
    static func make(id: String, content: MediaFacts, ads: [BenchAd: MediaFacts]) -> BenchCase {
        let d = content.duration
        let long = d >= 6
        let cue1 = long ? (d / 3).rounded(.down) + 0.5 : (d / 3 * 1000).rounded() / 1000
        let cue2 = long ? (2 * d / 3).rounded(.down) : (2 * d / 3 * 1000).rounded() / 1000
        let path = { (a: BenchAd) in ads[a]!.path }
        let breaks = [
            BenchBreak(cue: "start", cueSeconds: nil, ads: [path(.a)]),
            BenchBreak(cue: fmtCue(cue1), cueSeconds: cue1, ads: [path(.b), path(.c)]),
            BenchBreak(cue: fmtCue(cue2), cueSeconds: cue2, ads: ads[.d] == nil ? [path(.a)] : [path(.a), path(.d)]),
            BenchBreak(cue: "end", cueSeconds: nil, ads: [path(.c)]),
        ]
        var byPath: [String: MediaFacts] = [:]
        for (_, f) in ads { byPath[f.path] = f }
        return BenchCase(id: id, content: content, breaks: breaks, ads: byPath)
    }

    private static func fmtCue(_ x: Double) -> String {
        x == x.rounded() ? String(Int(x)) : String(x)
    }

    /// Seconds of ads in the schedule.
    var adSeconds: Double { breaks.flatMap(\.ads).reduce(0) { $0 + (ads[$1]?.duration ?? 0) } }
}

/// Generates the benchmark media with the ffmpeg CLI, once: a file is reused when the command
/// that made it (kept beside it in `NAME.cmd`) is unchanged. Deterministic: lavfi test sources,
/// bit-exact flags, no metadata.
struct MediaGenerator {
    let directory: String

    /// `720p-60s` → 1280x720 at 30 fps, 60 s, 48 kHz stereo AAC, H.264 GOP 2 s.
    func content(_ caseID: String) throws -> String {
        let parts = caseID.split(separator: "-")
        let (w, h) = parts[0] == "1080p" ? (1920, 1080) : (1280, 720)
        let seconds = parts[1] == "10m" ? 600 : 60
        let name = "content-\(parts[0])30-\(parts[1]).mp4"
        return try make(name, [
            "-f", "lavfi", "-i", "testsrc2=size=\(w)x\(h):rate=30",
            "-f", "lavfi", "-i", "sine=frequency=440:beep_factor=4:sample_rate=48000",
            "-t", "\(seconds)", "-ac", "2",
        ], seconds: seconds)
    }

    func ad(_ ad: BenchAd) throws -> String {
        try make(ad.rawValue + ".mp4", ad.generatorArguments, seconds: nil)
    }

    private func make(_ name: String, _ inputs: [String], seconds: Int?) throws -> String {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = "\(directory)/\(name)"
        let tmp = "\(directory)/.\(name).tmp.mp4"
        let encode = ["-c:v", "libx264", "-preset", "ultrafast", "-g", "60", "-pix_fmt", "yuv420p",
                      "-c:a", "aac", "-b:a", "128k", "-map_metadata", "-1",
                      "-fflags", "+bitexact", "-flags:v", "+bitexact", "-flags:a", "+bitexact"]
        let argv = ["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y"] + inputs + encode + [tmp]
        let recipe = argv.dropLast().joined(separator: " ")
        let cmdPath = path + ".cmd"
        if FileManager.default.fileExists(atPath: path),
           (try? String(contentsOfFile: cmdPath, encoding: .utf8)) == recipe {
            return path
        }
        log("generating \(path)\(seconds.map { " (\($0) s)" } ?? "") once; cached afterwards")
        let t0 = monotonicSeconds()
        _ = try spawn(argv)
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.moveItem(atPath: tmp, toPath: path)
        try recipe.write(toFile: cmdPath, atomically: true, encoding: .utf8)
        log("  done in \(fmt(monotonicSeconds() - t0, 1)) s")
        return path
    }
}

/// A progress line on standard error.
func log(_ s: String) {
    FileHandle.standardError.write(Data((s + "\n").utf8))
}
