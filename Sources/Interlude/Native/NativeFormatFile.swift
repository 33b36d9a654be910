// A publisher's format file: the format definition with its full-frame and L-bar templates.
import Ads
import Foundation

/// A native format file as the CLI and apps keep it: the definition (asset names to ids), the
/// full-frame `template` and the `lbar` template (either may be absent).
package struct NativeFormatFile: Sendable {
    /// The definition.
    package var definition: NativeFormatDefinition
    /// The full-frame layout.
    package var fullFrame: NativeTemplate?
    /// The L-bar layout (with a `content` view).
    package var lBar: NativeTemplate?

    /// A format file from its JSON; one-line errors.
    package static func parse(_ data: Data) throws(NativeAdError) -> NativeFormatFile {
        let definition: NativeFormatDefinition
        switch NativeFormatDefinition.parse(data) {
        case .success(let d): definition = d
        case .failure(let e): throw NativeAdError(.invalidRequest, e.message)
        }
        func template(_ key: String) throws(NativeAdError) -> NativeTemplate? {
            switch NativeTemplate.parse(formatFile: data, key: key) {
            case .success(let t): return t
            case .failure(let e): throw NativeAdError(.invalidRequest, "native format \(definition.formatID): \(e.message)")
            }
        }
        let lBar = try template("lbar")
        if let lBar, !lBar.hasContentWindow {
            throw NativeAdError(.invalidRequest, "native format \(definition.formatID): lbar has no view of kind content")
        }
        return NativeFormatFile(definition: definition, fullFrame: try template("template"), lBar: lBar)
    }

    /// The format file at `path` (a regular file of at most 256 KiB).
    package static func load(path: String) throws(NativeAdError) -> NativeFormatFile {
        let data = try NativeAdAssembler.readLocal(path, maxBytes: 256 << 10, what: "native format")
        do { return try parse(data) } catch { throw NativeAdError(error.code, "\(path): \(error.message)") }
    }

    /// The template for `layout`, or why there is none.
    package func template(for layout: NativeBreak.Layout) throws(NativeAdError) -> NativeTemplate {
        switch layout {
        case .fullFrame:
            guard let fullFrame else { throw NativeAdError(.invalidRequest, "native format \(definition.formatID) has no template (full frame)") }
            return fullFrame
        case .lBar:
            guard let lBar else { throw NativeAdError(.invalidRequest, "native format \(definition.formatID) has no lbar template") }
            return lBar
        }
    }
}

extension NativeBreak {
    /// A native break of `response` (read from `responseURL`, or given in memory with the
    /// document that carried it as `responseURL`), in the first of `formats` it fits.
    package static func make(position: BreakCue, response: NativeResponse, responseURL: URL?, layout: Layout,
                            formats: [NativeFormatFile], settings: NativeLoadSettings = NativeLoadSettings(),
                            fetcher: any AdDocumentFetcher = HTTPAdFetcher(),
                            beacons: BeaconSender = BeaconSender()) async throws(NativeAdError) -> NativeBreak {
        let known = Dictionary(formats.map { ($0.definition.formatID, $0) }, uniquingKeysWith: { a, _ in a })
        guard let format = NativeAdAssembler.matchFormat(response, requested: formats.map(\.definition.formatID), known: known.mapValues(\.definition)),
              let file = known[format.formatID] else {
            throw NativeAdError(.noFill, "the native response fits none of the formats \(formats.map(\.definition.formatID)) (no asset id in common)")
        }
        let template = try file.template(for: layout)
        let ad = try await NativeAdAssembler.assemble(response: response, format: format, responseURL: responseURL, settings: settings,
                                                     fetcher: fetcher, beacons: beacons)
        return NativeBreak(position: position, ad: ad, layout: layout, template: template)
    }
}

/// Native ads carried by a VMAP: `<vmap:AdSource><vmap:CustomAdData templateType="openrtb-native">`
/// holding an OpenRTB Native 1.2 response. A `linear` break is a full-frame native break; a
/// `nonlinear` one an L-bar over the content.
package enum NativeVMAP {
    /// A native break found in a VMAP.
    public struct Found: Sendable {
        /// The break's id, if any.
        public var breakId: String?
        /// The break's time offset as written.
        public var rawTimeOffset: String
        /// Where, or why the break cannot be placed.
        public var position: Result<BreakCue, NativeAdError>
        /// The response, or why it cannot be used.
        public var response: Result<NativeResponse, NativeAdError>
        /// Full frame (linear) or L-bar (nonlinear).
        public var layout: NativeBreak.Layout
    }

    /// The `templateType` that marks a native response.
    public static let templateType = "openrtb-native"

    /// The native breaks of `doc` (each with its own failure, if any), and how many other breaks it has.
    public static func breaks(in doc: VMAPDocument) -> (natives: [Found], others: Int) {
        var found: [Found] = [], others = 0
        for b in doc.breaks {
            guard case .customAdData(let text, let type)? = b.adSource?.content, type?.lowercased() == templateType else { others += 1; continue }
            let name = b.breakId ?? b.rawTimeOffset
            let position: Result<BreakCue, NativeAdError>
            switch b.timeOffset {
            case .start: position = .success(.start)
            case .end: position = .success(.end)
            case .time(let t): position = .success(t == .zero ? .start : .time(t))
            default: position = .failure(NativeAdError(.invalidRequest, "VMAP break \(name): a native break needs timeOffset start, end or a time, not \(b.rawTimeOffset)"))
            }
            let response = NativeResponseParser().parse(Data(text.utf8))
                .mapError { NativeAdError(.receivedInvalidResponse, "VMAP break \(name): CustomAdData: \($0.message)") }
            let layout: NativeBreak.Layout = b.breakTypes.contains("nonlinear") && !b.breakTypes.contains("linear") ? .lBar : .fullFrame
            found.append(Found(breakId: b.breakId, rawTimeOffset: b.rawTimeOffset, position: position, response: response, layout: layout))
        }
        return (found, others)
    }
}
