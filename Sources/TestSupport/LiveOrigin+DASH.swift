import Foundation
import Timing

/// A `LiveOrigin` made with `dash: true` is also a live DASH origin, as packagers publish one:
/// `/live.mpd`, a dynamic MPD of one Period (`start` 0, `presentationTimeOffset` 0: Period time
/// is media time) whose video AdaptationSet has a Representation per rendition
/// (`SegmentTimeline`, `$Time$` URIs) and whose audio AdaptationSet has the first rendition's
/// sound (`SegmentTimeline`, `$Number$` URIs), over the segments published so far (the last
/// `windowSize` video segments, the audio segments of their time). Breaks signalled
/// `.dateRange` are `urn:scte:scte35:2014:xml+bin` Events (the binary section), `.cueOut` ones
/// `urn:scte:scte35:2013:xml` Events (the section as XML), each an OUT at the break's first
/// frame with the planned duration and an IN at its end, listed from one segment before the
/// break; `.inBand` ones are `emsg` boxes in the video segments, as with `cmaf`.
extension LiveOrigin {
    /// The MPD as it is now (needs `dash: true`).
    public func mpd() -> String { core.dash.map { core.mpd(published: core.published(), $0) } ?? "" }

    /// With `dash`: each video segment's first presentation time as a DASH reader sees it (90 kHz).
    public var dashVideoStarts: [Int64]? { core.dash?.videos[0].starts }
}

extension LiveOrigin.Core {
    func respondDASH(_ path: String, _ dash: LiveOriginDASH) -> HTTPTestServer.Response? {
        if path == "/live.mpd" {
            return .init(headers: ["Content-Type": "application/dash+xml", "Cache-Control": "no-cache"], body: Data(mpd(published: published(), dash).utf8))
        }
        let parts = path.split(separator: "/").map(String.init)   // dash, v0|a, file
        guard parts.count == 3 else { return nil }
        let p = published()
        let mp4 = ["Content-Type": "video/mp4"]
        if parts[1] == "t", let format = dash.text { return respondText(parts[2], format, dash, published: p) }
        // `a` the sound, `a2` the second language's
        if let a = parts[1] == "a" ? dash.audio : parts[1] == "a2" ? dash.languages.first : nil {
            if parts[2] == "init.mp4" { return .init(headers: mp4, body: (try? Data(contentsOf: a.folder.appendingPathComponent("init.mp4"))) ?? Data()) }
            guard parts[2].hasSuffix(".m4s"), let n = Int(parts[2].dropLast(4)), audioPublished(a, dash, published: p).contains(n),
                  let data = try? Data(contentsOf: a.folder.appendingPathComponent("\(n).m4s")) else { return nil }
            return .init(headers: mp4, body: data)
        }
        guard parts[1].hasPrefix("v"), let k = Int(parts[1].dropFirst()), dash.videos.indices.contains(k) else { return nil }
        let track = dash.videos[k]
        if parts[2] == "init.mp4" || (parts[2] == "init-r.mp4" && sampleEncryption?.rotation != nil) {
            let data = (try? Data(contentsOf: track.folder.appendingPathComponent("init.mp4"))) ?? Data()
            guard let sampleEncryption else { return .init(headers: mp4, body: data) }
            let encrypt = parts[2] == "init.mp4" ? sampleEncryption.initSegment : sampleEncryption.rotation?.initSegment ?? sampleEncryption.initSegment
            return (try? encrypt(data)).map { .init(headers: mp4, body: $0) } ?? .init(status: 500, body: "cannot encrypt", contentType: "text/plain")
        }
        guard parts[2].hasPrefix("t"), parts[2].hasSuffix(".m4s"), let t = Int64(parts[2].dropFirst().dropLast(4)),
              let n = track.starts.firstIndex(of: t), n < p, var data = try? Data(contentsOf: track.folder.appendingPathComponent("\(n).m4s")) else { return nil }
        if let sampleEncryption {
            let rotated = sampleEncryption.rotation.map { n >= $0.at } ?? false
            let encrypt = rotated ? sampleEncryption.rotation?.segment ?? sampleEncryption.segment : sampleEncryption.segment
            guard let sealed = try? encrypt(data) else { return .init(status: 500, body: "cannot encrypt", contentType: "text/plain") }
            data = sealed
        }
        var response = HTTPTestServer.Response(headers: mp4, body: Self.addingEventMessages(data, sections: inBand[n] ?? []))
        response.chunkDelay = segmentChunkDelay
        return response
    }

    /// The audio segments published with the first `p` video segments: those ending by the last
    /// one's end (less than an AAC frame past it: a packager publishes the audio of a time with its video).
    func audioPublished(_ dash: LiveOriginDASH, published p: Int) -> Range<Int> { audioPublished(dash.audio, dash, published: p) }

    /// The segments of audio track `a` published with the first `p` video segments.
    func audioPublished(_ a: LiveOriginDASH.Track, _ dash: LiveOriginDASH, published p: Int) -> Range<Int> {
        guard p > 0 else { return 0..<0 }
        let videoEnd = dash.videos[0].end(p - 1)
        let end = a.starts.indices.filter { a.end($0) * 90_000 <= (videoEnd + 1_920) * a.timescale }.last.map { $0 + 1 } ?? 0
        return 0..<end
    }

    func mpd(published p: Int, _ dash: LiveOriginDASH) -> String {
        let w = window(published: p)
        let v0 = dash.videos[0]
        // the availability start: the initial segments' end is the origin's start
        let initialEnd = initial > 0 ? Double(v0.end(initial - 1)) / 90_000 : Double(v0.starts[0]) / 90_000
        let ast = startDate.addingTimeInterval(-initialEnd)
        var x = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
                 "<MPD xmlns=\"urn:mpeg:dash:schema:mpd:2011\" type=\"\(w.ended ? "static" : "dynamic")\" profiles=\"urn:mpeg:dash:profile:isoff-live:2011\""
                 + " availabilityStartTime=\"\(LiveOrigin.iso8601(ast))\" publishTime=\"\(LiveOrigin.iso8601(Date()))\" minBufferTime=\"PT2S\""
                 + (w.ended ? " mediaPresentationDuration=\"PT\(LiveOrigin.decimal(MediaTime(value: v0.end(p - 1), timescale: 90_000)))S\""
                            : " minimumUpdatePeriod=\"PT2S\" timeShiftBufferDepth=\"PT\(windowSize * 2)S\"") + ">"]
        // one Period, or a second from `secondPeriodAt` or a key rotation on (`p1`: its
        // timelines' offset its start; a rotation's key descriptors and initialization segment)
        let rotation = sampleEncryption?.rotation
        let at = rotation?.at ?? dash.secondPeriodAt ?? Int.max
        let parts = [(id: "p0", segments: w.segments.lowerBound..<min(w.segments.upperBound, max(w.segments.lowerBound, at))),
                     (id: "p1", segments: max(w.segments.lowerBound, min(at, w.segments.upperBound))..<w.segments.upperBound)]
        for (id, segments) in parts where !segments.isEmpty {
            let later = id == "p1", rekeyed = later && rotation != nil
            let offset = later ? v0.starts[at] : 0   // the Period's start on the media timeline (90 kHz)
            x += ["<Period id=\"\(id)\" start=\"PT\(LiveOrigin.decimal(MediaTime(value: offset, timescale: 90_000)))S\">", "<BaseURL>dash/</BaseURL>"]
            x += events(published: p, dash, within: at < v0.starts.count ? (later ? v0.starts[at]..<Int64.max : Int64.min..<v0.starts[at]) : nil, offset: offset)
            x.append("<AdaptationSet id=\"0\" contentType=\"video\" mimeType=\"video/mp4\" segmentAlignment=\"true\" startWithSAP=\"1\">")
            x += (rekeyed ? rotation?.descriptors : sampleEncryption?.descriptors) ?? []
            for (k, track) in dash.videos.enumerated() {
                let size = media.renditions[k].size
                x.append("<Representation id=\"v\(k)\" bandwidth=\"\(media.renditions[k].peakBitRate)\" width=\"\(size.width)\" height=\"\(size.height)\" codecs=\"avc1.64001f\">")
                x.append("<SegmentTemplate timescale=\"90000\" initialization=\"$RepresentationID$/\(rekeyed ? "init-r" : "init").mp4\" media=\"$RepresentationID$/t$Time$.m4s\""
                         + (later ? " presentationTimeOffset=\"\(offset)\"" : "") + ">")
                x.append("<SegmentTimeline>")
                for n in segments { x.append("<S t=\"\(track.starts[n])\" d=\"\(track.durations[n])\"/>") }
                x += ["</SegmentTimeline>", "</SegmentTemplate>", "</Representation>"]
            }
            x.append("</AdaptationSet>")
            // the sound (English, the main one) and with `secondLanguage` German (`a2`): the
            // segments whose middle falls in the Period
            for (k, a) in ([dash.audio] + dash.languages).enumerated() {
                let firstTime = v0.starts[w.segments.lowerBound] * a.timescale / 90_000
                let boundary = at < v0.starts.count ? v0.starts[at] * a.timescale / 90_000 : Int64.max / 4
                let audio = audioPublished(a, dash, published: p).filter {
                    a.end($0) > firstTime && (a.starts[$0] + a.end($0) >= 2 * boundary) == later
                }
                guard !audio.isEmpty else { continue }
                x.append("<AdaptationSet id=\"\(k + 1)\" contentType=\"audio\" mimeType=\"audio/mp4\" lang=\"\(k == 0 ? "en" : "de")\" segmentAlignment=\"true\">")
                x.append("<Role schemeIdUri=\"urn:mpeg:dash:role:2011\" value=\"\(k == 0 ? "main" : "dub")\"/>")
                x.append("<Representation id=\"\(k == 0 ? "a" : "a2")\" bandwidth=\"128000\" codecs=\"mp4a.40.2\" audioSamplingRate=\"48000\">")
                x.append("<SegmentTemplate timescale=\"\(a.timescale)\" startNumber=\"\(audio.first ?? 0)\" initialization=\"$RepresentationID$/init.mp4\" media=\"$RepresentationID$/$Number$.m4s\""
                         + (later ? " presentationTimeOffset=\"\(offset * a.timescale / 90_000)\"" : "") + ">")
                x.append("<SegmentTimeline>")
                for (i, n) in audio.enumerated() { x.append(i == 0 ? "<S t=\"\(a.starts[n])\" d=\"\(a.durations[n])\"/>" : "<S d=\"\(a.durations[n])\"/>") }
                x += ["</SegmentTimeline>", "</SegmentTemplate>", "</Representation>", "</AdaptationSet>"]
            }
            if let format = dash.text { x += textAdaptationSet(format, window: segments, dash) }
            x.append("</Period>")
        }
        x.append("</MPD>")
        return x.joined(separator: "\n") + "\n"
    }

    /// The EventStreams of the breaks signalled in the manifest whose OUT or IN is due by the
    /// segment after the last published (announced a segment ahead) and not before the window.
    /// `within`: only the Events at those media times (a Period's), on an EventStream whose
    /// `presentationTimeOffset` is `offset`.
    func events(published p: Int, _ dash: LiveOriginDASH, within: Range<Int64>? = nil, offset: Int64 = 0) -> [String] {
        let w = window(published: p)
        var bin: [String] = [], xml: [String] = []
        for b in breaks {
            guard b.endSegment >= w.segments.lowerBound else { continue }
            let off = dash.ptsOffset
            let start = b.startPTS + off, end = b.endPTS + off, planned = b.plannedDuration.mpegTicks
            for signal in b.scheduled.signals {
                switch signal {
                case .dateRange:
                    if b.startSegment <= p, within?.contains(start) ?? true {
                        bin.append("<Event presentationTime=\"\(start)\" duration=\"\(planned)\" id=\"\(b.eventID)\">"
                                   + "<Signal xmlns=\"http://www.scte.org/schemas/35/2016\"><Binary>\(Data(b.outSection(shift: off)).base64EncodedString())</Binary></Signal></Event>")
                    }
                    if b.endSegment <= p, within?.contains(end) ?? true {
                        bin.append("<Event presentationTime=\"\(end)\" id=\"\(b.eventID + 1_000_000)\">"
                                   + "<Signal xmlns=\"http://www.scte.org/schemas/35/2016\"><Binary>\(Data(b.inSection(shift: off)).base64EncodedString())</Binary></Signal></Event>")
                    }
                case .cueOut:
                    func section(out: Bool, at pts: Int64) -> String {
                        "<scte35:SpliceInfoSection xmlns:scte35=\"http://www.scte.org/schemas/35/2016\" ptsAdjustment=\"0\" tier=\"4095\">"
                            + "<scte35:SpliceInsert spliceEventId=\"\(b.eventID)\" outOfNetworkIndicator=\"\(out)\" spliceImmediateFlag=\"false\" uniqueProgramId=\"1\" availNum=\"0\" availsExpected=\"0\">"
                            + "<scte35:Program><scte35:SpliceTime ptsTime=\"\(pts)\"/></scte35:Program>"
                            + (out ? "<scte35:BreakDuration autoReturn=\"true\" duration=\"\(planned)\"/>" : "")
                            + "</scte35:SpliceInsert></scte35:SpliceInfoSection>"
                    }
                    if b.startSegment <= p, within?.contains(start) ?? true { xml.append("<Event presentationTime=\"\(start)\" duration=\"\(planned)\" id=\"\(b.eventID)\">\(section(out: true, at: start))</Event>") }
                    if b.endSegment <= p, within?.contains(end) ?? true { xml.append("<Event presentationTime=\"\(end)\" id=\"\(b.eventID + 1_000_000)\">\(section(out: false, at: end))</Event>") }
                case .inBand:
                    break
                }
            }
        }
        var out: [String] = []
        let pto = offset == 0 ? "" : " presentationTimeOffset=\"\(offset)\""
        if !bin.isEmpty { out += ["<EventStream schemeIdUri=\"urn:scte:scte35:2014:xml+bin\" timescale=\"90000\"\(pto)>"] + bin + ["</EventStream>"] }
        if !xml.isEmpty { out += ["<EventStream schemeIdUri=\"urn:scte:scte35:2013:xml\" timescale=\"90000\"\(pto)>"] + xml + ["</EventStream>"] }
        return out
    }
}
