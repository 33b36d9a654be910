import Foundation

/// What an MPD says, read by Python's `xml.etree` (not Interlude's code): each
/// `SegmentTemplate`'s segments and the SCTE-35 events, for checking them against the files
/// they name.
public enum DASHTimeline {
    /// A template's timescale, start number, `presentationTimeOffset`, and every segment's start
    /// and duration in ticks (`S@r` expanded).
    public struct Template: Sendable {
        public var timescale: Int64
        public var startNumber: Int
        public var presentationTimeOffset: Int64
        public var segments: [(start: Int64, duration: Int64)]
    }

    /// A SCTE-35 event: time and duration in its stream's timescale, the section from `Signal/Binary`.
    public struct SCTE35Event: Sendable {
        public var time: Int64
        public var duration: Int64?
        public var section: [UInt8]
    }

    static let program = """
        import base64, json, sys, xml.etree.ElementTree as ET
        ns = {"d": "urn:mpeg:dash:schema:mpd:2011", "s": "http://www.scte.org/schemas/35/2016"}
        root = ET.parse(sys.argv[1]).getroot()
        templates = []
        for t in root.iter("{urn:mpeg:dash:schema:mpd:2011}SegmentTemplate"):
            segments, at = [], 0
            for s in t.findall("d:SegmentTimeline/d:S", ns):
                at = int(s.get("t", at)); d = int(s.get("d"))
                for _ in range(int(s.get("r", "0")) + 1):
                    segments.append([at, d]); at += d
            templates.append({"media": t.get("media"), "timescale": int(t.get("timescale", "1")), "startNumber": int(t.get("startNumber", "1")),
                              "pto": int(t.get("presentationTimeOffset", "0")), "segments": segments})
        events = []
        for es in root.iter("{urn:mpeg:dash:schema:mpd:2011}EventStream"):
            if es.get("schemeIdUri") != "urn:scte:scte35:2014:xml+bin": continue
            for e in es.findall("d:Event", ns):
                b = e.find("s:Signal/s:Binary", ns)
                events.append({"t": int(e.get("presentationTime", "0")), "d": int(e.get("duration")) if e.get("duration") else None,
                               "section": list(base64.b64decode(b.text.strip())) if b is not None else []})
        print(json.dumps({"templates": templates, "events": events}))
        """

    static func read(_ mpd: URL) throws -> [String: Any] {
        let out = try Tools.checked(Tools.run("/usr/bin/python3", ["-c", program, mpd.path]))
        guard let json = try JSONSerialization.jsonObject(with: out.stdout) as? [String: Any] else {
            throw VerifierError.malformedOutput("reading \(mpd.path): \(String(decoding: out.stdout, as: UTF8.self))")
        }
        return json
    }

    /// The `SegmentTemplate` whose `@media` is `media`; nil when there is none.
    public static func template(_ mpd: URL, media: String) throws -> Template? {
        let templates = try read(mpd)["templates"] as? [[String: Any]] ?? []
        guard let t = templates.first(where: { $0["media"] as? String == media }) else { return nil }
        let segments = (t["segments"] as? [[Int]] ?? []).map { (start: Int64($0[0]), duration: Int64($0[1])) }
        return Template(timescale: Int64(t["timescale"] as? Int ?? 1), startNumber: t["startNumber"] as? Int ?? 1,
                        presentationTimeOffset: Int64(t["pto"] as? Int ?? 0), segments: segments)
    }

    /// The events of the `urn:scte:scte35:2014:xml+bin` streams.
    public static func scte35Events(_ mpd: URL) throws -> [SCTE35Event] {
        (try read(mpd)["events"] as? [[String: Any]] ?? []).map { e in
            SCTE35Event(time: Int64(e["t"] as? Int ?? 0), duration: (e["d"] as? Int).map(Int64.init),
                        section: (e["section"] as? [Int] ?? []).map { UInt8(truncatingIfNeeded: $0) })
        }
    }
}
