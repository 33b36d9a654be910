import Foundation

/// The machine and software the figures came from.
struct Machine: Codable, Sendable {
    var cpu: String
    var cores: Int
    var memoryGB: Double
    var kernel: String
    var ffmpeg: String
    var x264: String
    var interludeCommit: String
    /// 1-minute load average when the benchmark started and ended (a busy machine shows here).
    var loadBefore: Double
    var loadAfter: Double

    static func describe() -> Machine {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last!.trimmingCharacters(in: .whitespaces) } ?? "unknown"
        let mem = ((try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? "")
            .split(separator: "\n").first { $0.hasPrefix("MemTotal") }
            .flatMap { Double($0.split(separator: " ")[1]) }.map { $0 * 1024 / 1e9 } ?? 0
        let ffmpeg = output(of: ["ffmpeg", "-version"]).split(separator: "\n").first.map(String.init) ?? "ffmpeg not found"
        var commit = output(of: ["git", "rev-parse", "--short", "HEAD"])
        if !output(of: ["git", "status", "--porcelain", "--untracked-files=no", "Sources"]).isEmpty { commit += "+dirty" }
        return Machine(cpu: model, cores: Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), memoryGB: mem,
                       kernel: output(of: ["uname", "-sr"]), ffmpeg: ffmpeg, x264: x264Version(),
                       interludeCommit: commit.isEmpty ? "unknown" : commit, loadBefore: loadAverage(), loadAfter: 0)
    }

    /// libx264's own version string, read from the SEI of a one-frame encode.
    static func x264Version() -> String {
        let tmp = FileManager.default.temporaryDirectory.path + "/bench-x264-\(getpid()).h264"
        defer { unlink(tmp) }
        _ = try? spawn(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                        "color=size=64x64:duration=0.04", "-frames:v", "1", "-c:v", "libx264", tmp], check: false)
        guard let data = FileManager.default.contents(atPath: tmp),
              let text = String(data: data.map { $0 >= 32 && $0 < 127 ? $0 : 10 }.reduce(into: Data()) { $0.append($1) }, encoding: .ascii),
              let line = text.split(separator: "\n").first(where: { $0.contains("x264 - core") }) else { return "unknown" }
        // "x264 - core 164 r3095 baee400 - H.264/MPEG-4 AVC codec - Copyleft …"
        return line.components(separatedBy: " - H.264").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? String(line.prefix(40))
    }

    static func loadAverage() -> Double {
        Double(((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "").split(separator: " ").first ?? "") ?? 0
    }

    /// One line: `AMD EPYC, 2 cores, 8 GB; Linux 6.1; ffmpeg version 5.1.x; x264 core 164 r3095`.
    var line: String {
        "\(cpu), \(cores) cores, \(fmt(memoryGB, 0)) GB RAM; \(kernel); \(ffmpeg.replacingOccurrences(of: " Copyright", with: "|").split(separator: "|").first ?? ""); \(x264)"
    }
}
