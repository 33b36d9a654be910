// A stitch job with custom native ads (`--native-format`, `--native-break`, a VMAP carrying
// native breaks): the native breaks loaded, then stitched beside the request's media breaks or
// beside the VAST breaks (the tag stitch); the natives added to summary and report.
import Ads
import Foundation
import Interlude
import Playback
import Timing

extension StitchJob {
    /// Runs a stitch with native ads: the native breaks loaded (those that cannot be used left
    /// out and reported), then the VAST breaks beside them through the tag stitch, or the media
    /// breaks with them (`stitch` with `.media` and `nativeBreaks`); commits with the natives in
    /// summary and report.
    @MainActor func runNative(_ onProgress: (@Sendable (MediaTime, MediaTime) -> Void)?) async throws(JobFailure) -> Outcome {
        let found: NativeBreaksFound
        do { found = try await nativeBreaksFound() } catch { throw .failed("\(error)") }
        let (natives, failures) = (found.natives, found.issues)
        // A stitch records the impressions it renders for the report and sends none, as it does VAST beacons.
        for n in natives { n.ad.firesTrackersLive = false }
        // VAST breaks beside the native ones (a mixed VMAP, or --ad-break tags): the AdsLoader/AdsManager
        // stitch plays them and the native breaks where they fall.
        if found.vastBreaks > 0 || adRules.contains(where: { $0.ads.contains { if case .tag = $0 { return true } else { return false } } }) {
            return try await runTag(onProgress, native: NativeTagHook(natives: natives, failures: failures, vmap: found.vmap))
        }
        var options = StitchOptions()
        options.nativeBreaks = natives
        if let dir = cacheDir { options.nativeMediaCache = AdMediaCache(directory: URL(fileURLWithPath: dir).appendingPathComponent("media")) }
        if let t = loadVideoTimeout { options.nativeVideoTimeout = t }
        options.onProgress = onProgress
        var result = try await Self.stitching(request, .media(request.breaks), options)
        result.issues = failures + result.issues
        var lines = StitchSummary.lines(result)
        let last = lines.popLast()
        lines += nativeSummaryLines(result.natives)
        if let last { lines.append(last) }
        return try commit(result, summary: lines) { [result] in try withNatives(try StitchReport(result).json(), result.natives) }
    }
}

/// What `nativeBreaks` found.
private struct NativeBreaksFound {
    var natives: [NativeBreak] = []
    var issues: [StitchIssue] = []
    /// VAST breaks of the VMAP (`--ads`) beside its native ones.
    var vastBreaks = 0
    /// The VMAP as fetched from the network, handed to the AdsLoader so that it is fetched once.
    var vmap: (url: URL, data: Data)?
}

/// The native part of a tag stitch (a VMAP mixing native and VAST breaks, or `--ad-break` tags
/// with `--native-break`): configures the stitch's options, and adds the natives to summary and report.
struct NativeTagHook {
    var natives: [NativeBreak]
    var failures: [StitchIssue]
    var vmap: (url: URL, data: Data)?

    /// Hands the natives (and the VMAP already fetched) to the stitch.
    func configure(_ stitch: inout StitchOptions, _ options: StitchJob) {
        stitch.nativeBreaks = natives
        stitch.playsNativeVMAPBreaks = options.adTag != nil
        stitch.nativeLoadErrors = failures.map { AdError(type: .adLoadingFailed, code: $0.code, message: $0.message) }
        if let vmap { stitch.fetcher = PrefetchedDocumentFetcher(url: vmap.url, data: vmap.data, next: stitch.fetcher) }
        if let dir = options.cacheDir { stitch.nativeMediaCache = AdMediaCache(directory: URL(fileURLWithPath: dir).appendingPathComponent("media")) }
        if let t = options.loadVideoTimeout { stitch.nativeVideoTimeout = t }
    }

    /// The summary with a line per native ad (before the event count).
    func amend(_ summary: inout [String], _ result: StitchResult) {
        summary.insert(contentsOf: nativeSummaryLines(result.natives), at: max(0, summary.count - 2))
    }

    /// The report with its `natives`.
    func json(_ base: Data, _ result: StitchResult) throws -> Data { try withNatives(base, result.natives) }
}

/// The VMAP fetched once: the AdsLoader gets the same bytes for its URL; anything else is fetched by `next`.
struct PrefetchedDocumentFetcher: AdDocumentFetcher {
    let url: URL
    let data: Data
    let next: any AdDocumentFetcher
    func fetch(_ url: URL, timeout: Double, maxBytes: Int) async throws(FetchError) -> Data {
        if url == self.url, data.count <= maxBytes { return data }
        return try await next.fetch(url, timeout: timeout, maxBytes: maxBytes)
    }
}

/// A JSON report with `natives` added.
func withNatives(_ base: Data, _ natives: [NativePlacement]) throws -> Data {
    guard var object = try JSONSerialization.jsonObject(with: base) as? [String: Any] else { return base }
    object["natives"] = try JSONSerialization.jsonObject(with: JSONEncoder().encode(natives))
    return try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
}

extension StitchJob {
    /// The native breaks of the options: `--native-break` responses, and a VMAP's native breaks (`--ads`).
    /// A response that cannot be used (it comes from an ad server: hostile) is left out and reported
    /// as an issue, as a failing VAST ad is; the content is stitched anyway. A format file, a VMAP that
    /// cannot be read, or no native break at all is an error of the command (thrown).
    @MainActor fileprivate func nativeBreaksFound() async throws -> NativeBreaksFound {
        let options = self
        var formats: [NativeFormatFile] = []
        for path in options.nativeFormats { formats.append(try NativeFormatFile.load(path: path)) }
        var settings = NativeLoadSettings()
        if let t = options.vastTimeout { settings.timeout = t / 1000 }
        var out: [NativeBreak] = [], issues: [StitchIssue] = []
        var found = NativeBreaksFound()
        var requested = 0
        let (loaded, failed) = await loadNativeResponses(options.nativeBreaks, formats: formats, settings: settings)
        out += loaded
        issues += failed
        requested += options.nativeBreaks.count
        if let tag = options.adTag {
            guard let url = TagLocation.rootURL(tag) else { throw NativeAdError(.invalidRequest, "'\(tag)' is neither a URL nor a path") }
            let data: Data
            if url.isFileURL {
                data = try NativeAdAssembler.readLocal(url.path, maxBytes: 2 << 20, what: "VMAP")
            } else {
                do { data = try await HTTPAdFetcher().fetch(url, timeout: settings.timeout, maxBytes: 2 << 20) } catch {
                    throw NativeAdError(.networkError, "VMAP \(tag): \(error)")
                }
                found.vmap = (url, data)
            }
            guard case .success(.vmap(let doc)) = AdResponseParser().parse(data) else {
                throw NativeAdError(.invalidRequest, "\(tag) is not a VMAP document (native breaks come in <vmap:CustomAdData templateType=\"openrtb-native\">)")
            }
            let (inVMAP, others) = NativeVMAP.breaks(in: doc)
            found.vastBreaks = others
            for f in inVMAP {
                requested += 1
                do throws(NativeAdError) {
                    out.append(try await NativeBreak.make(position: try f.position.get(), response: try f.response.get(), responseURL: url,
                                                          layout: f.layout, formats: formats, settings: settings))
                } catch {
                    issues.append(nativeIssue(error, "in VMAP break \(f.breakId ?? f.rawTimeOffset)"))
                }
            }
        }
        guard requested > 0 else { throw NativeAdError(.invalidRequest, "--native-format given but no native break (--native-break, or --ads with a VMAP carrying them)") }
        found.natives = out
        found.issues = issues
        return found
    }
}
