import Foundation
import Interlude
import Playback
import Timing

/// Splice latency with frame-stream output: the wall-clock gap between consecutive output frames
/// (as the engine reports them through `onEvent`, right after each frame is written), split by
/// what lies between the two frames.
struct LatencyResult: Codable, Sendable {
    /// Output frame interval in milliseconds: the real-time budget of one frame.
    var frameIntervalMs: Double
    /// Content frame → first ad frame of a break (the cue), in ms.
    var contentToAd: Distribution
    /// Last ad frame of a break → first content frame (the resume), in ms.
    var adToContent: Distribution
    /// Last frame of one ad → first frame of the next in the same pod, in ms.
    var adToAd: Distribution
    /// Every other frame-to-frame gap, in ms.
    var ordinary: Distribution
    /// Wall seconds of each run (frame-stream output to /dev/null).
    var wall: Summary
    var runs: Int
}

/// Records the monotonic time of each frame event.
/// Filled by the stitch's frame loop (one thread) and read after `run()` returns.
private final class Recorder: @unchecked Sendable {
    enum Kind: Equatable { case content, ad(Int, Int) }
    var frames: [(kind: Kind, t: Double)] = []
    var adEnds: [(breakIndex: Int, position: Int, t: Double)] = []
    var breakIds: [Int: String] = [:]
    var adMedia: [String: String] = [:]

    init() { frames.reserveCapacity(1 << 16) }

    func handle(_ e: SpliceEvent) {
        switch e {
        case .contentProgress: frames.append((.content, monotonicSeconds()))
        case .adProgress(let b, let p, _, _): frames.append((.ad(b, p), monotonicSeconds()))
        case .adEnded(let b, let p, _, _): adEnds.append((b, p, monotonicSeconds()))
        case .breakStarted(let i, let id, _, _): breakIds[i] = id
        case .adStarted(let b, let p, _, let media, _): adMedia["\(b)/\(p)"] = media.url
        default: break
        }
    }
}

enum LatencyBench {
    static func run(_ c: BenchCase, config: BenchConfig) throws -> (LatencyResult, [AdStage]) {
        let fps = c.content.fps
        var toAd: [Double] = [], toContent: [Double] = [], adAd: [Double] = [], ordinary: [Double] = []
        var walls: [Double] = []
        var adSpans: [String: (AdStage, [Double])] = [:]
        var adOrder: [String] = []
        for k in 0..<(config.warmup + config.runs) {
            let rec = Recorder()
            let request = StitchRequest(
                content: c.content.path,
                breaks: c.breaks.enumerated().map { i, b in
                    AdBreakRequest(id: ["preroll", "midroll-1", "midroll-2", "postroll"][min(i, 3)],
                                   position: BreakCue(parsing: b.cue)!, ads: b.ads)
                },
                output: "-", container: .nut, encoder: EncoderSettings(preset: config.preset, crf: config.crf),
                overwrite: true, threads: config.threads)
            let stitcher = Stitcher(request: request)
            stitcher.onEvent = { event in rec.handle(event) }
            let t0 = monotonicSeconds()
            let result = try withStdoutToDevNull { try stitcher.run() }
            let wall = monotonicSeconds() - t0
            guard k >= config.warmup else { continue }
            walls.append(wall)
            let f = rec.frames
            for i in 1..<f.count {
                let gap = (f[i].t - f[i - 1].t) * 1000
                switch (f[i - 1].kind, f[i].kind) {
                case (.content, .ad): toAd.append(gap)
                case (.ad, .content): toContent.append(gap)
                case let (.ad(b0, p0), .ad(b1, p1)) where b0 != b1 || p0 != p1: adAd.append(gap)
                default: ordinary.append(gap)
                }
            }
            // Per ad: from the frame before its first frame to its end.
            for end in rec.adEnds {
                let kind = Recorder.Kind.ad(end.breakIndex, end.position)
                guard let first = f.firstIndex(where: { $0.kind == kind }) else { continue }
                let start = first > 0 ? f[first - 1].t : t0 + result.timings.plan
                let count = f.filter { $0.kind == kind }.count
                let key = "\(end.breakIndex)/\(end.position)"
                let media = rec.adMedia[key] ?? "?"
                if adSpans[key] == nil {
                    adOrder.append(key)
                    adSpans[key] = (AdStage(breakId: rec.breakIds[end.breakIndex] ?? "\(end.breakIndex)", position: end.position,
                                            media: (media as NSString).lastPathComponent, frames: Int64(count),
                                            seconds: Summary([]), msPerFrame: 0), [])
                }
                adSpans[key]!.1.append(end.t - start)
            }
            log("  latency run \(k - config.warmup + 1)/\(config.runs): \(fmt(wall, 1)) s, \(f.count) frames")
        }
        let ads = adOrder.map { key -> AdStage in
            var (stage, spans) = adSpans[key]!
            stage.seconds = Summary(spans)
            stage.msPerFrame = stage.seconds.median * 1000 / Double(max(1, stage.frames))
            return stage
        }
        let result = LatencyResult(frameIntervalMs: 1000 / fps, contentToAd: Distribution(toAd),
                                   adToContent: Distribution(toContent), adToAd: Distribution(adAd),
                                   ordinary: Distribution(ordinary), wall: Summary(walls), runs: config.runs)
        return (result, ads)
    }

    /// Runs `body` with file descriptor 1 pointing at /dev/null (the frame stream goes to `pipe:1`).
    static func withStdoutToDevNull<T>(_ body: () throws -> T) rethrows -> T {
        fflush(nil)
        let saved = dup(1)
        let null = open("/dev/null", O_WRONLY)
        dup2(null, 1)
        close(null)
        defer { fflush(nil); dup2(saved, 1); close(saved) }
        return try body()
    }
}
