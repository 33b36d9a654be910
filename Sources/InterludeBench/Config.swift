import Foundation

/// The parts of the benchmark that can be run.
enum Suite: String, CaseIterable, Codable, Sendable {
    case decode, stitch, latency, stages, memory, realtime
    /// A tag stitch (VMAP of VAST ads, `--smart off`) with IMA's default ad UI against `--ad-ui none`.
    case adui
}

/// How a run of the benchmark is set up, from environment variables and arguments.
///
/// - `BENCH_RUNS` timed runs per measurement (default 5; 3 in quick mode), after `BENCH_WARMUP`
///   warm-up runs (default 1).
/// - `BENCH_QUICK=1` only the 60 s 720p case, 3 runs.
/// - `BENCH_CASES` comma list of generated cases: `720p-60s,1080p-60s,720p-10m,1080p-10m`.
/// - `BENCH_SUITES` comma list of `decode,stitch,latency,stages,memory,realtime,adui` (default all;
///   `realtime` plays each case once in real time, so it takes the content's length plus its ads;
///   `adui` times a tag stitch with the default ad UI against one without, `--smart off`).
/// - `BENCH_LONG_SUITES` the same for content over 5 minutes (default `BENCH_SUITES`), e.g.
///   `memory` to measure only the peak RSS of one stitch of the 10-minute cases.
/// - `BENCH_THREADS` decoder threads for both tools (default 0: each decides).
/// - `BENCH_PRESET`, `BENCH_CRF` libx264 settings for both tools (default veryfast, 23).
/// - `BENCH_SMART` Interlude's `--smart` (default `auto`: content copied when it can be; `off`:
///   the full re-encode).
/// - `BENCH_TRANSCODE_CACHE` `cold` (default: no ad transcode cache, every run encodes its ads) or
///   `warm` (a cache in the results folder, filled by the warm-up run).
/// - `BENCH_HD_AD=1` adds ad D (1920x1080 60 fps, 5.1, 8 s) to the second mid-roll.
/// - `BENCH_NOTE` a line recorded in the results (e.g. "machine busy with other builds").
/// - Arguments: media files to benchmark instead of the generated cases.
struct BenchConfig: Codable, Sendable {
    var runs: Int
    var warmup: Int
    var quick: Bool
    var cases: [String]
    var files: [String]
    var suites: [Suite]
    /// Suites for cases longer than 5 minutes (`BENCH_LONG_SUITES`, default: the same).
    var longSuites: [Suite]
    var threads: Int
    var preset: String
    var crf: Int
    var audioBitRate: Int
    var note: String
    /// `--smart` for Interlude's stitches.
    var smart: String = "auto"
    /// `cold` or `warm` ad transcode cache.
    var transcodeCache: String = "cold"
    /// Whether the schedule has the 1080p60 5.1 ad D.
    var hdAd = false
    /// Where results and generated media go.
    var resultsDir: String

    static let allCases = ["720p-60s", "1080p-60s", "720p-10m", "1080p-10m"]

    static func fromEnvironment(arguments: [String]) throws -> BenchConfig {
        let env = ProcessInfo.processInfo.environment
        func int(_ key: String, _ fallback: Int) throws -> Int {
            guard let v = env[key], !v.isEmpty else { return fallback }
            guard let n = Int(v), n >= 0 else { throw UsageError("\(key) must be a whole number, not '\(v)'") }
            return n
        }
        let quick = ["1", "yes", "true"].contains(env["BENCH_QUICK"]?.lowercased() ?? "")
        let runs = max(1, try int("BENCH_RUNS", quick ? 3 : 5))
        let warmup = try int("BENCH_WARMUP", 1)
        var cases = quick ? ["720p-60s"] : allCases
        if let c = env["BENCH_CASES"], !c.isEmpty {
            cases = c.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            for c in cases where !allCases.contains(c) {
                throw UsageError("unknown case '\(c)' in BENCH_CASES (known: \(allCases.joined(separator: ",")))")
            }
        }
        func suiteList(_ key: String, _ fallback: [Suite]) throws -> [Suite] {
            guard let s = env[key], !s.isEmpty else { return fallback }
            return try s.split(separator: ",").map {
                guard let x = Suite(rawValue: $0.trimmingCharacters(in: .whitespaces)) else {
                    throw UsageError("unknown suite '\($0)' in \(key) (known: \(Suite.allCases.map(\.rawValue).joined(separator: ",")))")
                }
                return x
            }
        }
        let suites = try suiteList("BENCH_SUITES", Suite.allCases)
        let longSuites = try suiteList("BENCH_LONG_SUITES", suites)
        let files = arguments.filter { !$0.hasPrefix("-") }
        for f in files where !FileManager.default.fileExists(atPath: f) && !f.contains("://") {
            throw UsageError("no such file: \(f)")
        }
        let smart = env["BENCH_SMART"].flatMap { $0.isEmpty ? nil : $0 } ?? "auto"
        guard ["auto", "on", "off"].contains(smart) else { throw UsageError("BENCH_SMART must be auto, on or off, not '\(smart)'") }
        var config = BenchConfig(runs: runs, warmup: warmup, quick: quick, cases: files.isEmpty ? cases : [],
                           files: files, suites: suites, longSuites: longSuites, threads: try int("BENCH_THREADS", 0),
                           preset: env["BENCH_PRESET"].flatMap { $0.isEmpty ? nil : $0 } ?? "veryfast",
                           crf: try int("BENCH_CRF", 23), audioBitRate: 128_000,
                           note: env["BENCH_NOTE"] ?? "", resultsDir: env["BENCH_RESULTS"] ?? "bench-results")
        config.smart = smart
        let cache = env["BENCH_TRANSCODE_CACHE"].flatMap { $0.isEmpty ? nil : $0 } ?? "cold"
        guard ["cold", "warm"].contains(cache) else { throw UsageError("BENCH_TRANSCODE_CACHE must be cold or warm, not '\(cache)'") }
        config.transcodeCache = cache
        config.hdAd = ["1", "yes", "true"].contains(env["BENCH_HD_AD"]?.lowercased() ?? "")
        return config
    }

    /// The suites to run on content of `seconds`.
    func suites(forContent seconds: Double) -> [Suite] { seconds > 300 ? longSuites : suites }
}

/// A bad environment variable or argument.
struct UsageError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
