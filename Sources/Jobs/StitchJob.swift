// `interlude stitch` as a library call: the checks before any work, the stitcher that fits the
// request (media breaks, an ad response, native ads), companions, the report, and the commit.
import Files
import Foundation
import Interlude
import Playback
import Timing

/// One stitch as the `stitch` command runs it, callable without a process: the files checked
/// before any work (`check()`: no output may be an input; `-y` governs the output and the report
/// alike), the stitch run through the one entry point, `stitch(_:breaks:options:)`, with the
/// break source that fits the request (media breaks, an ad response, native ads beside either),
/// the companions staged,
/// the JSON report assembled, and then output, companions and report committed together
/// (`OutputTarget.commit`): when one cannot be written none appears and the job throws.
///
/// ```swift
/// var job = StitchJob(request: StitchRequest(content: "content.mp4", breaks: [], output: "out.mp4"))
/// job.adTag = "vmap.xml"
/// job.reportPath = "report.json"
/// let outcome = try await job.run()
/// print(outcome.summary.joined(separator: "\n"))
/// ```
package struct StitchJob: Sendable {
    /// What to stitch and where. `run()` stages the output and commits it itself (except an HLS
    /// folder, which the stitch publishes), whatever `deferCommit` says.
    package var request: StitchRequest
    /// Where the JSON report goes (`--report`), if anywhere.
    package var reportPath: String?
    /// A VAST or VMAP ad tag (`--ads`): URL, `file://` URL or path.
    package var adTag: String?
    /// Most wrapper redirects per chain.
    package var maxRedirects: Int?
    /// Seconds to fetch one ad media file.
    package var loadVideoTimeout: Double?
    /// With ad rules, play only breaks after this content time (seconds).
    package var playAdsAfter: Double?
    /// Timeout of each VAST request, in milliseconds.
    package var vastTimeout: Double?
    /// Where fetched ad media is cached.
    package var cacheDir: String?
    /// Seconds to fetch all ad media together.
    package var preloadTimeout: Double?
    /// The ad UI drawn on VAST ads.
    package var adUI: AdUIChoice?
    /// The layout file of `adUI`, when one was named (an input: never written).
    package var adUIPath: String?
    /// Native breaks (`--native-break`): where, the response (file or URL), full frame or L-bar.
    package var nativeBreaks: [(position: BreakCue, response: String, layout: NativeBreak.Layout)] = []
    /// Native format files (`--native-format`); any makes this a native stitch.
    package var nativeFormats: [String] = []
    /// `--companions`: a folder for one image per companion slot, or `lbar` for the L-shaped layout.
    package var companionsDir: String?
    /// The companion slots, width × height.
    package var companionSizes: [(Int, Int)] = [(300, 250), (728, 90)]

    /// A job for `request`, with nothing else set.
    package init(request: StitchRequest) { self.request = request }

    /// What a finished job wrote and says.
    package struct Outcome: Sendable {
        /// The stitch's result (breaks, ads, stream times, errors, timings).
        package var result: StitchResult
        /// The report as written to `reportPath`; nil without one.
        package var report: Data?
        /// The companion files written, in companion order.
        package var companionFiles: [String]
        /// The human summary, one line each (`wrote …`, each break and ad, `took …`).
        package var summary: [String]
    }

    /// The request's breaks as ad references (each ad a media file or a VAST tag, by its name):
    /// with a tag among them the stitch plays them as ad rules through AdsLoader/AdsManager.
    var adRules: [(id: String, position: BreakCue, ads: [AdRulesBuilder.AdReference])] {
        request.breaks.map { b in (b.id, b.position, b.ads.map(AdRulesBuilder.AdReference.guess)) }
    }

    /// Whether the stitch goes through AdsLoader/AdsManager (a tag is involved).
    package var usesAdsAPI: Bool {
        adTag != nil || adRules.contains { $0.ads.contains { if case .tag = $0 { return true } else { return false } } }
    }

    /// Every file the stitch reads and writes: content, ad media or tags of the breaks, the ad
    /// tag, native formats and responses, the ad UI layout; the output (a folder for HLS), the
    /// report, the companions folder.
    var files: JobFiles {
        var f = JobFiles()
        f.input("content", request.content)
        for ad in request.breaks.flatMap(\.ads) { f.input("--ad-break", ad) }
        f.input("--ads", adTag)
        for path in nativeFormats { f.input("--native-format", path) }
        for b in nativeBreaks { f.input("--native-break", b.response) }
        f.input("--ad-ui", adUIPath)
        if request.container == .hls {
            f.folders.append(("-o", request.output, true, ""))
        } else {
            f.output("-o", request.output)
        }
        f.output("--report", reportPath)
        if let dir = companionsDir, dir != "lbar" { f.folders.append(("--companions", dir, false, "companion-")) }
        return f
    }

    /// Why the stitch cannot start, before any work: an output that is an input or another
    /// output is a usage failure; an input that is a FIFO, device or folder, a cache folder
    /// others may write, or an output target that cannot be written (`OutputTarget.validate`;
    /// `overwrite` governs the output and the report alike) fails the job.
    package func check() throws(JobFailure) {
        let files = self.files
        if let conflict = files.conflict() { throw .usage(conflict) }
        if let problem = files.unreadableInput() { throw .failed(problem) }
        if let dir = cacheDir, let problem = AdMediaCache.folderProblem(dir) { throw .failed("--cache-dir: \(problem)") }
        let output = request.output
        do {
            if request.container == .hls {
                try OutputTarget.validateFolder(output, overwrite: request.overwrite, role: "output")
            } else if output != "-" {
                try OutputTarget.validate(output, overwrite: request.overwrite, role: "output")
            }
            if let report = reportPath { try OutputTarget.validate(report, overwrite: request.overwrite, role: "report") }
        } catch {
            throw .failed("\(error)")
        }
    }

    /// Checks, stitches and commits; `onProgress` gets (done, total) from the frame loop.
    /// Throws one line, leaving no output, companion or report behind. Needs no particular
    /// thread: the stitch runs on threads and queues of its own (only the native ad formats'
    /// templates are laid out on the main actor), so a process may run several at once.
    package func run(onProgress: (@Sendable (MediaTime, MediaTime) -> Void)? = nil) async throws(JobFailure) -> Outcome {
        try check()
        var job = self
        job.request.deferCommit = request.container != .hls   // an HLS folder is published by the session itself
        if !nativeFormats.isEmpty { return try await job.runNative(onProgress) }
        if usesAdsAPI { return try await job.runTag(onProgress) }
        var options = StitchOptions()
        options.onProgress = onProgress
        let result = try await Self.stitching(job.request, .media(job.request.breaks), options)
        return try job.commit(result, summary: StitchSummary.lines(result)) { try StitchReport(result).json() }
    }

    /// Runs a stitch (`stitch(_:breaks:options:)`), its error as a failure of the job.
    static func stitching(_ request: StitchRequest, _ breaks: StitchBreaks, _ options: StitchOptions) async throws(JobFailure) -> StitchResult {
        do { return try await stitch(request, breaks: breaks, options: options) } catch { throw .failed("\(error)") }
    }

    /// Stages the report beside its target, then commits report, output and any staged companion
    /// files together: when one cannot be written, none appears and the job fails.
    func commit(_ result: StitchResult, summary: [String], companions: CompanionFiles.Staged = .init(),
                report: () throws -> Data) throws(JobFailure) -> Outcome {
        let output = request.output
        var items: [(temporary: String, target: String)] = []
        // An HLS folder is already published by the session; the report is committed on its own.
        if output != "-", request.container != .hls { items.append((OutputTarget.temporaryPath(for: output), output)) }
        items += companions.items   // all or nothing: the output, its companions and the report
        var written: Data?
        do {
            if let path = reportPath {
                let data: Data
                do { data = try report() } catch { throw StitchFailure.outputUnwritable("cannot write report \(path): \(error)") }
                items.insert((try OutputTarget.stage(data, for: path), path), at: 0)
                written = data
            }
            try OutputTarget.commit(items, overwrite: request.overwrite)
        } catch {
            for item in items { TemporaryFiles.discard(item.temporary) }   // the companions' too
            companions.removeCreatedFolder()
            throw .failed("\(error)")
        }
        return Outcome(result: result, report: written, companionFiles: companions.paths, summary: summary)
    }

    /// Removes the staged output (nothing is committed).
    func discardOutput() {
        if request.output != "-", request.container != .hls { TemporaryFiles.discard(OutputTarget.temporaryPath(for: request.output)) }
    }
}
