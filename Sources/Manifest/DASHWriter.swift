import Foundation
import Timing

extension DASH {
    /// The MPD's XML (UTF-8 text): elements in the schema's order, attribute values escaped.
    public static func write(_ mpd: MPD) -> String {
        var x = XMLText()
        x.line("<?xml version=\"1.0\" encoding=\"UTF-8\"?>")
        let protected = mpd.periods.contains { $0.adaptationSets.contains { !$0.contentProtection.isEmpty } }
        x.open("MPD", [("xmlns", "urn:mpeg:dash:schema:mpd:2011"), ("xmlns:scte35", "http://www.scte.org/schemas/35/2016"),
                       ("xmlns:cenc", protected ? cencNamespace : nil), ("xmlns:dashif", protected ? dashifNamespace : nil),
                       ("type", mpd.type.rawValue), ("profiles", mpd.profiles.joined(separator: ",")),
                       ("availabilityStartTime", mpd.availabilityStartTime.map(dateTime)), ("publishTime", mpd.publishTime.map(dateTime)),
                       ("mediaPresentationDuration", mpd.mediaPresentationDuration.map(duration)),
                       ("minimumUpdatePeriod", mpd.minimumUpdatePeriod.map(duration)),
                       ("minBufferTime", duration(mpd.minBufferTime)),
                       ("timeShiftBufferDepth", mpd.timeShiftBufferDepth.map(duration)),
                       ("suggestedPresentationDelay", mpd.suggestedPresentationDelay.map(duration))])
        if let l = mpd.location { x.line("<Location>\(XMLText.escape(l))</Location>") }
        for p in mpd.periods {
            x.open("Period", [("id", p.id), ("start", duration(p.start)), ("duration", p.duration.map(duration))])
            if let a = p.assetIdentifier { x.empty("AssetIdentifier", [("schemeIdUri", a.schemeIdUri), ("value", a.value)]) }
            for e in p.eventStreams { write(e, to: &x) }
            for a in p.adaptationSets { write(a, to: &x) }
            x.close("Period")
        }
        x.close("MPD")
        return x.text
    }

    private static func write(_ s: EventStream, to x: inout XMLText) {
        x.open("EventStream", [("schemeIdUri", s.schemeIdUri), ("value", s.value), ("timescale", String(s.timescale)),
                               ("presentationTimeOffset", s.presentationTimeOffset == 0 ? nil : String(s.presentationTimeOffset))])
        for e in s.events {
            var attributes: [(String, String?)] = [("presentationTime", String(e.presentationTime)), ("duration", e.duration.map(String.init)),
                                                   ("id", String(e.id))]
            switch e.payload {
            case .message(let text):
                attributes.append(("messageData", text))
                x.empty("Event", attributes)
            case .scte35(let section):
                x.open("Event", attributes)
                x.open("scte35:Signal", [])
                x.line("<scte35:Binary>\(Data(section).base64EncodedString())</scte35:Binary>")
                x.close("scte35:Signal")
                x.close("Event")
            }
        }
        x.close("EventStream")
    }

    private static func write(_ a: AdaptationSet, to x: inout XMLText) {
        x.open("AdaptationSet", [("id", String(a.id)), ("contentType", a.contentType), ("mimeType", a.mimeType), ("lang", a.language),
                                 ("segmentAlignment", a.segmentAlignment ? "true" : nil), ("startWithSAP", a.startWithSAP.map(String.init))])
        for p in a.contentProtection { write(p, to: &x) }
        if let role = a.role { x.empty("Role", [("schemeIdUri", roleScheme), ("value", role)]) }
        if let t = a.segmentTemplate { write(t, to: &x) }
        for r in a.representations {
            let attributes: [(String, String?)] = [
                ("id", r.id), ("bandwidth", String(r.bandwidth)), ("codecs", r.codecs.isEmpty ? nil : r.codecs), ("width", r.width.map(String.init)),
                ("height", r.height.map(String.init)), ("frameRate", r.frameRate), ("sar", r.sar),
                ("audioSamplingRate", r.audioSamplingRate.map(String.init)),
            ]
            guard r.audioChannels != nil || r.segmentList != nil || r.segmentTemplate != nil || r.baseURL != nil else {
                x.empty("Representation", attributes)
                continue
            }
            x.open("Representation", attributes)
            if let channels = r.audioChannels {
                x.empty("AudioChannelConfiguration", [("schemeIdUri", "urn:mpeg:dash:23003:3:audio_channel_configuration:2011"),
                                                      ("value", String(channels))])
            }
            if let base = r.baseURL { x.line("<BaseURL>\(XMLText.escape(base))</BaseURL>") }
            if let list = r.segmentList { write(list, to: &x) }
            if let t = r.segmentTemplate { write(t, to: &x) }
            x.close("Representation")
        }
        x.close("AdaptationSet")
    }

    private static func write(_ p: ContentProtection, to x: inout XMLText) {
        let attributes: [(String, String?)] = [("schemeIdUri", p.schemeIdUri), ("value", p.value), ("cenc:default_KID", p.defaultKID)]
        guard p.pssh != nil || p.licenseURL != nil else { return x.empty("ContentProtection", attributes) }
        x.open("ContentProtection", attributes)
        if let pssh = p.pssh { x.line("<cenc:pssh>\(XMLText.escape(pssh))</cenc:pssh>") }
        if let url = p.licenseURL { x.line("<dashif:laurl>\(XMLText.escape(url))</dashif:laurl>") }
        x.close("ContentProtection")
    }

    private static func write(_ t: SegmentTemplate, to x: inout XMLText) {
        x.open("SegmentTemplate", [("timescale", String(t.timescale)), ("initialization", t.initialization), ("media", t.media),
                                   ("startNumber", String(t.startNumber)),
                                   ("presentationTimeOffset", t.presentationTimeOffset == 0 ? nil : String(t.presentationTimeOffset))])
        write(t.timeline, to: &x)
        x.close("SegmentTemplate")
    }

    private static func write(_ timeline: [TimelineEntry], to x: inout XMLText) {
        x.open("SegmentTimeline", [])
        for s in timeline {
            x.empty("S", [("t", String(s.start)), ("d", String(s.duration)), ("r", s.repeats == 0 ? nil : String(s.repeats))])
        }
        x.close("SegmentTimeline")
    }

    private static func write(_ list: SegmentList, to x: inout XMLText) {
        x.open("SegmentList", [("timescale", String(list.timescale)),
                               ("presentationTimeOffset", list.presentationTimeOffset == 0 ? nil : String(list.presentationTimeOffset)),
                               ("startNumber", list.startNumber.map(String.init))])
        x.empty("Initialization", [("sourceURL", list.initialization)])
        write(list.timeline, to: &x)
        for m in list.media { x.empty("SegmentURL", [("media", m)]) }
        x.close("SegmentList")
    }

    /// An `xs:dateTime` in UTC to the millisecond (`2026-12-05T03:00:00.123Z`): HLS's date text,
    /// which is the same ISO 8601 form.
    static func dateTime(_ d: Date) -> String { HLSText.date(d) }

    /// An `xs:duration` of seconds (`PT59.5S`): exact to the microsecond, rounded to the nearest
    /// (so a time of 90 kHz ticks reads back as the same tick: a tick is 11.1 µs).
    public static func duration(_ t: MediaTime) -> String {
        let us = t.rescaled(to: 1_000_000, rounding: .nearest).value
        let whole = us / 1_000_000, frac = us % 1_000_000
        guard frac != 0 else { return "PT\(whole)S" }
        var digits = String(frac)
        digits = String(repeating: "0", count: 6 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return "PT\(whole).\(digits)S"
    }
}

/// Indented XML text, elements opened and closed in order; `escape` is the package's one XML
/// escaper (the DASH writer's attributes, the VMAP `AdRulesBuilder` writes).
package struct XMLText {
    private(set) var text = ""
    private var depth = 0

    mutating func line(_ s: String) { text += String(repeating: "  ", count: depth) + s + "\n" }

    mutating func open(_ name: String, _ attributes: [(String, String?)]) {
        line("<\(name)\(Self.attributes(attributes))>")
        depth += 1
    }

    mutating func empty(_ name: String, _ attributes: [(String, String?)]) { line("<\(name)\(Self.attributes(attributes))/>") }

    mutating func close(_ name: String) {
        depth -= 1
        line("</\(name)>")
    }

    /// ` name="value"` for each attribute with a value, escaped for a double-quoted attribute.
    static func attributes(_ list: [(String, String?)]) -> String {
        list.compactMap { name, value in value.map { " \(name)=\"\(escape($0))\"" } }.joined()
    }

    /// `s` as XML character data or a quoted attribute value: the five predefined entities.
    package static func escape(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(c)
            }
        }
        return out
    }
}

extension DASH {
    /// An MPD's `xs:dateTime` (`availabilityStartTime`, `publishTime`): ISO 8601 with seconds
    /// optionally fractional and a time zone; one written without a zone is read as UTC, as
    /// DASH-IF's guidelines ask origins to mean it. Nil when it is not a date-time.
    public static func dateTime(parsing text: String) -> Date? {
        let t = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if let d = HLSText.date(parsing: Substring(t)) { return d }
        return HLSText.date(parsing: Substring(t + "Z"))
    }
}
