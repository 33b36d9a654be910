// Builds a typed VASTDocument from an XML element tree, leniently, recording what it tolerated.
import Foundation
import Timing

/// Turns a `<VAST>` element into a `VASTDocument`. Lenient like real players: junk values become
/// nil plus a warning; only structural failures (wrong root, unsupported version) are errors.
public struct VASTParser {
    let tree: XMLDocumentTree
    var warnings: [AdIssue] = []
    var currentAdId: String?

    /// A parser over a document tree (used for raw Extension XML).
    public init(tree: XMLDocumentTree) { self.tree = tree }

    /// Parses the `<VAST>` element `element` (the root, or one embedded in VMAP).
    public mutating func parseDocument(_ element: XMLElementNode) throws(AdParseError) -> VASTDocument {
        if element.name == "VideoAdServingTemplate" {
            throw AdParseError(code: .unsupportedVersion, message: "VAST 1.0 (<VideoAdServingTemplate>) is not supported")
        }
        guard element.name == "VAST" else {
            throw AdParseError(code: .schemaValidation, message: "root element <\(element.qualifiedName)> is not <VAST>")
        }
        let version = element.attribute("version")?.trimmingCharacters(in: .whitespaces) ?? ""
        if version.isEmpty {
            warn(.schemaValidation, "VAST@version missing; parsed as VAST 4.3")
        } else if let major = Int(version.split(separator: ".").first ?? "") {
            if major < 2 { throw AdParseError(code: .unsupportedVersion, message: "VAST version \(version) is not supported") }
            if major > 4 { warn(nil, "VAST version \(version) is newer than 4.3; parsed as 4.3") }
        } else {
            warn(.schemaValidation, "VAST@version '\(version)' is not a number; parsed as VAST 4.3")
        }
        var ads: [VASTAd] = []
        for adElement in element.children("Ad") {
            if let ad = parseAd(adElement) { ads.append(ad) }
        }
        let errors = urls(element.children("Error"))
        return VASTDocument(version: version, ads: ads, errorURLs: errors, warnings: warnings)
    }

    mutating func warn(_ code: VASTErrorCode?, _ message: String) {
        warnings.append(AdIssue(code: code, message: message, severity: .warning, adId: currentAdId))
    }

    mutating func parseAd(_ e: XMLElementNode) -> VASTAd? {
        let id = e.attribute("id").flatMap(nonEmpty)
        currentAdId = id
        defer { currentAdId = nil }
        var sequence: Int?
        if let s = e.attribute("sequence")?.trimmingCharacters(in: .whitespaces), !s.isEmpty {
            if let n = Int(s) { sequence = n } else { warn(.schemaValidation, "Ad@sequence '\(s)' is not an integer; treated as stand-alone") }
        }
        let body = e.children.filter { ["inline", "wrapper"].contains($0.name.lowercased()) }
        guard let first = body.first else {
            warnings.append(AdIssue(code: .schemaValidation, message: "<Ad> has neither <InLine> nor <Wrapper>; skipped",
                                    severity: .error, adId: id))
            return nil
        }
        if body.count > 1 { warn(.schemaValidation, "<Ad> has both InLine and Wrapper; using the first") }
        if first.name != "InLine" && first.name != "Wrapper" { warn(.schemaValidation, "<\(first.name)> should be spelled InLine/Wrapper") }
        let content: VASTAd.Content = first.name.lowercased() == "inline" ? .inline(parseInline(first)) : .wrapper(parseWrapper(first))
        return VASTAd(id: id, sequence: sequence, adType: e.attribute("adType").flatMap(nonEmpty),
                      conditionalAd: e.attribute("conditionalAd").flatMap(VASTParser.bool), content: content)
    }

    mutating func parseInline(_ e: XMLElementNode) -> VASTInline {
        var verifications = e.child("AdVerifications").map { parseVerifications($0) } ?? []
        let extensions = parseExtensions(e.child("Extensions"))
        verifications += verificationsInExtensions(e.child("Extensions"))
        let creatives = e.child("Creatives")?.children("Creative").map { parseCreative($0, inWrapper: false) } ?? []
        if e.child("Creatives") == nil { warn(.schemaValidation, "InLine has no <Creatives>") }
        return VASTInline(
            adSystem: parseAdSystem(e.child("AdSystem")),
            adTitle: e.childText("AdTitle"),
            description: e.childText("Description"),
            advertiser: e.childText("Advertiser"),
            adServingId: e.childText("AdServingId"),
            impressions: impressions(e),
            errorURLs: urls(e.children("Error")),
            categories: e.children("Category").compactMap { c in
                nonEmpty(c.trimmedText).map { AdCategory(authority: c.attribute("authority"), code: $0) }
            },
            pricing: parsePricing(e.child("Pricing")),
            surveys: urls(e.children("Survey")),
            expires: e.childText("Expires").flatMap { Int($0) },
            viewableImpression: e.child("ViewableImpression").map { parseViewable($0) },
            verifications: verifications,
            extensions: extensions,
            creatives: creatives)
    }

    mutating func parseWrapper(_ e: XMLElementNode) -> VASTWrapper {
        var tagURI = e.childText("VASTAdTagURI").map { URLTemplate($0) }
        if tagURI == nil, let legacy = e.child("VASTAdTagURL") {
            let text = legacy.childText("URL") ?? nonEmpty(legacy.trimmedText)
            tagURI = text.map { URLTemplate($0) }
        }
        if e.children("VASTAdTagURI").count > 1 { warn(.schemaValidation, "Wrapper has several <VASTAdTagURI>; using the first") }
        var verifications = e.child("AdVerifications").map { parseVerifications($0) } ?? []
        verifications += verificationsInExtensions(e.child("Extensions"))
        return VASTWrapper(
            adSystem: parseAdSystem(e.child("AdSystem")),
            vastAdTagURI: tagURI,
            followAdditionalWrappers: e.attribute("followAdditionalWrappers").flatMap(VASTParser.bool) ?? true,
            allowMultipleAds: e.attribute("allowMultipleAds").flatMap(VASTParser.bool),
            fallbackOnNoAd: e.attribute("fallbackOnNoAd").flatMap(VASTParser.bool),
            impressions: impressions(e),
            errorURLs: urls(e.children("Error")),
            pricing: parsePricing(e.child("Pricing")),
            viewableImpression: e.child("ViewableImpression").map { parseViewable($0) },
            verifications: verifications,
            blockedAdCategories: e.children("BlockedAdCategories").map { b in
                BlockedAdCategories(authority: b.attribute("authority"),
                                    codes: b.trimmedText.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
            },
            extensions: parseExtensions(e.child("Extensions")),
            creatives: e.child("Creatives")?.children("Creative").map { parseCreative($0, inWrapper: true) } ?? [])
    }

    // MARK: - Creatives

    mutating func parseCreative(_ e: XMLElementNode, inWrapper: Bool) -> VASTCreative {
        let ids = e.children("UniversalAdId").compactMap { u -> UniversalAdId? in
            let value = nonEmpty(u.trimmedText) ?? u.attribute("idValue").flatMap(nonEmpty)
            guard let value else { return nil }
            return UniversalAdId(registry: u.attribute("idRegistry").flatMap(nonEmpty) ?? "unknown", value: value)
        }
        return VASTCreative(
            id: e.attribute("id").flatMap(nonEmpty),
            adId: e.attribute("adId").flatMap(nonEmpty),
            sequence: e.attribute("sequence").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) },
            apiFramework: e.attribute("apiFramework").flatMap(nonEmpty),
            universalAdIds: ids,
            creativeExtensions: parseExtensions(e.child("CreativeExtensions"), itemName: "CreativeExtension"),
            linear: e.child("Linear").map { parseLinear($0, inWrapper: inWrapper) },
            nonLinearAds: e.child("NonLinearAds").map { parseNonLinearAds($0) },
            companionAds: e.child("CompanionAds").map { parseCompanionAds($0) })
    }

    mutating func parseLinear(_ e: XMLElementNode, inWrapper: Bool) -> Linear {
        var duration: MediaTime?
        let durations = e.children("Duration")
        let rawDuration = durations.first?.trimmedText
        if durations.count > 1 { warn(.schemaValidation, "Linear has \(durations.count) <Duration> elements; using the first") }
        if let raw = rawDuration {
            duration = VASTTime.parseClock(raw)
            if duration == nil { warn(.schemaValidation, "Duration '\(raw)' is not a time; duration unknown") }
        } else if !inWrapper {
            warn(.schemaValidation, "Linear has no <Duration>; duration unknown")
        }
        var skip: VASTOffset?
        if let s = e.attribute("skipoffset"), !s.trimmingCharacters(in: .whitespaces).isEmpty {
            skip = VASTOffset(parsing: s)
            if skip == nil { warn(.schemaValidation, "skipoffset '\(s)' is invalid; treated as not skippable") }
        }
        let mf = e.child("MediaFiles")
        let clicks = e.child("VideoClicks")
        return Linear(
            duration: duration,
            rawDuration: rawDuration,
            skipOffset: skip,
            mediaFiles: mf?.children("MediaFile").compactMap { parseMediaFile($0, mezzanine: false) } ?? [],
            mezzanines: mf?.children("Mezzanine").compactMap { parseMediaFile($0, mezzanine: true) } ?? [],
            interactiveCreativeFiles: mf?.children("InteractiveCreativeFile").compactMap { i in
                nonEmpty(i.trimmedText).map {
                    InteractiveCreativeFile(url: URLTemplate($0), type: i.attribute("type"), apiFramework: i.attribute("apiFramework"),
                                            variableDuration: i.attribute("variableDuration").flatMap(VASTParser.bool))
                }
            } ?? [],
            closedCaptionFiles: mf?.child("ClosedCaptionFiles")?.children("ClosedCaptionFile").compactMap { c in
                nonEmpty(c.trimmedText).map { ClosedCaptionFile(url: URLTemplate($0), type: c.attribute("type"), language: c.attribute("language")) }
            } ?? [],
            trackingEvents: parseTracking(e.child("TrackingEvents")),
            videoClicks: VideoClicks(clickThrough: clicks?.childText("ClickThrough").map { URLTemplate($0) },
                                     clickTracking: urls(clicks?.children("ClickTracking") ?? []),
                                     customClicks: urls(clicks?.children("CustomClick") ?? [])),
            icons: e.child("Icons")?.children("Icon").map { parseIcon($0) } ?? [],
            adParameters: e.child("AdParameters").map { $0.trimmedText })
    }

    mutating func parseMediaFile(_ e: XMLElementNode, mezzanine: Bool) -> MediaFile? {
        guard let url = nonEmpty(e.trimmedText) else {
            warn(.schemaValidation, "<\(e.name)> without a URI skipped")
            return nil
        }
        return MediaFile(
            url: URLTemplate(url),
            delivery: e.attribute("delivery").flatMap(nonEmpty)?.lowercased(),
            type: e.attribute("type").flatMap(nonEmpty)?.lowercased(),
            width: int(e.attribute("width")), height: int(e.attribute("height")),
            codec: e.attribute("codec").flatMap(nonEmpty), id: e.attribute("id").flatMap(nonEmpty),
            bitrate: int(e.attribute("bitrate")), minBitrate: int(e.attribute("minBitrate")), maxBitrate: int(e.attribute("maxBitrate")),
            scalable: e.attribute("scalable").flatMap(VASTParser.bool),
            maintainAspectRatio: e.attribute("maintainAspectRatio").flatMap(VASTParser.bool),
            apiFramework: e.attribute("apiFramework").flatMap(nonEmpty),
            fileSize: int(e.attribute("fileSize")), mediaType: e.attribute("mediaType").flatMap(nonEmpty),
            isMezzanine: mezzanine)
    }

    mutating func parseTracking(_ container: XMLElementNode?) -> [TrackingEvent] {
        guard let container else { return [] }
        var out: [TrackingEvent] = []
        for t in container.children("Tracking") {
            guard let event = t.attribute("event").flatMap(nonEmpty) else {
                warn(.schemaValidation, "<Tracking> without an event ignored")
                continue
            }
            guard let url = nonEmpty(t.trimmedText), URLTemplate(url).isUsable else { continue }
            var offset: VASTOffset?
            if event == "progress" {
                guard let raw = t.attribute("offset"), let o = VASTOffset(parsing: raw) else {
                    warn(.schemaValidation, "progress <Tracking> without a valid offset ignored")
                    continue
                }
                offset = o
            }
            out.append(TrackingEvent(event: event, offset: offset, url: URLTemplate(url)))
        }
        return out
    }

    func parseResources(_ e: XMLElementNode) -> [CreativeResource] {
        var out: [CreativeResource] = []
        for c in e.children {
            switch c.name {
            case "StaticResource":
                if let u = nonEmpty(c.trimmedText) { out.append(.staticResource(url: URLTemplate(u), creativeType: c.attribute("creativeType"))) }
            case "IFrameResource":
                if let u = nonEmpty(c.trimmedText) { out.append(.iframe(URLTemplate(u))) }
            case "HTMLResource":
                if let h = nonEmpty(c.trimmedText) { out.append(.html(h)) }
            default: break
            }
        }
        return out
    }

    mutating func parseIcon(_ e: XMLElementNode) -> Icon {
        let clicks = e.child("IconClicks")
        return Icon(program: e.attribute("program"), width: int(e.attribute("width")), height: int(e.attribute("height")),
                    xPosition: e.attribute("xPosition"), yPosition: e.attribute("yPosition"),
                    duration: e.attribute("duration").flatMap(VASTTime.parseClock),
                    offset: e.attribute("offset").flatMap(VASTTime.parseClock),
                    apiFramework: e.attribute("apiFramework"), pxratio: e.attribute("pxratio"),
                    altText: e.attribute("altText"), hoverText: e.attribute("hoverText"),
                    resources: parseResources(e),
                    clickThrough: clicks?.childText("IconClickThrough").map { URLTemplate($0) },
                    clickTracking: urls(clicks?.children("IconClickTracking") ?? []),
                    viewTracking: urls(e.children("IconViewTracking")))
    }

    mutating func parseNonLinearAds(_ e: XMLElementNode) -> NonLinearAds {
        NonLinearAds(nonLinears: e.children("NonLinear").map { n in
            NonLinear(id: n.attribute("id"), width: int(n.attribute("width")), height: int(n.attribute("height")),
                      minSuggestedDuration: n.attribute("minSuggestedDuration").flatMap(VASTTime.parseClock),
                      apiFramework: n.attribute("apiFramework"), resources: parseResources(n),
                      adParameters: n.child("AdParameters")?.trimmedText,
                      clickThrough: n.childText("NonLinearClickThrough").map { URLTemplate($0) },
                      clickTracking: urls(n.children("NonLinearClickTracking")))
        }, trackingEvents: parseTracking(e.child("TrackingEvents")))
    }

    mutating func parseCompanionAds(_ e: XMLElementNode) -> CompanionAds {
        CompanionAds(required: e.attribute("required"), companions: e.children("Companion").map { c in
            Companion(id: c.attribute("id"), width: int(c.attribute("width")), height: int(c.attribute("height")),
                      adSlotId: c.attribute("adSlotId") ?? c.attribute("adSlotID"), apiFramework: c.attribute("apiFramework"),
                      renderingMode: c.attribute("renderingMode"), resources: parseResources(c),
                      adParameters: c.child("AdParameters")?.trimmedText, altText: c.childText("AltText"),
                      clickThrough: c.childText("CompanionClickThrough").map { URLTemplate($0) },
                      clickTracking: urls(c.children("CompanionClickTracking")),
                      trackingEvents: parseTracking(c.child("TrackingEvents")))
        })
    }

    // MARK: - Small elements

    func parseAdSystem(_ e: XMLElementNode?) -> AdSystem? {
        guard let e, let name = nonEmpty(e.trimmedText) else { return nil }
        return AdSystem(name: name, version: e.attribute("version"))
    }

    func parsePricing(_ e: XMLElementNode?) -> Pricing? {
        guard let e, let v = nonEmpty(e.trimmedText) else { return nil }
        return Pricing(model: e.attribute("model"), currency: e.attribute("currency"), value: v)
    }

    func parseViewable(_ e: XMLElementNode) -> ViewableImpression {
        ViewableImpression(id: e.attribute("id"), viewable: urls(e.children("Viewable")),
                           notViewable: urls(e.children("NotViewable")), viewUndetermined: urls(e.children("ViewUndetermined")))
    }

    mutating func parseVerifications(_ e: XMLElementNode) -> [Verification] {
        e.children("Verification").map { v in
            func resources(_ name: String) -> [Verification.Resource] {
                v.children(name).compactMap { r in
                    nonEmpty(r.trimmedText).map {
                        Verification.Resource(apiFramework: r.attribute("apiFramework"), type: r.attribute("type") ?? r.attribute("language"),
                                              browserOptional: r.attribute("browserOptional").flatMap(VASTParser.bool), url: URLTemplate($0))
                    }
                }
            }
            return Verification(vendor: v.attribute("vendor"), javaScriptResources: resources("JavaScriptResource"),
                                executableResources: resources("ExecutableResource"),
                                trackingEvents: parseTracking(v.child("TrackingEvents")),
                                parameters: v.child("VerificationParameters").map { $0.trimmedText })
        }
    }

    mutating func verificationsInExtensions(_ e: XMLElementNode?) -> [Verification] {
        guard let e else { return [] }
        var out: [Verification] = []
        for ext in e.children("Extension") where ext.attribute("type")?.lowercased() == "adverifications" {
            for av in ext.children("AdVerifications") { out += parseVerifications(av) }
        }
        return out
    }

    func parseExtensions(_ e: XMLElementNode?, itemName: String = "Extension") -> [VASTExtension] {
        guard let e else { return [] }
        return e.children(itemName).map { x in
            VASTExtension(type: x.attribute("type"),
                          attributes: Dictionary(x.attributes.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a }),
                          rawXML: tree.outerXML(x), innerXML: tree.innerXML(x), element: x)
        }
    }

    func impressions(_ e: XMLElementNode) -> [Impression] {
        e.children("Impression").compactMap { i in
            let u = URLTemplate(i.trimmedText)
            return u.isUsable ? Impression(id: i.attribute("id").flatMap(nonEmpty), url: u) : nil
        }
    }

    func urls(_ elements: [XMLElementNode]) -> [URLTemplate] {
        elements.map { URLTemplate($0.trimmedText) }.filter(\.isUsable)
    }

    func int(_ s: String?) -> Int? {
        guard let s = s?.trimmingCharacters(in: .whitespaces), !s.isEmpty else { return nil }
        if let i = Int(s) { return i }
        if let d = Double(s), d.isFinite, abs(d) < 1e12 { return Int(d) }
        return nil
    }

    /// Parses a VAST boolean: `true/false/1/0`, case-insensitive; nil otherwise.
    public static func bool(_ s: String) -> Bool? {
        switch s.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() {
        case "true", "1", "yes": return true
        case "false", "0", "no": return false
        default: return nil
        }
    }
}

func nonEmpty(_ s: String) -> String? {
    let t = s.trimmingCharacters(in: .whitespacesAndNewlines)
    return t.isEmpty ? nil : t
}
