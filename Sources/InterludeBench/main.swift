// interlude-bench: Interlude against the ffmpeg CLI on the same files. See docs/BENCHMARKS.md.
import Foundation
import Playback
import Timing

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--play-through" {
    exit(DecodeBench.childMain(Array(arguments.dropFirst())))
}
if arguments.first == "--blocked-main" {
    exit(BlockedMainBench.childMain(Array(arguments.dropFirst())))
}
if arguments.contains("-h") || arguments.contains("--help") {
    print("""
        usage: interlude-bench [FILE…]     (normally through `make bench` / scripts/bench.sh)

        Without FILEs it generates (once, cached in bench-results/media/) and benchmarks the
        cases in BENCH_CASES; with FILEs it benchmarks those as content, with the generated ads.
        Environment: BENCH_QUICK=1, BENCH_RUNS, BENCH_WARMUP, BENCH_CASES, BENCH_SUITES,
        BENCH_LONG_SUITES (decode,stitch,latency,stages,memory,realtime,adui), BENCH_THREADS, BENCH_PRESET, BENCH_CRF, BENCH_NOTE, BENCH_RESULTS.
        """)
    exit(0)
}

func main() throws {
    let started = monotonicSeconds()
    let config = try BenchConfig.fromEnvironment(arguments: arguments)
    setMediaLogging(verbose: false)
    var machine = Machine.describe()
    log("machine: \(machine.line)")
    let mediaDir = config.resultsDir + "/media"
    let outDir = mediaDir + "/out"
    let generator = MediaGenerator(directory: mediaDir)
    var ads: [BenchAd: MediaFacts] = [:]
    for ad in BenchAd.allCases where ad != .d || config.hdAd { ads[ad] = try MediaFacts.probe(try generator.ad(ad)) }

    var contents: [(String, String)] = []
    for id in config.cases { contents.append((id, try generator.content(id))) }
    for f in config.files { contents.append((((f as NSString).lastPathComponent as NSString).deletingPathExtension, f)) }

    var results: [CaseResult] = []
    for (id, path) in contents {
        let facts = try MediaFacts.probe(path)
        let c = BenchCase.make(id: id, content: facts, ads: ads)
        log("case \(id): \(facts.width)x\(facts.height) @ \(facts.frameRate), \(fmt(facts.duration, 1)) s, " +
            "\(facts.hasAudio ? "\(facts.sampleRate) Hz \(facts.channels) ch" : "no audio")")
        var r = CaseResult(id: id, content: facts, schedule: c.breaks)
        let suites = config.suites(forContent: facts.duration)
        func has(_ s: Suite) -> Bool { suites.contains(s) }
        if has(.decode) { log(" decode"); r.decode = try DecodeBench.run(path, config: config) }
        if has(.stitch) || has(.stages) {
            log(" stitch"); r.stitch = try StitchBench.run(c, config: config, outDir: outDir)
            r.stages = r.stitch?.stages
        }
        if has(.latency) || has(.stages) {
            log(" splice latency")
            let (latency, adStages) = try LatencyBench.run(c, config: config)
            if has(.latency) { r.latency = latency }
            if has(.stages) { r.stages?.adConform = adStages }
        }
        if has(.memory) { r.memory = try MemoryBench.from(c, stitch: r.stitch, config: config, outDir: outDir) }
        if has(.adui) { log(" ad UI cost"); r.adUI = try AdUIBench.run(c, config: config, outDir: outDir) }
        if has(.realtime) { log(" real-time playback"); r.realtime = try RealtimeBench.run(c, config: config) }
        if !has(.stitch) { r.stitch = nil }
        if !has(.stages) { r.stages = nil }
        results.append(r)
    }
    machine.loadAfter = Machine.loadAverage()

    let mode = config.quick ? "quick (BENCH_QUICK=1: 720p 60 s only, \(config.runs) runs)"
        : config.files.isEmpty ? "cases \(config.cases.joined(separator: ", ")), \(config.runs) runs" : "files given, \(config.runs) runs"
    let stamp = ISO8601DateFormatter().string(from: Date())
    let report = BenchResults(generatedAt: stamp, mode: mode, note: config.note, machine: machine, config: config,
                              cases: results, targets: BenchResults.targets(results), seconds: monotonicSeconds() - started)
    let md = report.markdown
    print(md)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    try FileManager.default.createDirectory(atPath: config.resultsDir, withIntermediateDirectories: true)
    try encoder.encode(report).write(to: URL(fileURLWithPath: config.resultsDir + "/latest.json"))
    try (md + "\n").write(toFile: config.resultsDir + "/latest.md", atomically: true, encoding: .utf8)
    log("wrote \(config.resultsDir)/latest.json and latest.md")
}

do {
    try main()
} catch {
    log("interlude-bench: \(error)")
    exit(1)
}
