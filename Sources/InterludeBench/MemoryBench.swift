/// Peak resident memory of one stitch process per case (`ru_maxrss` from `wait4`), which must
/// not grow with the content's length.
struct MemoryResult: Codable, Sendable {
    var contentSeconds: Double
    var height: Int
    /// Interlude's peak RSS over its stitch runs, MB.
    var interludePeakMB: Summary
    /// ffmpeg's, for reference, when the stitch suite ran.
    var ffmpegPeakMB: Summary?
}

enum MemoryBench {
    static func from(_ c: BenchCase, stitch: StitchResultBench?, config: BenchConfig, outDir: String) throws -> MemoryResult {
        if let stitch {
            return MemoryResult(contentSeconds: c.content.duration, height: c.content.height,
                                interludePeakMB: stitch.interludeRSSMB, ffmpegPeakMB: stitch.ffmpegRSSMB)
        }
        log("  memory: one Interlude stitch")
        let cost = try StitchBench.memoryOnly(c, config: config, outDir: outDir)
        return MemoryResult(contentSeconds: c.content.duration, height: c.content.height,
                            interludePeakMB: Summary([cost.maxRSSMB]), ffmpegPeakMB: nil)
    }
}
