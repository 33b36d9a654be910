import Foundation
import Serve
import TestSupport
import Testing
import Timing

/// Static DASH origins addressed other than by `SegmentTemplate`: a `SegmentList` of files
/// (`@duration`: nominal lengths, measured from the pictures), a `SegmentList` of byte ranges of
/// one file, a `SegmentBase` (one file and its `sidx`), and several Periods. Each made from one
/// ffmpeg-made DASH package of the test clip (two video Representations and an audio one), served
/// over HTTP, and taken in as `ServeStoreHLSSourceTests.aDASHOriginIsTakenInAsMPEGTS` takes a
/// template one: every frame once in both rungs, no gap in the sound at a boundary, a cut played clean.
@Suite(.serialized) struct StoreDASHSourceTests {
    enum Form: String, CaseIterable { case segmentListFiles, segmentListRanges, segmentBase, periods }

    /// ffmpeg's DASH package of the clip (`arguments` added), in `folder`.
    static func package(_ folder: URL, _ arguments: [String]) async throws -> String {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let clip = try StoreFixture.clip().path
        _ = try await Tools.ffmpeg(["-v", "error", "-y", "-i", clip, "-map", "0:v", "-map", "0:v", "-map", "0:a", "-c:v:0", "copy",
                                    "-c:v:1", "libx264", "-s:v:1", "160x90", "-g:v:1", "30", "-keyint_min:v:1", "30", "-sc_threshold", "0",
                                    "-b:v:1", "150k", "-c:a", "copy", "-f", "dash", "-seg_duration", "2"] + arguments
                                   + ["-adaptation_sets", "id=0,streams=v id=1,streams=a", folder.appendingPathComponent("o.mpd").path])
        return String(decoding: try Data(contentsOf: folder.appendingPathComponent("o.mpd")), as: UTF8.self)
    }

    /// The byte range of the top-level box `type` in `file`.
    static func box(_ type: String, in file: URL) throws -> ClosedRange<Int>? {
        let b = [UInt8](try Data(contentsOf: file))
        var o = 0
        while o + 8 <= b.count {
            let size = Int(b[o]) << 24 | Int(b[o + 1]) << 16 | Int(b[o + 2]) << 8 | Int(b[o + 3])
            guard size >= 8 else { return nil }
            if b[o + 4..<o + 8].elementsEqual(type.utf8) { return o...(o + size - 1) }
            o += size
        }
        return nil
    }

    /// The MPD of `form`, the files beside it in `folder`.
    static func origin(_ form: Form, in folder: URL) async throws -> String {
        switch form {
        case .segmentListFiles:
            return try await package(folder, ["-use_template", "0", "-use_timeline", "0"])
        case .segmentListRanges:
            return try await package(folder, ["-single_file", "1", "-use_template", "0", "-use_timeline", "0"])
        case .segmentBase:
            // one file per Representation with one sidx (ffmpeg's global_sidx), its SegmentList replaced by a SegmentBase
            var mpd = try await package(folder, ["-single_file", "1", "-global_sidx", "1", "-use_template", "0", "-use_timeline", "0"])
            for stream in 0..<3 {
                let file = folder.appendingPathComponent("o-stream\(stream).mp4")
                guard let sidx = try box("sidx", in: file) else { throw VerifierError.malformedOutput("no sidx in \(file.lastPathComponent)") }
                guard let start = mpd.range(of: "<BaseURL>o-stream\(stream).mp4</BaseURL>"),
                      let list = mpd.range(of: "<SegmentList", range: start.upperBound..<mpd.endIndex),
                      let end = mpd.range(of: "</SegmentList>", range: list.upperBound..<mpd.endIndex) else { throw VerifierError.malformedOutput(mpd) }
                mpd.replaceSubrange(list.lowerBound..<end.upperBound,
                                    with: "<SegmentBase indexRange=\"\(sidx.lowerBound)-\(sidx.upperBound)\"><Initialization range=\"0-\(sidx.lowerBound - 1)\"/></SegmentBase>")
            }
            return mpd
        case .periods:
            // the template package's SegmentTimeline split in two Periods at 2 s, each its own segments (the same files)
            let mpd = try await package(folder, ["-use_template", "1", "-use_timeline", "1"])
            return try splitInTwoPeriods(mpd)
        }
    }

    /// `mpd` (ffmpeg's one-Period template package of 2 s segments: `SegmentTemplate`s with a
    /// `SegmentTimeline`, `startNumber="1"`) split in two Periods at 2 s, as a multi-Period packager
    /// writes one: each Period lists the segments of its time (the same files), a segment that
    /// overlaps 2 s in both (the audio's AAC frames do not end there), the second numbered on and
    /// its `presentationTimeOffset` 2 s; an SCTE-35 event at the second's start.
    static func splitInTwoPeriods(_ mpd: String) throws -> String {
        guard let p = mpd.range(of: "<Period"), let body = mpd.range(of: ">", range: p.upperBound..<mpd.endIndex),
              let close = mpd.range(of: "</Period>") else { throw VerifierError.malformedOutput(mpd) }
        let inner = String(mpd[body.upperBound..<close.lowerBound])
        func attr(_ n: String, in s: Substring) -> Int64? { s.range(of: " \(n)=\"").flatMap { r in Int64(s[r.upperBound...].prefix { $0 != "\"" }) } }
        func half(_ second: Bool) throws -> String {
            var text = inner
            var cursor = text.startIndex
            while let open = text.range(of: "<SegmentTemplate ", range: cursor..<text.endIndex),
                  let head = text.range(of: ">", range: open.upperBound..<text.endIndex),
                  let t = text.range(of: "<SegmentTimeline>", range: head.upperBound..<text.endIndex),
                  let e = text.range(of: "</SegmentTimeline>", range: t.upperBound..<text.endIndex) {
                let tag = text[open.lowerBound..<head.upperBound]
                let scale = attr("timescale", in: tag) ?? 1, number = attr("startNumber", in: tag) ?? 1
                // ffmpeg's timelines expanded: one S per segment, each with its t
                var segments: [(Int64, Int64)] = []
                var next: Int64 = 0
                for s in text[t.upperBound..<e.lowerBound].components(separatedBy: "/>") where s.contains("<S") {
                    let s = Substring(s)
                    if let v = attr("t", in: s) { next = v }
                    let d = attr("d", in: s) ?? 0
                    for _ in 0...(attr("r", in: s) ?? 0) { segments.append((next, d)); next += d }
                }
                let cut = 2 * scale
                let first = second ? segments.firstIndex { $0.0 + $0.1 > cut } ?? segments.count : 0
                let kept = second ? Array(segments[first...]) : segments.filter { $0.0 < cut }
                var newTag = String(tag).replacingOccurrences(of: "startNumber=\"\(number)\"", with: "startNumber=\"\(number + Int64(first))\"")
                if second { newTag = newTag.replacingOccurrences(of: "timescale=\"\(scale)\"", with: "timescale=\"\(scale)\" presentationTimeOffset=\"\(cut)\"") }
                let timeline = "<SegmentTimeline>" + kept.map { "<S t=\"\($0.0)\" d=\"\($0.1)\" />" }.joined()
                text.replaceSubrange(open.lowerBound..<e.lowerBound, with: newTag + String(text[head.upperBound..<t.lowerBound]) + timeline)
                guard let end = text.range(of: "</SegmentTimeline>", range: open.lowerBound..<text.endIndex) else { throw VerifierError.malformedOutput(text) }
                cursor = end.upperBound
            }
            return text
        }
        let periods = "<Period id=\"a\" start=\"PT0S\" duration=\"PT2S\">\(try half(false))</Period><Period id=\"b\" start=\"PT2S\">"
            + "<EventStream schemeIdUri=\"urn:scte:scte35:2014:xml+bin\" timescale=\"1000\"><Event presentationTime=\"0\" duration=\"5000\" id=\"1\"/></EventStream>"
            + "\(try half(true))</Period>"
        return String(mpd[..<p.lowerBound]) + periods + String(mpd[close.upperBound...])
    }

    @Test(arguments: Form.allCases) func aDASHOriginIsTakenInWhateverItsAddressing(form: Form) async throws {
        let root = StoreFixture.folder("dash-\(form.rawValue)")
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("origin")
        let mpd = try await Self.origin(form, in: folder)
        let server = try HTTPTestServer()
        defer { server.stop() }
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name != "o.mpd" {
            server.route("/" + name, HTTPTestServer.Response(headers: ["Content-Type": "video/mp4"], body: try Data(contentsOf: folder.appendingPathComponent(name))))
        }
        server.route("/o.mpd", HTTPTestServer.Response(headers: ["Content-Type": "application/dash+xml"], body: Data(mpd.utf8)))
        switch form {
        case .segmentListFiles: #expect(mpd.contains("<SegmentURL media="), "\(mpd.prefix(400))")
        case .segmentListRanges: #expect(mpd.contains("mediaRange="), "\(mpd.prefix(400))")
        case .segmentBase: #expect(mpd.contains("<SegmentBase indexRange=") && !mpd.contains("<SegmentList"), "\(mpd)")
        case .periods: #expect(mpd.components(separatedBy: "<Period ").count == 3, "\(mpd)")
        }
        let store = try MediaStore(options: StoreOptions(root: root.appendingPathComponent("store"), contents: ["d": server.url("/o.mpd")]))
        let content = try await store.content("d")
        #expect(content.renditions.map(\.rendition.name) == ["180p", "90p"])
        #expect(content.duration == MediaTime(seconds: 4))
        if form == .periods { #expect(content.originCues == [MediaTime(seconds: 2)], "the second Period's break, on the presentation's timeline") }
        try await ServeStoreHLSSourceTests.expectTakenInAsAnOrigin(store, "d", rungs: [("180p", PixelSize(width: 320, height: 180)), ("90p", PixelSize(width: 160, height: 90))],
                                                                   root: root)
    }
}
