// Shared helpers for AdsTests: locating the corpus, loading documents offline.
import Ads
import Foundation
import Testing
import Timing

enum Corpus {
    /// `../shared/vast-corpus` relative to the package root (found from this file's path).
    static let directory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/vast-corpus")

    static var available: Bool { FileManager.default.fileExists(atPath: directory.path) }

    static func path(_ relative: String) -> String { directory.appendingPathComponent(relative).path }

    static func data(_ relative: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(relative))
    }

    /// Parses a corpus file as VAST.
    static func vast(_ relative: String) throws -> VASTDocument {
        switch AdResponseParser().parse(try data(relative)) {
        case .success(.vast(let d)): return d
        case .success(.vmap): throw TestFailure("\(relative) is VMAP")
        case .failure(let e): throw TestFailure("\(relative): \(e)")
        }
    }

    /// Parses a corpus file as VMAP.
    static func vmap(_ relative: String) throws -> VMAPDocument {
        switch AdResponseParser().parse(try data(relative)) {
        case .success(.vmap(let d)): return d
        case .success(.vast): throw TestFailure("\(relative) is VAST")
        case .failure(let e): throw TestFailure("\(relative): \(e)")
        }
    }

    /// Loads a corpus file through the loader, offline (network wrappers fail fast with 301).
    static func schedule(_ relative: String, media: MediaSelectionPreferences = MediaSelectionPreferences(),
                         contentDuration: MediaTime? = nil) async throws -> AdSchedule {
        let options = AdTagOptions(wrapperTimeout: 1, media: media, contentDuration: contentDuration, allowNetwork: false)
        return try await AdTagResolver(options: options).load(tag: path(relative))
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

/// Seconds as MediaTime, for readable expectations.
func secs(_ s: Int64) -> MediaTime { MediaTime(seconds: s) }

/// Loads a response string through the loader with test-friendly limits.
func loadResponse(_ xml: String, base: String? = nil,
                  options: AdTagOptions = AdTagOptions(initialTimeout: 2, wrapperTimeout: 1)) async throws -> AdSchedule {
    try await AdTagResolver(options: options).load(response: Data(xml.utf8), baseURL: base.flatMap(URL.init(string:)))
}

/// A minimal InLine VAST document with one linear MP4.
func inlineVAST(id: String = "inline-1", title: String = "Inline", duration: String = "00:00:15", sequence: Int? = nil,
                mediaURL: String = "https://cdn.example.com/ad.mp4", error: String = "https://t.example.com/inline-error?c=[ERRORCODE]",
                category: String? = nil) -> String {
    let seq = sequence.map { " sequence=\"\($0)\"" } ?? ""
    let cat = category.map { "<Category authority=\"iabtechlab.com\">\($0)</Category>" } ?? ""
    return """
    <VAST version="4.2"><Ad id="\(id)"\(seq)><InLine>
      <AdSystem>InlineSystem</AdSystem><AdTitle>\(title)</AdTitle>
      <Impression><![CDATA[https://t.example.com/inline-imp]]></Impression>
      <Error><![CDATA[\(error)]]></Error>\(cat)
      <Creatives><Creative id="cr-\(id)"><Linear>
        <Duration>\(duration)</Duration>
        <TrackingEvents><Tracking event="start"><![CDATA[https://t.example.com/inline-start]]></Tracking></TrackingEvents>
        <MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="1280" height="720" bitrate="2000"><![CDATA[\(mediaURL)]]></MediaFile></MediaFiles>
      </Linear></Creative></Creatives>
    </InLine></Ad></VAST>
    """
}

/// A Wrapper VAST document pointing at `tag`.
func wrapperVAST(id: String = "wrapper-1", tag: String, attributes: String = "", sequence: Int? = nil, extra: String = "") -> String {
    let seq = sequence.map { " sequence=\"\($0)\"" } ?? ""
    return """
    <VAST version="4.2"><Ad id="\(id)"\(seq)><Wrapper \(attributes)>
      <AdSystem>WrapperSystem-\(id)</AdSystem>
      <VASTAdTagURI><![CDATA[\(tag)]]></VASTAdTagURI>
      <Impression><![CDATA[https://t.example.com/\(id)-imp]]></Impression>
      <Error><![CDATA[https://t.example.com/\(id)-error?c=[ERRORCODE]]]></Error>
      <Creatives><Creative id="wcr-\(id)"><Linear><TrackingEvents>
        <Tracking event="start"><![CDATA[https://t.example.com/\(id)-start]]></Tracking>
      </TrackingEvents><VideoClicks><ClickTracking><![CDATA[https://t.example.com/\(id)-click]]></ClickTracking></VideoClicks></Linear></Creative></Creatives>
      \(extra)
    </Wrapper></Ad></VAST>
    """
}
