import Foundation

/// The cost of IMA's default ad UI: the same tag stitch (a VMAP of VAST ads, the benchmark's
/// pre + two mid + post schedule, `--smart off`) timed with the default UI and with `--ad-ui none`.
struct AdUIResultBench: Codable, Sendable {
    /// The stitch with the default UI (the other run adds `--ad-ui none`).
    var command: [String]
    /// The VMAP written for the case (media paths relative to it).
    var vmap: String
    var withUIWall: Summary
    var withoutUIWall: Summary
    var withUICPU: Summary
    var withoutUICPU: Summary
    /// With-UI wall / without-UI wall (medians); the issue's target is ≤ 1.05.
    var ratio: Double
    /// With / without wall of each back-to-back pair of runs (order alternating).
    var pairedRatio: Summary
    /// With-UI CPU / without-UI CPU (medians): the work done, nearly immune to other load.
    var cpuRatio: Double
    /// Ads played in each output (from the stitch reports), and the outputs' video frames.
    var adsPlayed: Int
    var videoFrames: Int
    /// Whether the two outputs' ad frames differ (the UI was drawn) as decoded by ffmpeg's
    /// framemd5 at the pre-roll's 3 s; content frames are not compared here (the tests do).
    var uiDrawn: Bool
}

/// The engine's tag-stitch report, the part the benchmark reads.
private struct TagReport: Decodable {
    struct Break: Decodable { var ads: [Ad] }
    struct Ad: Decodable { var adId: String }
    var breaks: [Break]
}

enum AdUIBench {
    /// A VMAP for the case's schedule: every ad a VAST InLine with a click-through ("Learn more")
    /// and a skip offset of 2 s (so all three UI elements are drawn), pods as sequenced ads.
    static func vmap(_ c: BenchCase) -> String {
        var n = 0
        func ad(_ path: String, sequence: Int?) -> String {
            n += 1
            let f = c.ads[path]!
            let seq = sequence.map { " sequence=\"\($0)\"" } ?? ""
            let name = (path as NSString).lastPathComponent
            return """
                <Ad id="bench-\(n)"\(seq)><InLine><AdSystem>interlude-bench</AdSystem><AdTitle>\(name)</AdTitle>
                <Impression><![CDATA[http://127.0.0.1:9/imp?ad=\(n)]]></Impression>
                <Creatives><Creative id="cr-\(n)"><Linear skipoffset="00:00:02"><Duration>\(hms(f.duration))</Duration>
                <VideoClicks><ClickThrough><![CDATA[https://example.com/learn?ad=\(n)]]></ClickThrough></VideoClicks>
                <MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="\(f.width)" height="\(f.height)"><![CDATA[\(name)]]></MediaFile></MediaFiles>
                </Linear></Creative></Creatives></InLine></Ad>
                """
        }
        var breaks: [String] = []
        for (i, b) in c.breaks.enumerated() {
            let offset = b.cue == "start" ? "start" : b.cue == "end" ? "end" : hms(b.cueSeconds ?? 0)
            let ads = b.ads.count == 1 ? ad(b.ads[0], sequence: nil) : b.ads.enumerated().map { ad($1, sequence: $0 + 1) }.joined(separator: "\n")
            breaks.append("""
                <vmap:AdBreak timeOffset="\(offset)" breakType="linear" breakId="b\(i)">
                <vmap:AdSource id="s\(i)" allowMultipleAds="true"><vmap:VASTAdData><VAST version="4.1">
                \(ads)
                </VAST></vmap:VASTAdData></vmap:AdSource></vmap:AdBreak>
                """)
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">
            \(breaks.joined(separator: "\n"))
            </vmap:VMAP>

            """
    }

    /// `HH:MM:SS.mmm`.
    static func hms(_ s: Double) -> String {
        let ms = Int((s * 1000).rounded())
        return String(format: "%02d:%02d:%02d.%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
    }

    static func command(content: String, vmap: String, output: String, report: String, config: BenchConfig) -> [String] {
        [executableDirectory() + "/interlude", "stitch", content, "--ads", vmap, "-o", output,
         "-y", "-q", "--preset", config.preset, "--crf", String(config.crf),
         "--audio-bitrate", String(config.audioBitRate), "--threads", String(config.threads),
         "--smart", "off", "--report", report]
    }

    static func run(_ c: BenchCase, config: BenchConfig, outDir: String) throws -> AdUIResultBench {
        try FileManager.default.createDirectory(atPath: outDir, withIntermediateDirectories: true)
        // the VMAP beside the ads, which it names by file name
        let mediaDir = ((c.ads.keys.first ?? outDir) as NSString).deletingLastPathComponent
        let vmapPath = "\(mediaDir)/adui-vmap-\(c.id).xml"
        try vmap(c).write(toFile: vmapPath, atomically: true, encoding: .utf8)
        let withOut = "\(outDir)/adui-default-\(c.id).mp4", noneOut = "\(outDir)/adui-none-\(c.id).mp4"
        let withCmd = command(content: c.content.path, vmap: vmapPath, output: withOut, report: withOut + ".report.json", config: config)
        let noneCmd = command(content: c.content.path, vmap: vmapPath, output: noneOut, report: noneOut + ".report.json", config: config)
            + ["--ad-ui", "none"]
        var with: [ProcessCost] = [], without: [ProcessCost] = []
        func once(_ ui: Bool, record: Bool) throws {
            let r = try spawn(ui ? withCmd : noneCmd, capture: true)
            if record { if ui { with.append(r.cost) } else { without.append(r.cost) } }
        }
        for _ in 0..<config.warmup { try once(true, record: false); try once(false, record: false) }
        while with.count < config.runs {
            let k = with.count
            if k % 2 == 0 { try once(true, record: true); try once(false, record: true) }
            else { try once(false, record: true); try once(true, record: true) }
            log("  ad UI run \(k + 1)/\(config.runs): default UI \(fmt(with.last!.wall, 1)) s, none \(fmt(without.last!.wall, 1)) s")
        }
        func ads(_ report: String) throws -> Int {
            try JSONDecoder().decode(TagReport.self, from: Data(contentsOf: URL(fileURLWithPath: report))).breaks.reduce(0) { $0 + $1.ads.count }
        }
        let played = try ads(withOut + ".report.json"), playedNone = try ads(noneOut + ".report.json")
        let check = try StitchBench.probeOutput(withOut), checkNone = try StitchBench.probeOutput(noneOut)
        guard played == playedNone, check.videoFrames == checkNone.videoFrames else {
            throw UsageError("ad UI bench: the outputs differ in ads (\(played) vs \(playedNone)) or frames (\(check.videoFrames) vs \(checkNone.videoFrames))")
        }
        func md5(_ path: String) -> String {
            output(of: ["ffmpeg", "-v", "error", "-ss", "3", "-i", path, "-frames:v", "1", "-map", "0:v", "-f", "md5", "-"])
        }
        let drawn = md5(withOut) != md5(noneOut)
        let w = Summary(with.map(\.wall)), n = Summary(without.map(\.wall))
        return AdUIResultBench(command: withCmd, vmap: vmapPath, withUIWall: w, withoutUIWall: n,
                               withUICPU: Summary(with.map(\.cpu)), withoutUICPU: Summary(without.map(\.cpu)),
                               ratio: w.median / n.median, pairedRatio: Summary(zip(with, without).map { $0.wall / $1.wall }),
                               cpuRatio: Summary(with.map(\.cpu)).median / Summary(without.map(\.cpu)).median,
                               adsPlayed: played, videoFrames: check.videoFrames, uiDrawn: drawn)
    }
}
