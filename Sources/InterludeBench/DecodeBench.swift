import Foundation
import Playback

/// Decode throughput: Interlude's frame loop (`PlayThrough`, in a child process) against
/// `ffmpeg -threads N -i X -f null -`, same file, same decoder thread count. Frames per second
/// are output frames over the process's wall clock, start-up included for both.
struct DecodeResult: Codable, Sendable {
    var threads: Int
    var interludeFrames: Int64
    var ffmpegFrames: Int64
    var interludeFPS: Summary
    var ffmpegFPS: Summary
    var interludeCPU: Summary
    var ffmpegCPU: Summary
    /// Interlude fps / ffmpeg fps (medians).
    var ratio: Double
    /// Interlude fps / ffmpeg fps of each back-to-back pair of runs: less sensitive to load drift.
    var pairedRatio: Summary
}

enum DecodeBench {
    /// The hidden child mode: `interlude-bench --play-through FILE THREADS`.
    static func childMain(_ args: [String]) -> Int32 {
        guard args.count >= 1 else { return 2 }
        setMediaLogging(verbose: false)
        do {
            let s = try PlayThrough.run(args[0], threads: args.count > 1 ? Int(args[1]) ?? 0 : 0)
            print("\(s.frames) \(s.samples) \(s.seconds)")
            return 0
        } catch {
            log("play-through failed: \(error)")
            return 1
        }
    }

    static func run(_ file: String, config: BenchConfig) throws -> DecodeResult {
        let me = executableDirectory() + "/interlude-bench"
        let n = String(config.threads)
        func interlude() throws -> (ProcessCost, Int64) {
            let r = try spawn([me, "--play-through", file, n])
            let frames = Int64(r.stdout.split(separator: " ").first ?? "") ?? 0
            return (r.cost, frames)
        }
        func ffmpeg() throws -> (ProcessCost, Int64) {
            let r = try spawn(["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-nostats",
                               "-threads", n, "-i", file, "-f", "null", "-progress", "pipe:1", "-"])
            let frames = r.stdout.split(separator: "\n").last { $0.hasPrefix("frame=") }
                .flatMap { Int64($0.dropFirst(6)) } ?? 0
            return (r.cost, frames)
        }
        for _ in 0..<config.warmup { _ = try interlude(); _ = try ffmpeg() }
        var iFPS: [Double] = [], fFPS: [Double] = [], iCPU: [Double] = [], fCPU: [Double] = []
        var iFrames: Int64 = 0, fFrames: Int64 = 0
        for k in 0..<config.runs {
            // Alternate which tool goes first so drift in machine load hits both alike.
            let order = k % 2 == 0 ? [true, false] : [false, true]
            for isInterlude in order {
                let (cost, frames) = try isInterlude ? interlude() : ffmpeg()
                if isInterlude { iFPS.append(Double(frames) / cost.wall); iCPU.append(cost.cpu); iFrames = frames }
                else { fFPS.append(Double(frames) / cost.wall); fCPU.append(cost.cpu); fFrames = frames }
            }
            log("  decode run \(k + 1)/\(config.runs): interlude \(fmt(iFPS.last!, 0)) fps, ffmpeg \(fmt(fFPS.last!, 0)) fps")
        }
        let i = Summary(iFPS), f = Summary(fFPS)
        return DecodeResult(threads: config.threads, interludeFrames: iFrames, ffmpegFrames: fFrames,
                            interludeFPS: i, ffmpegFPS: f, interludeCPU: Summary(iCPU), ffmpegCPU: Summary(fCPU),
                            ratio: i.median / f.median,
                            pairedRatio: Summary(zip(iFPS, fFPS).map { $0 / $1 }))
    }
}
