import Foundation

/// The Periods of an MPD as a DASH client reads them, parsed by Python's ElementTree (not by
/// Interlude's writer): each Period's `@id`, `@start` and `@duration` in 90 kHz ticks (exact for
/// the microsecond decimals Interlude writes), its `AssetIdentifier`, and each
/// Representation's `SegmentList` (initialization, presentation time offset, the timeline's
/// segments, the URLs).
public enum DASHPeriods {
    /// One Period.
    public struct Period: Sendable {
        public var id: String
        /// `@start`, `@duration`: ticks of 90 kHz.
        public var start: Int64, duration: Int64?
        /// `AssetIdentifier@value`.
        public var asset: String?
        /// Its representations, video first.
        public var representations: [Representation]
        /// The `schemeIdUri` of each `EventStream`.
        public var eventSchemes: [String]
    }

    /// One Representation's segment list.
    public struct Representation: Sendable {
        public var id: String
        public var contentType: String
        public var codecs: String
        public var timescale: Int64
        public var presentationTimeOffset: Int64
        public var initialization: String
        /// `(t, d)` of every segment.
        public var segments: [(start: Int64, duration: Int64)]
        public var media: [String]
    }

    static let program = """
        import json, re, sys, xml.etree.ElementTree as ET
        from decimal import Decimal
        ns = {"d": "urn:mpeg:dash:schema:mpd:2011"}
        def ticks(v):
            if v is None: return None
            m = re.fullmatch(r"PT(?:(\\d+)H)?(?:(\\d+)M)?(?:([\\d.]+)S)?", v)
            s = Decimal(m.group(1) or 0) * 3600 + Decimal(m.group(2) or 0) * 60 + Decimal(m.group(3) or 0)
            return int((s * 90000).to_integral_value())
        root = ET.parse(sys.argv[1]).getroot()
        periods = []
        for p in root.findall("d:Period", ns):
            reps = []
            for a in p.findall("d:AdaptationSet", ns):
                for r in a.findall("d:Representation", ns):
                    l = r.find("d:SegmentList", ns)
                    t = r.find("d:SegmentTemplate", ns)
                    if t is None: t = a.find("d:SegmentTemplate", ns)
                    if l is None and t is None: continue
                    base = l if l is not None else t
                    segs, at = [], 0
                    for s in base.findall("d:SegmentTimeline/d:S", ns):
                        at = int(s.get("t", at)); d = int(s.get("d"))
                        for _ in range(int(s.get("r", "0")) + 1):
                            segs.append([at, d]); at += d
                    def expand(tpl, number, time):
                        tpl = tpl.replace("$RepresentationID$", r.get("id"))
                        tpl = re.sub(r"\\$Number(%0(\\d+)d)?\\$", lambda m: str(number).zfill(int(m.group(2) or 0)), tpl)
                        return re.sub(r"\\$Time(%0(\\d+)d)?\\$", lambda m: str(time).zfill(int(m.group(2) or 0)), tpl)
                    if l is not None:
                        init = l.find("d:Initialization", ns).get("sourceURL")
                        media = [u.get("media") for u in l.findall("d:SegmentURL", ns)]
                    else:
                        first = int(t.get("startNumber", "1"))
                        init = expand(t.get("initialization"), first, 0)
                        media = [expand(t.get("media"), first + i, seg[0]) for i, seg in enumerate(segs)]
                    reps.append({"id": r.get("id"), "type": a.get("contentType"), "codecs": r.get("codecs"), "timescale": int(base.get("timescale", "1")),
                                 "pto": int(base.get("presentationTimeOffset", "0")), "init": init, "segments": segs, "media": media})
            asset = p.find("d:AssetIdentifier", ns)
            periods.append({"id": p.get("id"), "start": ticks(p.get("start")), "duration": ticks(p.get("duration")),
                            "asset": asset.get("value") if asset is not None else None, "reps": reps,
                            "events": [e.get("schemeIdUri") for e in p.findall("d:EventStream", ns)]})
        print(json.dumps({"duration": ticks(root.get("mediaPresentationDuration")), "periods": periods}))
        """

    /// The Periods of `mpd` and its `mediaPresentationDuration` (ticks of 90 kHz).
    public static func read(_ mpd: URL) throws -> (periods: [Period], duration: Int64?) {
        let out = try Tools.checked(Tools.run("/usr/bin/python3", ["-c", program, mpd.path]))
        guard let json = try JSONSerialization.jsonObject(with: out.stdout) as? [String: Any], let list = json["periods"] as? [[String: Any]] else {
            throw VerifierError.malformedOutput("reading \(mpd.path): \(String(decoding: out.stdout, as: UTF8.self))")
        }
        let periods = list.map { p in
            Period(id: p["id"] as? String ?? "", start: Int64(p["start"] as? Int ?? -1), duration: (p["duration"] as? Int).map(Int64.init),
                   asset: p["asset"] as? String,
                   representations: (p["reps"] as? [[String: Any]] ?? []).map { r in
                       Representation(id: r["id"] as? String ?? "", contentType: r["type"] as? String ?? "", codecs: r["codecs"] as? String ?? "",
                                      timescale: Int64(r["timescale"] as? Int ?? 1), presentationTimeOffset: Int64(r["pto"] as? Int ?? 0),
                                      initialization: r["init"] as? String ?? "",
                                      segments: (r["segments"] as? [[Int]] ?? []).map { (Int64($0[0]), Int64($0[1])) },
                                      media: r["media"] as? [String] ?? [])
                   },
                   eventSchemes: p["events"] as? [String] ?? [])
        }
        return (periods, (json["duration"] as? Int).map(Int64.init))
    }
}
