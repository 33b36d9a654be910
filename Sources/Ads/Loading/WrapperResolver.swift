// Following wrapper chains and merging tracking down them; building breaks from documents.
import Foundation
import Timing

/// The state of one wrapper chain on the way down to an InLine.
struct Chain: Sendable {
    var hops: [WrapperHop] = []
    var wrappers: [VASTWrapper] = []
    var visited: Set<String> = []
    var base: URL?
    var followAdditional = true
    /// nil: no parent restriction (a root response or a VMAP source allowing multiple ads).
    var allowMultipleAds: Bool?
    /// Whether `allowMultipleAds` is false only by VAST 3+'s default (the wrapper had no attribute).
    var allowMultipleAdsByDefault = false
    var followRedirects = true
    var breakId: String?
    var blocked: [BlockedAdCategories] = []
    var documentMajorVersion: Int?
    /// Whether the document was fetched from a VMAP `AdTagURI`: a wrapper of the VMAP's, for codes.
    var reachedByAdTagURI = false

    var ancestorErrorURLs: [URLTemplate] { wrappers.flatMap(\.errorURLs) }
    /// Whether any document on the way down came from the network (its media may not be local).
    var isFromNetwork: Bool {
        func remote(_ s: String?) -> Bool { guard let s = s?.lowercased() else { return false }; return s.hasPrefix("http:") || s.hasPrefix("https:") }
        return remote(base?.absoluteString) || hops.contains { remote($0.tagURL) }
    }
}

/// What a document resolved to: the pod to play, the leftover buffet, the issues.
struct DocumentResult: Sendable {
    var pod: [ResolvedAd] = []
    var buffet: [ResolvedAd] = []
    var issues: [AdIssue] = []
}

/// What one `<Ad>` resolved to: zero ads (failed), one, or a pod (a wrapper returning several).
struct AdResult: Sendable {
    var ads: [ResolvedAd] = []
    var issues: [AdIssue] = []
    var fallbackAllowed = true
}

/// The resolution engine behind `AdTagResolver`.
struct ChainResolver: Sendable {
    let options: AdTagOptions
    let fetcher: any AdDocumentFetcher

    // MARK: - Fetching

    /// Reads a file or fetches an http(s) URL, under the size cap and timeout.
    /// `request`: how an http(s) document is asked for (a root tag's `POST`; wrappers are `GET`).
    func fetchDocument(_ url: URL, timeout: Double, request: AdHTTPRequest = .get) async throws(FetchError) -> Data {
        if url.isFileURL {
            let path = url.path
            guard let attrs = try? FileManager.default.attributesOfItem(atPath: path) else {
                throw .file("cannot read \(path): no such file")
            }
            if let type = attrs[.type] as? FileAttributeType, type == .typeDirectory { throw .file("\(path) is a directory") }
            // A FIFO or device would block or never end: only regular files are documents.
            var st = stat()
            if stat(path, &st) == 0, st.st_mode & S_IFMT != S_IFREG { throw .file("\(path) is not a regular file") }
            if let size = attrs[.size] as? NSNumber, size.intValue > options.maxDocumentBytes {
                throw .tooLarge(limit: options.maxDocumentBytes)
            }
            guard let data = FileManager.default.contents(atPath: path) else { throw .file("cannot read \(path)") }
            if data.count > options.maxDocumentBytes { throw .tooLarge(limit: options.maxDocumentBytes) }
            if data.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 10 || $0 == 13 }) { throw .noContent }
            return data
        }
        guard options.allowNetwork else { throw .network("network disabled (offline mode)") }
        let data = request.method == .get ? try await fetcher.fetch(url, timeout: timeout, maxBytes: options.maxDocumentBytes)
                                           : try await fetcher.fetch(url, request: request, timeout: timeout, maxBytes: options.maxDocumentBytes)
        if data.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 10 || $0 == 13 }) { throw .noContent }
        return data
    }

    // MARK: - Roots

    func prerollBreak(pod: [ResolvedAd], buffet: [ResolvedAd]) -> ScheduledBreak {
        ScheduledBreak(id: "preroll", timeOffset: .start, cue: .preroll, podIndex: 0,
                       breakTypes: ["linear"], ads: positioned(pod), standaloneAds: buffet.map { var a = $0; a.adPosition = 1; return a },
                       trackingEvents: [], adSourceId: nil, adTagURI: nil, extensions: [])
    }

    func positioned(_ ads: [ResolvedAd]) -> [ResolvedAd] {
        ads.enumerated().map { i, a in var a = a; a.adPosition = i + 1; return a }
    }

    /// A plain VAST response: one pre-roll break, as IMA does.
    func resolveRootVAST(_ doc: VASTDocument, url: URL?, tag: String?) async -> AdSchedule {
        var chain = Chain()
        chain.base = url
        if let url { chain.visited = [url.absoluteString] }
        chain.documentMajorVersion = doc.majorVersion
        let r = await resolveDocument(doc, chain: chain)
        var schedule = AdSchedule(kind: .vast, tag: tag, breaks: [prerollBreak(pod: r.pod, buffet: r.buffet)], issues: r.issues)
        schedule.isEmptyResponse = doc.ads.isEmpty
        return schedule
    }

    /// A VMAP playlist: every break resolved (concurrently), placed and ordered.
    func resolveVMAP(_ doc: VMAPDocument, url: URL?, tag: String?) async -> AdSchedule {
        var issues = doc.warnings
        let indexed = Array(doc.breaks.enumerated()).filter { $0.element.timeOffset != nil && !$0.element.isAppBreak(options.appTemplateTypes) }
        let results = await withTaskGroup(of: (Int, ScheduledBreak, [AdIssue]).self) { group in
            for (i, b) in indexed {
                group.addTask { let (sb, iss) = await self.resolveBreak(b, vmapURL: url); return (i, sb, iss) }
            }
            var out: [(Int, ScheduledBreak, [AdIssue])] = []
            for await r in group { out.append(r) }
            return out.sorted { $0.0 < $1.0 }
        }
        var breaks: [ScheduledBreak] = []
        for (_, b, iss) in results {
            breaks.append(b)
            issues += iss
        }
        breaks = expandRepeats(breaks, doc: doc, issues: &issues)
        return AdSchedule(kind: .vmap, tag: tag, breaks: CueScheduler.order(breaks), issues: issues)
    }

    func resolveBreak(_ b: VMAPAdBreak, vmapURL: URL?) async -> (ScheduledBreak, [AdIssue]) {
        var issues: [AdIssue] = []
        let placement = CueScheduler.place(b.timeOffset!, contentDuration: options.contentDuration)
        if let why = placement.unplacedReason {
            issues.append(AdIssue(code: nil, message: "break \(b.breakId ?? b.rawTimeOffset): \(why)", severity: .warning, breakId: b.breakId))
        }
        if !b.breakTypes.contains("linear") {
            issues.append(AdIssue(code: .vmapBreakType, message: "breakType '\(b.breakTypes.joined(separator: ","))' is not linear; a splicer cannot play it",
                                  severity: .warning, breakId: b.breakId))
        }
        var chain = Chain()
        chain.base = vmapURL
        if let vmapURL { chain.visited = [vmapURL.absoluteString] }
        chain.allowMultipleAds = b.adSource?.allowMultipleAds == false ? false : nil
        chain.followRedirects = b.adSource?.followRedirects ?? true
        chain.breakId = b.breakId
        var result = DocumentResult()
        var adTagURI: String?
        func fail(_ code: VASTErrorCode, _ message: String) {
            result.issues.append(AdIssue(code: code, message: message, breakId: b.breakId))
        }
        switch b.adSource?.content {
        case nil, .empty?:
            break
        case .vastAdData(let doc)?:
            chain.documentMajorVersion = doc.majorVersion
            result = await resolveDocument(doc, chain: chain)
        case .invalid(let issue)?:
            result.issues.append(issue)
        case .customAdData(let text, let templateType)?:
            if case .success(.vast(let doc)) = AdResponseParser(maxBytes: options.maxDocumentBytes).parse(Data(text.utf8)) {
                chain.documentMajorVersion = doc.majorVersion
                result = await resolveDocument(doc, chain: chain)
            } else {
                fail(.vmapTemplateType, "CustomAdData (templateType '\(templateType ?? "")') is not VAST; not supported")
            }
        case .adTagURI(let template, _)?:
            let expanded = MacroExpander.expand(template, context: MacroContext())
            switch TagLocation.resolve(expanded, base: vmapURL) {
            case .failure(let refusal):
                fail(.vmapRetrieval, "AdTagURI refused: \(refusal.message)")
            case .success(let url):
                adTagURI = url.absoluteString
                do {
                    let data = try await fetchDocument(url, timeout: options.initialTimeout)
                    switch AdResponseParser(maxBytes: options.maxDocumentBytes).parse(data) {
                    case .success(.vast(let doc)):
                        chain.base = url
                        chain.reachedByAdTagURI = true
                        chain.visited.insert(url.absoluteString)
                        chain.documentMajorVersion = doc.majorVersion
                        result = await resolveDocument(doc, chain: chain)
                    case .success(.vmap):
                        fail(.vmapExtraction, "AdTagURI \(url.absoluteString) returned VMAP, not VAST")
                    case .failure(let e):
                        fail(.vmapExtraction, "AdTagURI \(url.absoluteString): error \(e.code): \(e.message)")
                    }
                } catch {
                    switch error {
                    case .timeout: fail(.vmapRetrievalTimeout, "AdTagURI \(url.absoluteString): \(error)")
                    case .noContent: fail(.noAdsAfterWrapper, "AdTagURI \(url.absoluteString) returned an empty response (no ads)")
                    case .tooLarge: fail(.vmapExtraction, "AdTagURI \(url.absoluteString): \(error)")
                    default: fail(.vmapRetrieval, "AdTagURI \(url.absoluteString): \(error)")
                    }
                }
            }
        }
        // Errors that left the break empty are also reported to the break's own error tracking.
        let breakErrors = b.trackingEvents.filter { $0.event == "error" }.map(\.url)
        if result.pod.isEmpty && !breakErrors.isEmpty {
            result.issues = result.issues.map { i in
                guard i.severity == .error else { return i }
                var i = i
                i.errorURLs += breakErrors
                return i
            }
        }
        let sb = ScheduledBreak(id: b.breakId, timeOffset: b.timeOffset!, cue: placement.cue,
                                podIndex: nil, breakTypes: b.breakTypes, ads: positioned(result.pod),
                                standaloneAds: result.buffet.map { var a = $0; a.adPosition = 1; return a },
                                trackingEvents: b.trackingEvents, adSourceId: b.adSource?.id, adTagURI: adTagURI, extensions: b.extensions)
        return (sb, issues + result.issues.map { var i = $0; if i.breakId == nil { i.breakId = b.breakId }; return i })
    }

    /// Adds the repeats of breaks with `repeatAfter` up to the content duration; earlier breaks win overlaps.
    func expandRepeats(_ breaks: [ScheduledBreak], doc: VMAPDocument, issues: inout [AdIssue]) -> [ScheduledBreak] {
        var out = breaks
        let repeating = doc.breaks.filter { $0.repeatAfter != nil && $0.timeOffset != nil }
        guard !repeating.isEmpty else { return out }
        guard let duration = options.contentDuration else {
            issues.append(AdIssue(code: nil, message: "repeatAfter needs the content duration (--content-duration); repeats not scheduled",
                                  severity: .warning))
            return out
        }
        for source in breaks {
            guard let vb = repeating.first(where: { $0.breakId == source.id && $0.timeOffset == source.timeOffset }),
                  let interval = vb.repeatAfter, let start = source.cueTime else { continue }
            var k: Int64 = 1
            while k <= 1000 {
                let cue = start + interval * k
                if cue >= duration { break }
                if !out.contains(where: { $0.cueTime == cue }) {
                    var copy = source
                    copy.cue = .midroll(cue)
                    copy.timeOffset = .time(cue)
                    copy.id = (source.id ?? "break") + "-repeat-\(k)"
                    out.append(copy)
                }
                k += 1
            }
        }
        return out
    }

    // MARK: - Documents and ads

    /// Resolves every ad of a document (concurrently) and assembles the pod and the buffet.
    func resolveDocument(_ doc: VASTDocument, chain: Chain) async -> DocumentResult {
        var issues = doc.warnings.map { w -> AdIssue in var w = w; w.breakId = chain.breakId; return w }
        guard !doc.ads.isEmpty else {
            let message = chain.hops.isEmpty ? "the VAST response has no ads"
                : "no ads after \(chain.hops.count) wrapper(s) (last tag \(chain.hops.last!.tagURL))"
            issues.append(AdIssue(code: .noAdsAfterWrapper, message: message, adId: chain.hops.last?.adId,
                                  breakId: chain.breakId, errorURLs: chain.ancestorErrorURLs + doc.errorURLs))
            return DocumentResult(issues: issues)
        }
        var candidates = doc.ads
        if chain.allowMultipleAds == false && doc.ads.count > 1 {
            let keep = doc.standaloneAds.first ?? doc.podAds.first!
            let why = chain.allowMultipleAdsByDefault
                ? "the wrapper above has no allowMultipleAds attribute (VAST 3+'s default: false)" : "allowMultipleAds=false"
            issues.append(AdIssue(code: nil, message: "\(why): using ad \(keep.id ?? "?") only of the \(doc.ads.count) ads of this response",
                                  severity: .warning, adId: keep.id, breakId: chain.breakId))
            candidates = [VASTAd(id: keep.id, sequence: nil, adType: keep.adType, conditionalAd: keep.conditionalAd, content: keep.content)]
        }
        let candidateDoc = VASTDocument(version: doc.version, ads: candidates, errorURLs: doc.errorURLs)
        let podAds = candidateDoc.podAds
        let buffetAds = candidateDoc.standaloneAds
        let all = podAds + buffetAds
        let results = await withTaskGroup(of: (Int, AdResult).self) { group in
            for (i, ad) in all.enumerated() {
                group.addTask { (i, await self.resolveAd(ad, chain: chain)) }
            }
            var out: [(Int, AdResult)] = []
            for await r in group { out.append(r) }
            return out.sorted { $0.0 < $1.0 }.map(\.1)
        }
        for r in results { issues += r.issues }
        let podResults = Array(results.prefix(podAds.count))
        let buffetUnits = results.dropFirst(podAds.count).filter { !$0.ads.isEmpty }.map(\.ads)
        if !podAds.isEmpty {
            var spare = buffetUnits.flatMap { $0 }
            spare = spare.filter { $0.mediaFile != nil } + spare.filter { $0.mediaFile == nil }
            var pod: [ResolvedAd] = []
            for (i, r) in podResults.enumerated() {
                if !r.ads.isEmpty {
                    pod += r.ads
                } else if r.fallbackAllowed, !spare.isEmpty {
                    var sub = spare.removeFirst()
                    sub.sequence = podAds[i].sequence
                    issues.append(AdIssue(code: nil, message: "pod ad \(podAds[i].id ?? "?") failed; stand-alone ad \(sub.id ?? "?") played in its place",
                                          severity: .warning, adId: podAds[i].id, breakId: chain.breakId))
                    pod.append(sub)
                }
            }
            return DocumentResult(pod: pod, buffet: spare, issues: issues)
        }
        guard !buffetUnits.isEmpty else { return DocumentResult(issues: issues) }
        let pick = buffetUnits.firstIndex { $0.contains { $0.mediaFile != nil } } ?? 0
        let rest = buffetUnits.enumerated().filter { $0.offset != pick }.flatMap(\.element)
        return DocumentResult(pod: buffetUnits[pick], buffet: rest, issues: issues)
    }

    func resolveAd(_ ad: VASTAd, chain: Chain) async -> AdResult {
        switch ad.content {
        case .inline(let inline): return resolveInline(ad, inline, chain: chain)
        case .wrapper(let wrapper): return await resolveWrapper(ad, wrapper, chain: chain)
        }
    }

    func resolveWrapper(_ ad: VASTAd, _ w: VASTWrapper, chain: Chain) async -> AdResult {
        let errorURLs = chain.ancestorErrorURLs + w.errorURLs
        let fallback = w.fallbackOnNoAd != false
        func fail(_ code: VASTErrorCode, _ message: String) -> AdResult {
            AdResult(ads: [], issues: [AdIssue(code: code, message: message, adId: ad.id, breakId: chain.breakId, errorURLs: errorURLs)],
                     fallbackAllowed: fallback)
        }
        if !chain.followRedirects {
            return fail(.wrapperGeneral, "wrapper not followed: the VMAP AdSource has followRedirects=false")
        }
        if !chain.followAdditional {
            return fail(.wrapperGeneral, "wrapper not followed: a parent wrapper set followAdditionalWrappers=false")
        }
        guard let tag = w.vastAdTagURI, tag.isUsable else { return fail(.wrapperGeneral, "wrapper has no VASTAdTagURI") }
        if chain.hops.count >= options.maxRedirects {
            return fail(.wrapperLimit, "wrapper limit reached: more than \(options.maxRedirects) redirects")
        }
        let key: String
        switch TagLocation.resolve(tag.template, base: chain.base) {
        case .failure(let r): return fail(.wrapperGeneral, "VASTAdTagURI refused: \(r.message)")
        case .success(let u): key = u.absoluteString
        }
        if chain.visited.contains(key) { return fail(.wrapperLimit, "wrapper loop: \(key) is already in the chain") }
        let url: URL
        switch TagLocation.resolve(MacroExpander.expand(tag, context: MacroContext()), base: chain.base) {
        case .failure(let r): return fail(.wrapperGeneral, "VASTAdTagURI refused: \(r.message)")
        case .success(let u): url = u
        }
        let data: Data
        do {
            data = try await fetchDocument(url, timeout: options.wrapperTimeout)
        } catch {
            switch error {
            case .noContent: return fail(.noAdsAfterWrapper, "wrapper tag \(url.absoluteString) returned an empty response")
            case .tooLarge: return fail(.xmlParsing, "wrapper tag \(url.absoluteString): \(error)")
            case .refusedScheme: return fail(.wrapperGeneral, "wrapper tag \(url.absoluteString): \(error)")
            default: return fail(.wrapperTimeout, "wrapper tag \(url.absoluteString): \(error)")
            }
        }
        let childDoc: VASTDocument
        switch AdResponseParser(maxBytes: options.maxDocumentBytes).parse(data) {
        case .failure(let e):
            // A wrapper's target that is not XML at all is a failed wrapper URI (301), as the spec
            // ("URI was either unavailable or reached a timeout") and vast-client-js have it; XML
            // refused (a DTD, the size cap) stays 100, XML that is not VAST 101.
            let code: VASTErrorCode = e.isNotXML ? .wrapperTimeout : e.code.rawValue >= 1000 ? .schemaValidation : e.code
            return fail(code, "wrapper tag \(url.absoluteString): \(e.message)")
        case .success(.vmap):
            return fail(.schemaValidation, "wrapper tag \(url.absoluteString) returned VMAP, not VAST")
        case .success(.vast(let d)):
            childDoc = d
        }
        var child = chain
        child.hops.append(WrapperHop(tagURL: url.absoluteString, adId: ad.id ?? "", adSystem: w.adSystem?.name ?? "",
                                     creativeIds: w.creatives.map { $0.id ?? "" }, documentURL: chain.base?.absoluteString))
        child.wrappers.append(w)
        child.visited.insert(key)
        child.base = url
        child.followAdditional = chain.followAdditional && w.followAdditionalWrappers
        let legacy = (chain.documentMajorVersion ?? 3) < 3
        child.allowMultipleAds = w.allowMultipleAds ?? (legacy ? true : options.defaultAllowMultipleAds)
        child.allowMultipleAdsByDefault = w.allowMultipleAds == nil && !legacy && !options.defaultAllowMultipleAds
        child.blocked += w.blockedAdCategories
        child.documentMajorVersion = childDoc.majorVersion
        let r = await resolveDocument(childDoc, chain: child)
        var ads = r.pod
        if ads.count == 1, let s = ad.sequence { ads[0].sequence = s }
        return AdResult(ads: ads, issues: r.issues, fallbackAllowed: fallback)
    }

    func resolveInline(_ ad: VASTAd, _ inline: VASTInline, chain: Chain) -> AdResult {
        let wrappers = chain.wrappers
        let errorURLs = chain.ancestorErrorURLs + inline.errorURLs
        var issues: [AdIssue] = []
        func issue(_ code: VASTErrorCode?, _ message: String, _ severity: AdIssue.Severity = .error) {
            issues.append(AdIssue(code: code, message: message, severity: severity, adId: ad.id, breakId: chain.breakId,
                                  errorURLs: severity == .error ? errorURLs : []))
        }
        for blocked in chain.blocked {
            for c in inline.categories where blocked.codes.contains(c.code)
                && (blocked.authority == nil || c.authority == nil || blocked.authority == c.authority) {
                issue(.blockedCategory, "category \(c.code) is blocked by a wrapper's BlockedAdCategories")
                return AdResult(issues: issues)
            }
        }
        let linearCreatives = inline.creatives.filter { $0.linear != nil }
        let creative = linearCreatives.first { !($0.linear!.mediaFiles.isEmpty && $0.linear!.mezzanines.isEmpty) } ?? linearCreatives.first
        let linear = creative?.linear
        let nonLinears = inline.creatives.compactMap(\.nonLinearAds).flatMap(\.nonLinears)
        let inlineCompanions = inline.creatives.compactMap(\.companionAds).flatMap(\.companions)
        if linear == nil && nonLinears.isEmpty && inlineCompanions.isEmpty {
            // behind a wrapper (or a VMAP AdTagURI) an InLine without creatives is no ad: 303, as the
            // spec and vast-client-js have it; in the response in hand, a trafficking error
            issue(chain.hops.isEmpty && !chain.reachedByAdTagURI ? .trafficking : .noAdsAfterWrapper, "InLine ad has no creatives")
            return AdResult(issues: issues)
        }
        var selection: MediaSelection
        if let linear {
            var prefs = options.media
            if chain.isFromNetwork { prefs.allowLocalFiles = false }
            selection = MediaFileSelector.select(mediaFiles: linear.mediaFiles, mezzanines: linear.mezzanines, preferences: prefs)
            if selection.chosen == nil { issue(.noSupportedMediaFile, "no supported media file: \(selection.reason)") }
        } else {
            selection = MediaSelection(chosen: nil, reason: "no Linear creative", rejected: [], errorCode: .unexpectedLinearity)
            issue(.unexpectedLinearity, "ad has no Linear creative (NonLinear/Companion only); a linear break cannot play it")
        }
        var skip: MediaTime?
        if let offset = linear?.skipOffset {
            skip = offset.resolved(duration: linear?.duration)
            if skip == nil { issue(nil, "skipoffset \(offset) cannot be resolved without a duration", .warning) }
        }
        let wrapperLinears = wrappers.flatMap { $0.creatives.compactMap(\.linear) }
        let extensions = wrappers.flatMap(\.extensions) + inline.extensions
        let resolved = ResolvedAd(
            id: ad.id, sequence: ad.sequence, adPosition: 1, adType: ad.adType ?? "video",
            title: inline.adTitle, adDescription: inline.description, advertiser: inline.advertiser,
            adSystem: inline.adSystem, adServingId: inline.adServingId,
            duration: linear?.duration, skipOffset: skip,
            creativeId: creative?.id ?? inline.creatives.first?.id, creativeAdId: creative?.adId ?? inline.creatives.first?.adId,
            universalAdIds: creative?.universalAdIds ?? inline.creatives.first?.universalAdIds ?? [],
            categories: inline.categories,
            pricing: wrappers.compactMap(\.pricing).first ?? inline.pricing,
            isLinear: linear != nil,
            mediaFile: selection.chosen, mediaSelection: selection,
            impressions: wrappers.flatMap { $0.impressions.map(\.url) } + inline.impressions.map(\.url),
            errorURLs: errorURLs,
            trackingEvents: wrapperLinears.flatMap(\.trackingEvents) + (linear?.trackingEvents ?? []),
            clickThrough: linear?.videoClicks.clickThrough ?? wrapperLinears.reversed().compactMap(\.videoClicks.clickThrough).first,
            clickTracking: wrapperLinears.flatMap(\.videoClicks.clickTracking) + (linear?.videoClicks.clickTracking ?? []),
            customClicks: wrapperLinears.flatMap(\.videoClicks.customClicks) + (linear?.videoClicks.customClicks ?? []),
            icons: (linear?.icons ?? []) + wrapperLinears.flatMap(\.icons),
            companions: inlineCompanions + wrappers.flatMap { $0.creatives.compactMap(\.companionAds).flatMap(\.companions) },
            nonLinears: nonLinears,
            nonLinearTrackingEvents: (wrappers.flatMap(\.creatives) + inline.creatives).compactMap(\.nonLinearAds).flatMap(\.trackingEvents),
            wrapperNonLinearClickTracking: wrappers.flatMap(\.creatives).compactMap(\.nonLinearAds).flatMap(\.nonLinears).flatMap(\.clickTracking),
            viewableImpressions: wrappers.compactMap(\.viewableImpression) + [inline.viewableImpression].compactMap { $0 },
            verifications: wrappers.flatMap(\.verifications) + inline.verifications,
            extensions: extensions,
            adParameters: linear?.adParameters,
            uiHideable: extensions.compactMap(\.uiHideable).last,
            wrappers: chain.hops,
            inline: inline)
        return AdResult(ads: [resolved], issues: issues)
    }
}
