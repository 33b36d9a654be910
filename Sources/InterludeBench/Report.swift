import Foundation

/// Everything measured for one content file.
struct CaseResult: Codable, Sendable {
    var id: String
    var content: MediaFacts
    var schedule: [BenchBreak]
    var decode: DecodeResult?
    var stitch: StitchResultBench?
    var latency: LatencyResult?
    var stages: StageResult?
    var memory: MemoryResult?
    var realtime: RealtimeResult?
    var adUI: AdUIResultBench?
}

/// One of the issue's targets, met or missed (nil: not measured in this run).
struct TargetCheck: Codable, Sendable {
    var target: String
    var measured: String
    var met: Bool?
}

/// The whole run, as written to `latest.json`.
struct BenchResults: Codable, Sendable {
    var generatedAt: String
    var mode: String
    var note: String
    var machine: Machine
    var config: BenchConfig
    var cases: [CaseResult]
    var targets: [TargetCheck]
    var seconds: Double

    /// Checks the targets against what was measured.
    static func targets(_ cases: [CaseResult]) -> [TargetCheck] {
        var t: [TargetCheck] = []
        for c in cases {
            if let d = c.decode {
                t.append(TargetCheck(target: "\(c.id): decode ≥ 0.95× ffmpeg fps",
                                     measured: "\(fmt(d.ratio))× (\(fmt(d.interludeFPS.median, 0)) vs \(fmt(d.ffmpegFPS.median, 0)) fps; paired \(d.pairedRatio.text(2)))",
                                     met: d.ratio >= 0.95))
            }
            if let s = c.stitch {
                t.append(TargetCheck(target: "\(c.id): stitch wall ≤ 1.0× ffmpeg",
                                     measured: "\(fmt(s.ratio))× (\(fmt(s.interludeWall.median, 1)) vs \(fmt(s.ffmpegWall.median, 1)) s; paired \(s.pairedRatio.text(2)); CPU \(fmt(s.cpuRatio))×)",
                                     met: s.ratio <= 1.0))
            }
            if let l = c.latency {
                let worst = max(l.contentToAd.p99, l.adToContent.p99)
                t.append(TargetCheck(target: "\(c.id): splice gap p99 ≤ 1 frame (\(fmt(l.frameIntervalMs, 1)) ms)",
                                     measured: "cue \(fmt(l.contentToAd.p99, 1)) ms, resume \(fmt(l.adToContent.p99, 1)) ms",
                                     met: worst <= l.frameIntervalMs))
            }
            if let r = c.realtime, c.content.height <= 720 {
                t.append(TargetCheck(target: "\(c.id): real-time playback drops no frame",
                                     measured: "\(r.droppedFrames) dropped of \(r.frames); \(fmt(r.cpuPerVideoSecond, 2)) CPU s per s of video",
                                     met: r.droppedFrames == 0))
            }
            if let u = c.adUI {
                t.append(TargetCheck(target: "\(c.id): tag stitch with default ad UI ≤ 1.05× without",
                                     measured: "\(fmt(u.ratio))× (\(fmt(u.withUIWall.median, 1)) vs \(fmt(u.withoutUIWall.median, 1)) s; paired \(u.pairedRatio.text(2)); CPU \(fmt(u.cpuRatio))×)",
                                     met: u.ratio <= 1.05))
            }
            if let m = c.memory, m.height >= 1080 {
                t.append(TargetCheck(target: "\(c.id): peak RSS ≤ 300 MB at 1080p",
                                     measured: "\(fmt(m.interludePeakMB.max, 0)) MB", met: m.interludePeakMB.max <= 300))
            }
        }
        // Flat in length: the 10-minute content against the 60-second one at the same size.
        let byHeight = Dictionary(grouping: cases.filter { $0.memory != nil }) { $0.content.height }
        for (h, group) in byHeight.sorted(by: { $0.key < $1.key }) where group.count >= 2 {
            let sorted = group.sorted { $0.content.duration < $1.content.duration }
            let short = sorted.first!, long = sorted.last!
            let a = short.memory!.interludePeakMB.max, b = long.memory!.interludePeakMB.max
            t.append(TargetCheck(target: "\(h)p: peak RSS flat in length (≤ +10%)",
                                 measured: "\(fmt(short.content.duration, 0)) s: \(fmt(a, 0)) MB → \(fmt(long.content.duration, 0)) s: \(fmt(b, 0)) MB (\(fmt((b / a - 1) * 100, 1))%)",
                                 met: b <= a * 1.10))
        }
        if !cases.contains(where: { $0.memory != nil && $0.content.duration > 300 }) {
            t.append(TargetCheck(target: "peak RSS flat in content length", measured: "not measured (no 10-min case run)", met: nil))
        }
        return t
    }

    /// The report as Markdown: the same text is printed and written to `latest.md`.
    var markdown: String {
        var o: [String] = []
        o.append("# Interlude benchmark results")
        o.append("")
        o.append("- Machine: \(machine.line)")
        o.append("- Load average (1 min): \(fmt(machine.loadBefore)) at start, \(fmt(machine.loadAfter)) at end")
        o.append("- Interlude \(machine.interludeCommit); run \(generatedAt), \(fmt(seconds / 60, 1)) min; mode: \(mode)")
        o.append("- Settings: `--smart \(config.smart)`, \(config.transcodeCache) ad transcode cache\(config.hdAd ? ", 1080p60 5.1 ad D in the second mid-roll" : ""); libx264 preset `\(config.preset)`, CRF \(config.crf), AAC \(config.audioBitRate / 1000) kb/s; decoder threads \(config.threads == 0 ? "0 (auto, both tools)" : String(config.threads)); \(config.warmup) warm-up + \(config.runs) timed runs; figures are median (min–max)")
        if !note.isEmpty { o.append("- Note: \(note)") }
        o.append("")
        func table(_ title: String, _ header: [String], _ rows: [[String]]) {
            guard !rows.isEmpty else { return }
            o.append("## \(title)")
            o.append("")
            o.append("| " + header.joined(separator: " | ") + " |")
            o.append("|" + header.map { _ in "---" }.joined(separator: "|") + "|")
            for r in rows { o.append("| " + r.joined(separator: " | ") + " |") }
            o.append("")
        }
        table("Decode (frames/s, higher is better)",
              ["case", "Interlude fps", "ffmpeg fps", "ratio", "paired ratio", "Interlude CPU s", "ffmpeg CPU s", "frames I / F"],
              cases.compactMap { c in c.decode.map { d in
                  [c.id, d.interludeFPS.text(0), d.ffmpegFPS.text(0), fmt(d.ratio), d.pairedRatio.text(2), d.interludeCPU.text(2), d.ffmpegCPU.text(2),
                   "\(d.interludeFrames) / \(d.ffmpegFrames)"] } })
        table("Stitch: pre + 2 mid + post (seconds, lower is better)",
              ["case", "output", "Interlude wall", "ffmpeg wall", "ratio", "paired ratio", "Interlude CPU", "ffmpeg CPU", "CPU ratio", "× real time I / F", "frames I / F"],
              cases.compactMap { c in c.stitch.map { s in
                  [c.id, "\(s.interludeOutput.width)x\(s.interludeOutput.height), \(fmt(s.interludeOutput.videoDuration, 1)) s",
                   s.interludeWall.text(1), s.ffmpegWall.text(1), fmt(s.ratio), s.pairedRatio.text(2),
                   s.interludeCPU.text(1), s.ffmpegCPU.text(1), fmt(s.cpuRatio),
                   "\(fmt(s.interludeRealtime, 2)) / \(fmt(s.ffmpegRealtime, 2))",
                   "\(s.interludeOutput.videoFrames) / \(s.ffmpegOutput.videoFrames)"] } })
        table("Splice latency, frame-stream output (ms between consecutive output frames; p50 / p99, n)",
              ["case", "frame interval", "content → ad (cue)", "ad → content (resume)", "ad → ad (pod)", "ordinary"],
              cases.compactMap { c in c.latency.map { l in
                  func d(_ x: Distribution) -> String { "\(fmt(x.p50, 2)) / \(fmt(x.p99, 2)), n=\(x.n)" }
                  return [c.id, fmt(l.frameIntervalMs, 2), d(l.contentToAd), d(l.adToContent), d(l.adToAd), d(l.ordinary)] } })
        table("Stages of the MP4 stitch (engine instrumentation, seconds; encoding runs on its own thread, so the busy times overlap)",
              ["case", "fetch/plan", "decode + conform", "encode", "mux", "total (wall)"],
              cases.compactMap { c in c.stages.map { s in
                  [c.id, s.plan.text(3), s.decode.text(2), s.encode.text(2), s.mux.text(2), s.total.text(2)] } })
        table("Conforming each ad (open + decode + conform, frame-stream run, seconds)",
              ["case", "break", "ad", "output frames", "seconds", "ms/frame"],
              cases.flatMap { c in (c.stages?.adConform ?? []).map { a in
                  [c.id, a.breakId, a.media, String(a.frames), a.seconds.text(3), fmt(a.msPerFrame, 2)] } })
        table("Real-time playback with ads through the Player (live null output, one run)",
              ["case", "stream", "wall", "CPU s", "CPU s per s of video", "frames", "dropped (late)", "worst lateness"],
              cases.compactMap { c in c.realtime.map { r in
                  [c.id, "\(fmt(r.streamSeconds, 1)) s", "\(fmt(r.wallSeconds, 1)) s", fmt(r.cpuSeconds, 1), fmt(r.cpuPerVideoSecond, 3),
                   String(r.frames), String(r.droppedFrames), "\(fmt(r.worstLateMs, 1)) ms"] } })
        table("Ad UI cost: tag stitch (VMAP of VAST ads, same schedule, `--smart off`) with IMA's default UI vs `--ad-ui none` (seconds)",
              ["case", "ads", "frames", "UI drawn", "default UI wall", "none wall", "ratio", "paired ratio", "default UI CPU", "none CPU", "CPU ratio"],
              cases.compactMap { c in c.adUI.map { u in
                  [c.id, String(u.adsPlayed), String(u.videoFrames), u.uiDrawn ? "yes" : "**no**", u.withUIWall.text(2), u.withoutUIWall.text(2),
                   fmt(u.ratio, 3), u.pairedRatio.text(3), u.withUICPU.text(2), u.withoutUICPU.text(2), fmt(u.cpuRatio, 3)] } })
        table("Memory (peak RSS of one stitch process, MB)",
              ["case", "content", "Interlude", "ffmpeg"],
              cases.compactMap { c in c.memory.map { m in
                  [c.id, "\(fmt(m.contentSeconds, 0)) s", m.interludePeakMB.text(0), m.ffmpegPeakMB?.text(0) ?? "–"] } })
        table("Targets", ["target", "measured", "result"],
              targets.map { [$0.target, $0.measured, $0.met.map { $0 ? "met" : "**missed**" } ?? "not measured"] })
        return o.joined(separator: "\n")
    }
}
