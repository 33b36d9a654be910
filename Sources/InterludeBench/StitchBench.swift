import Foundation

/// Stage timings of the stitches, from the engine's own instrumentation (`--report`).
struct StageResult: Codable, Sendable {
    /// Opening and measuring the content and every ad, planning ("fetch/plan").
    var plan: Summary
    /// Decoding and conforming content and ads: the frame loop's busy time.
    var decode: Summary
    /// libx264 + AAC encoding: the encoding thread's time in the encoders (overlaps decoding).
    var encode: Summary
    /// MP4 muxing, trailer and faststart: the encoding thread's time in the muxer.
    var mux: Summary
    var total: Summary
    /// Per ad of the schedule, seconds of open + decode + conform, from the frame-stream runs of
    /// the latency benchmark (where "encoding" is a raw copy), when those ran.
    var adConform: [AdStage] = []
}

/// One ad's share of a stitch.
struct AdStage: Codable, Sendable {
    var breakId: String
    var position: Int
    var media: String
    var frames: Int64
    /// Seconds from the last frame before the ad to its last frame: open, decode, conform.
    var seconds: Summary
    var msPerFrame: Double
}

/// A stitch of the pre + two mid + post schedule by both tools, timed as separate processes.
struct StitchResultBench: Codable, Sendable {
    var interludeCommand: [String]
    var ffmpegCommand: [String]
    var interludeWall: Summary
    var ffmpegWall: Summary
    var interludeCPU: Summary
    var ffmpegCPU: Summary
    var interludeRSSMB: Summary
    var ffmpegRSSMB: Summary
    /// Interlude wall / ffmpeg wall (medians).
    var ratio: Double
    /// Interlude wall / ffmpeg wall of each back-to-back pair of runs: less sensitive to load drift.
    var pairedRatio: Summary
    /// Interlude CPU / ffmpeg CPU (medians): the work done, nearly immune to other load.
    var cpuRatio: Double
    /// Output seconds per wall second (medians).
    var interludeRealtime: Double
    var ffmpegRealtime: Double
    /// The two outputs checked once with ffprobe.
    var interludeOutput: OutputCheck
    var ffmpegOutput: OutputCheck
    var stages: StageResult
}

/// Frame count and durations of an output file, from ffprobe.
struct OutputCheck: Codable, Sendable {
    var videoFrames: Int
    var videoDuration: Double
    var audioDuration: Double
    var width: Int
    var height: Int
}

/// The engine's `--report` JSON, the part the benchmark reads.
private struct EngineReport: Decodable {
    struct Timings: Decodable { var plan: Double; var decode: Double; var encode: Double; var mux: Double?; var total: Double }
    var timings: Timings
}

enum StitchBench {
    /// `interlude stitch` for the case's schedule.
    static func interludeCommand(_ c: BenchCase, output: String, report: String, config: BenchConfig) -> [String] {
        var argv = [executableDirectory() + "/interlude", "stitch", c.content.path, "-o", output]
        for b in c.breaks { argv += ["--ad-break", "\(b.cue)=\(b.ads.joined(separator: ","))"] }
        argv += ["-y", "-q", "--preset", config.preset, "--crf", String(config.crf),
                 "--audio-bitrate", String(config.audioBitRate), "--threads", String(config.threads),
                 "--smart", config.smart, "--report", report,
                 "--transcode-cache", config.transcodeCache == "warm" ? config.resultsDir + "/transcode-cache" : "off"]
        return argv
    }

    /// The same job for the ffmpeg CLI: each content segment read with input seeking
    /// (`-ss`/`-to`), every piece conformed (scale to fit, pad, setsar, fps, aresample, aformat,
    /// audio cut to the video's length), joined by the concat filter, encoded once.
    static func ffmpegCommand(_ c: BenchCase, output: String, config: BenchConfig) -> [String] {
        let w = c.content.width, h = c.content.height, rate = c.content.frameRate
        let sr = c.content.hasAudio ? c.content.sampleRate : 48000
        let layout = channelLayout(c.content.hasAudio ? min(max(c.content.channels, 1), 8) : 2)
        let threads = String(config.threads)
        var inputs: [String] = []
        var filters: [String] = []
        var pads: [String] = []
        var next = 0
        func addInput(_ args: [String]) -> Int { inputs += args; next += 1; return next - 1 }
        func piece(video: Int, audio: Int?, silence seconds: Double, duration: Double) {
            let k = pads.count
            filters.append("[\(video):v]setpts=PTS-STARTPTS,scale=\(w):\(h):force_original_aspect_ratio=decrease," +
                           "pad=\(w):\(h):(ow-iw)/2:(oh-ih)/2:black,setsar=1,fps=\(rate),format=yuv420p[v\(k)]")
            let a = audio ?? addInput(["-f", "lavfi", "-t", String(seconds), "-i", "anullsrc=r=\(sr):cl=\(layout)"])
            filters.append("[\(a):a]asetpts=PTS-STARTPTS,aresample=\(sr),aformat=sample_fmts=fltp:channel_layouts=\(layout)," +
                           "apad,atrim=end=\(duration)[a\(k)]")
            pads.append("[v\(k)][a\(k)]")
        }
        func ad(_ path: String) {
            let f = c.ads[path]!
            let i = addInput(["-threads", threads, "-i", path])
            piece(video: i, audio: f.hasAudio ? i : nil, silence: f.duration, duration: f.duration)
        }
        func content(from: Double, to: Double?) {
            var args = ["-threads", threads]
            if from > 0 { args += ["-ss", String(from)] }
            if let to { args += ["-to", String(to)] }
            let i = addInput(args + ["-i", c.content.path])
            let d = (to ?? c.content.duration) - from
            piece(video: i, audio: c.content.hasAudio ? i : nil, silence: d, duration: d)
        }
        var at = 0.0
        for b in c.breaks {
            if let t = b.cueSeconds { content(from: at, to: t); at = t }
            if b.cue == "end" && at >= 0 { content(from: at, to: nil); at = -1 }
            b.ads.forEach(ad)
        }
        if at >= 0 { content(from: at, to: nil) }
        let graph = (filters + [pads.joined() + "concat=n=\(pads.count):v=1:a=1[v][a]"]).joined(separator: ";")
        return ["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-nostats", "-y"] + inputs +
            ["-filter_complex", graph, "-map", "[v]", "-map", "[a]",
             "-c:v", "libx264", "-preset", config.preset, "-crf", String(config.crf), "-pix_fmt", "yuv420p",
             "-r", rate, "-c:a", "aac", "-b:a", String(config.audioBitRate), "-movflags", "+faststart", output]
    }

    static func channelLayout(_ n: Int) -> String {
        ["mono", "stereo", "2.1", "quad", "5.0", "5.1", "6.1", "7.1"][n - 1]
    }

    static func run(_ c: BenchCase, config: BenchConfig, outDir: String) throws -> StitchResultBench {
        try FileManager.default.createDirectory(atPath: outDir, withIntermediateDirectories: true)
        let iOut = "\(outDir)/stitch-interlude-\(c.id).mp4", fOut = "\(outDir)/stitch-ffmpeg-\(c.id).mp4"
        let report = "\(outDir)/stitch-interlude-\(c.id).report.json"
        let iCmd = interludeCommand(c, output: iOut, report: report, config: config)
        let fCmd = ffmpegCommand(c, output: fOut, config: config)
        var iCost: [ProcessCost] = [], fCost: [ProcessCost] = [], timings: [EngineReport.Timings] = []
        func interlude(record: Bool) throws {
            let r = try spawn(iCmd, capture: true)
            guard record else { return }
            iCost.append(r.cost)
            let data = try Data(contentsOf: URL(fileURLWithPath: report))
            timings.append(try JSONDecoder().decode(EngineReport.self, from: data).timings)
        }
        func ffmpeg(record: Bool) throws {
            let r = try spawn(fCmd, capture: true)
            if record { fCost.append(r.cost) }
        }
        for _ in 0..<config.warmup { try interlude(record: false); try ffmpeg(record: false) }
        if config.warmup == 0 { try interlude(record: true); try ffmpeg(record: true) }
        let iCheck = try probeOutput(iOut), fCheck = try probeOutput(fOut)
        log("  outputs: interlude \(iCheck.videoFrames) frames \(fmt(iCheck.videoDuration, 3)) s (audio \(fmt(iCheck.audioDuration, 3)) s), " +
            "ffmpeg \(fCheck.videoFrames) frames \(fmt(fCheck.videoDuration, 3)) s (audio \(fmt(fCheck.audioDuration, 3)) s)")
        while iCost.count < config.runs {
            let k = iCost.count
            if k % 2 == 0 { try interlude(record: true); try ffmpeg(record: true) }
            else { try ffmpeg(record: true); try interlude(record: true) }
            log("  stitch run \(k + 1)/\(config.runs): interlude \(fmt(iCost.last!.wall, 1)) s, ffmpeg \(fmt(fCost.last!.wall, 1)) s")
        }
        let iWall = Summary(iCost.map(\.wall)), fWall = Summary(fCost.map(\.wall))
        let stages = StageResult(plan: Summary(timings.map(\.plan)), decode: Summary(timings.map(\.decode)),
                                 encode: Summary(timings.map(\.encode)), mux: Summary(timings.map { $0.mux ?? 0 }),
                                 total: Summary(timings.map(\.total)))
        return StitchResultBench(
            interludeCommand: iCmd, ffmpegCommand: fCmd, interludeWall: iWall, ffmpegWall: fWall,
            interludeCPU: Summary(iCost.map(\.cpu)), ffmpegCPU: Summary(fCost.map(\.cpu)),
            interludeRSSMB: Summary(iCost.map(\.maxRSSMB)), ffmpegRSSMB: Summary(fCost.map(\.maxRSSMB)),
            ratio: iWall.median / fWall.median,
            pairedRatio: Summary(zip(iCost, fCost).map { $0.wall / $1.wall }),
            cpuRatio: Summary(iCost.map(\.cpu)).median / Summary(fCost.map(\.cpu)).median,
            interludeRealtime: iCheck.videoDuration / iWall.median, ffmpegRealtime: fCheck.videoDuration / fWall.median,
            interludeOutput: iCheck, ffmpegOutput: fCheck, stages: stages)
    }

    /// One Interlude stitch for its peak memory alone (when the stitch suite is not run).
    static func memoryOnly(_ c: BenchCase, config: BenchConfig, outDir: String) throws -> ProcessCost {
        try FileManager.default.createDirectory(atPath: outDir, withIntermediateDirectories: true)
        let out = "\(outDir)/memory-interlude-\(c.id).mp4"
        let cmd = interludeCommand(c, output: out, report: out + ".report.json", config: config)
        return try spawn(cmd).cost
    }

    static func probeOutput(_ path: String) throws -> OutputCheck {
        func entries(_ stream: String, _ fields: String) -> [String] {
            output(of: ["ffprobe", "-v", "error", "-select_streams", stream, "-count_packets",
                        "-show_entries", "stream=\(fields)", "-of", "csv=p=0", path])
                .split(separator: ",").map { String($0) }
        }
        let v = entries("v:0", "width,height,duration,nb_read_packets")
        let a = entries("a:0", "duration")
        guard v.count >= 4 else { throw UsageError("ffprobe cannot read \(path)") }
        return OutputCheck(videoFrames: Int(v[3]) ?? 0, videoDuration: Double(v[2]) ?? 0,
                           audioDuration: Double(a.first ?? "") ?? 0, width: Int(v[0]) ?? 0, height: Int(v[1]) ?? 0)
    }
}
