import Foundation

/// A live DASH origin's subtitles (`LiveOriginDASH.text`): an English text AdaptationSet
/// (`application/mp4`, Representation `t`, `$Number$`, timescale 1000) with a segment beside
/// each video segment showing the cue "segment N" from 0.2 s to 1.8 s after that segment's first
/// picture, as a packager writes them, with its own boxes (written here, not by the service's
/// `WebVTTMP4`): track id 2, a `subt` handler, millisecond times, a 32-bit `tfdt`, no `styp`.
/// WebVTT: empty (`vtte`) and cue (`vttc`) samples tiling the segment; TTML: one document a
/// segment whose times count from the track's media time 0.
extension LiveOrigin.Core {
    /// Segment `n`'s span in milliseconds on the text track (the video's media time).
    func textSpan(_ n: Int, _ dash: LiveOriginDASH) -> (start: Int64, end: Int64) {
        let v = dash.videos[0]
        return (v.starts[n] / 90, (n + 1 < v.starts.count ? v.starts[n + 1] : v.end(n)) / 90)
    }

    func textAdaptationSet(_ format: LiveOriginDASH.TextFormat, window: Range<Int>, _ dash: LiveOriginDASH) -> [String] {
        var x = ["<AdaptationSet id=\"9\" contentType=\"text\" mimeType=\"application/mp4\" lang=\"en\">",
                 "<Role schemeIdUri=\"urn:mpeg:dash:role:2011\" value=\"subtitle\"/>",
                 "<Representation id=\"t\" bandwidth=\"1000\" codecs=\"\(format == .webVTT ? "wvtt" : "stpp.ttml.im1t")\">",
                 "<SegmentTemplate timescale=\"1000\" startNumber=\"\(window.lowerBound)\" initialization=\"t/init.mp4\" media=\"t/$Number$.m4s\">",
                 "<SegmentTimeline>"]
        for n in window {
            let s = textSpan(n, dash)
            x.append(n == window.lowerBound ? "<S t=\"\(s.start)\" d=\"\(s.end - s.start)\"/>" : "<S d=\"\(s.end - s.start)\"/>")
        }
        return x + ["</SegmentTimeline>", "</SegmentTemplate>", "</Representation>", "</AdaptationSet>"]
    }

    func respondText(_ file: String, _ format: LiveOriginDASH.TextFormat, _ dash: LiveOriginDASH, published p: Int) -> HTTPTestServer.Response? {
        let mp4 = ["Content-Type": "application/mp4"]
        if file == "init.mp4" { return .init(headers: mp4, body: Data(TestMP4Text.initialization(format))) }
        guard file.hasSuffix(".m4s"), let n = Int(file.dropLast(4)), n >= 0, n < p else { return nil }
        let span = textSpan(n, dash)
        let cue = (start: (dash.videos[0].starts[n] + 18_000) / 90, end: (dash.videos[0].starts[n] + 162_000) / 90)
        let samples = TestMP4Text.samples(format, from: span.start, to: span.end, cues: [(cue.start, cue.end, "segment \(n)")])
        return .init(headers: mp4, body: Data(TestMP4Text.segment(sequence: UInt32(n + 1), start: span.start, samples: samples)))
    }
}

/// Text tracks in MP4 as a packager writes them, with boxes of their own (not the service's
/// `WebVTTMP4`): track id 2, a `subt` handler, millisecond times, a 32-bit `tfdt`, no `styp`.
public enum TestMP4Text {
    /// The samples of a segment `[from, to)` (ms) showing `cues` (ms, the track's media time):
    /// WebVTT, pieces cut at every cue boundary (`vttc` each cue showing, `vtte` none); TTML, one
    /// document of all `cues` (its times the media time) for the whole segment.
    public static func samples(_ format: LiveOriginDASH.TextFormat, from: Int64, to: Int64,
                               cues: [(start: Int64, end: Int64, text: String)]) -> [(duration: UInt32, bytes: [UInt8])] {
        switch format {
        case .webVTT:
            let points = Set([from, to] + cues.flatMap { [$0.start, $0.end] }.filter { $0 > from && $0 < to }).sorted()
            return zip(points, points.dropFirst()).map { a, b in
                let showing = cues.filter { $0.start <= a && $0.end >= b }
                let bytes = showing.isEmpty ? box("vtte", []) : showing.flatMap { box("vttc", box("payl", Array($0.text.utf8))) }
                return (UInt32(b - a), bytes)
            }
        case .ttml:
            func clock(_ ms: Int64) -> String { String(format: "%02d:%02d:%02d.%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000) }
            // the text escaped, its line breaks `br`
            func markup(_ t: String) -> String {
                t.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: "\n", with: "<br/>")
            }
            let body = cues.map { "<p begin=\"\(clock($0.start))\" end=\"\(clock($0.end))\">\(markup($0.text))</p>" }.joined()
            return [(UInt32(to - from), ttmlDocument(body))]
        }
    }

    /// A TTML document whose `div` holds `body`.
    public static func ttmlDocument(_ body: String) -> [UInt8] {
        Array(("<?xml version=\"1.0\" encoding=\"UTF-8\"?><tt xmlns=\"http://www.w3.org/ns/ttml\" xml:lang=\"en\"><body><div>" + body
            + "</div></body></tt>").utf8)
    }

    /// The initialization segment of a text track of `format` (timescale 1000, track 2).
    public static func initialization(_ format: LiveOriginDASH.TextFormat) -> [UInt8] {
        let entry: [UInt8]
        switch format {
        case .webVTT: entry = box("wvtt", [0, 0, 0, 0, 0, 0, 0, 1] + box("vttC", Array("WEBVTT".utf8)))
        case .ttml: entry = box("stpp", [0, 0, 0, 0, 0, 0, 0, 1] + Array("http://www.w3.org/ns/ttml\0\0\0".utf8))
        }
        let stbl = box("stbl", box("stsd", be(0) + be(1) + entry) + box("stts", be(0) + be(0)) + box("stsc", be(0) + be(0))
            + box("stsz", be(0) + be(0) + be(0)) + box("stco", be(0) + be(0)))
        let minf = box("minf", box("sthd", be(0)) + box("dinf", box("dref", be(0) + be(1) + box("url ", be(1)))) + stbl)
        let mdhd = box("mdhd", be(0) + be(0) + be(0) + be(1000) + be(0) + [0x15, 0xC7, 0, 0])   // "eng"
        let hdlr = box("hdlr", be(0) + be(0) + Array("subt".utf8) + be(0) + be(0) + be(0) + [0])
        let unity = be(0x10000) + be(0) + be(0) + be(0) + be(0x10000) + be(0) + be(0) + be(0) + be(0x4000_0000)
        let tkhd = box("tkhd", be(3) + be(0) + be(0) + be(2) + be(0) + be(0) + be(0) + be(0) + be(0) + be(0) + unity + be(0) + be(0))
        let mvhd = box("mvhd", be(0) + be(0) + be(0) + be(1000) + be(0) + be(0x10000) + [1, 0, 0, 0] + be(0) + be(0) + unity
            + [UInt8](repeating: 0, count: 24) + be(3))
        let mvex = box("mvex", box("trex", be(0) + be(2) + be(1) + be(0) + be(0) + be(0)))
        return box("ftyp", Array("iso6".utf8) + be(0) + Array("iso6dash".utf8)) + box("moov", mvhd + box("trak", tkhd + box("mdia", mdhd + hdlr + minf)) + mvex)
    }

    /// A `moof` (track 2, base the `moof`, 32-bit `tfdt`, each sample's duration and size) and its `mdat`.
    public static func segment(sequence: UInt32, start: Int64, samples: [(duration: UInt32, bytes: [UInt8])]) -> [UInt8] {
        func moof(_ offset: UInt32) -> [UInt8] {
            var trun = be(0x301) + be(UInt32(samples.count)) + be(offset)
            for s in samples { trun += be(s.duration) + be(UInt32(s.bytes.count)) }
            return box("moof", box("mfhd", be(0) + be(sequence)) + box("traf", box("tfhd", be(0x2_0000) + be(2)) + box("tfdt", be(0) + be(UInt32(start)))
                + box("trun", trun)))
        }
        let size = moof(0).count
        return moof(UInt32(size + 8)) + box("mdat", samples.flatMap(\.bytes))
    }

    static func box(_ type: String, _ body: [UInt8]) -> [UInt8] { be(UInt32(body.count + 8)) + Array(type.utf8) + body }
    static func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
}
