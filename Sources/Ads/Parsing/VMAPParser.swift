// Builds a typed VMAPDocument from an XML element tree.
import Foundation
import Timing

/// Turns a `<vmap:VMAP>` element into a `VMAPDocument`. Elements are matched by local name, so the
/// spec namespace, `http://www.iab.net/vmap-1.0`, `//www.iab.net/vmap-1.0` and none all work.
public struct VMAPParser {
    let tree: XMLDocumentTree
    var warnings: [AdIssue] = []

    /// A parser over a document tree.
    public init(tree: XMLDocumentTree) { self.tree = tree }

    /// Parses the `<VMAP>` element.
    public mutating func parseDocument(_ element: XMLElementNode) throws(AdParseError) -> VMAPDocument {
        guard element.name == "VMAP" else {
            throw AdParseError(code: .vmapSchema, message: "root element <\(element.qualifiedName)> is not <VMAP>")
        }
        let version = element.attribute("version")?.trimmingCharacters(in: .whitespaces) ?? ""
        if version.isEmpty {
            warnings.append(AdIssue(code: .vmapSchema, message: "VMAP@version missing; parsed as 1.0", severity: .warning))
        } else if !(version == "1" || version.hasPrefix("1.")) {
            throw AdParseError(code: .vmapVersion, message: "VMAP version \(version) is not supported")
        }
        let vast = VASTParser(tree: tree)
        let breaks = element.children("AdBreak").map { parseBreak($0) }
        return VMAPDocument(version: version, breaks: breaks, extensions: vast.parseExtensions(element.child("Extensions")),
                            warnings: warnings)
    }

    mutating func parseBreak(_ e: XMLElementNode) -> VMAPAdBreak {
        let raw = e.attribute("timeOffset") ?? ""
        let offset = VMAPTimeOffset(parsing: raw)
        let breakId = e.attribute("breakId").flatMap(nonEmpty)
        if offset == nil {
            warnings.append(AdIssue(code: .vmapSchema, message: "AdBreak timeOffset '\(raw)' is invalid; break skipped",
                                    severity: .warning, breakId: breakId))
        }
        var repeatAfter: MediaTime?
        if let r = e.attribute("repeatAfter"), !r.trimmingCharacters(in: .whitespaces).isEmpty {
            repeatAfter = VASTTime.parseClock(r)
            if repeatAfter == nil || repeatAfter == .zero {
                repeatAfter = nil
                warnings.append(AdIssue(code: .vmapSchema, message: "repeatAfter '\(r)' is invalid; ignored", severity: .warning, breakId: breakId))
            }
        }
        let types = (e.attribute("breakType") ?? "linear").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
        var vast = VASTParser(tree: tree)
        var tracking: [TrackingEvent] = []
        for t in e.child("TrackingEvents")?.children("Tracking") ?? [] {
            guard let event = t.attribute("event").flatMap(nonEmpty), let url = nonEmpty(t.trimmedText) else { continue }
            tracking.append(TrackingEvent(event: event, url: URLTemplate(url)))
        }
        return VMAPAdBreak(timeOffset: offset, rawTimeOffset: raw, breakTypes: types.isEmpty ? ["linear"] : types,
                           breakId: breakId, repeatAfter: repeatAfter,
                           adSource: e.child("AdSource").map { parseSource($0, breakId: breakId, vast: &vast) },
                           trackingEvents: tracking, extensions: vast.parseExtensions(e.child("Extensions")))
    }

    mutating func parseSource(_ e: XMLElementNode, breakId: String?, vast: inout VASTParser) -> VMAPAdSource {
        let content: VMAPAdSource.Content
        if let data = e.child("VASTAdData") ?? e.child("VASTData") {
            if let vastElement = data.child("VAST") {
                do {
                    var doc = try vast.parseDocument(vastElement)
                    doc.warnings = doc.warnings.map { var w = $0; w.breakId = breakId; return w }
                    content = .vastAdData(doc)
                } catch {
                    content = .invalid(AdIssue(code: error.code, message: "embedded VAST: \(error.message)", breakId: breakId))
                }
            } else if let other = data.children.first {
                content = .invalid(AdIssue(code: .vmapExtraction, message: "VASTAdData holds <\(other.qualifiedName)>, not <VAST>", breakId: breakId))
            } else if let text = nonEmpty(data.trimmedText), text.contains("<VAST") {
                // Embedded VAST escaped or in CDATA: parse it as its own document.
                switch AdResponseParser().parse(Data(text.utf8)) {
                case .success(.vast(let doc)): content = .vastAdData(doc)
                case .success(.vmap): content = .invalid(AdIssue(code: .vmapExtraction, message: "VASTAdData holds a VMAP", breakId: breakId))
                case .failure(let err): content = .invalid(AdIssue(code: err.code, message: "embedded VAST: \(err.message)", breakId: breakId))
                }
            } else {
                content = .invalid(AdIssue(code: .vmapExtraction, message: "VASTAdData is empty", breakId: breakId))
            }
        } else if let tag = e.child("AdTagURI") {
            let uri = tag.trimmedText
            content = uri.isEmpty ? .empty : .adTagURI(URLTemplate(uri), templateType: tag.attribute("templateType"))
        } else if let custom = e.child("CustomAdData") {
            content = .customAdData(custom.trimmedText.isEmpty ? tree.innerXML(custom) : custom.trimmedText,
                                    templateType: custom.attribute("templateType"))
        } else {
            content = .empty
        }
        return VMAPAdSource(id: e.attribute("id").flatMap(nonEmpty),
                            allowMultipleAds: e.attribute("allowMultipleAds").flatMap(VASTParser.bool),
                            followRedirects: e.attribute("followRedirects").flatMap(VASTParser.bool),
                            content: content)
    }
}
