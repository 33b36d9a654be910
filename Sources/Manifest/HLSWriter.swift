import Foundation
import Timing

extension HLS {
    /// The text of a media playlist: the header (`EXT-X-VERSION` the least its features need),
    /// then each segment's tags in `Segment`'s order, the trailing markers and `EXT-X-ENDLIST`.
    /// `EXT-X-DISCONTINUITY-SEQUENCE` is written when it is not 0 or the playlist is not VOD.
    public static func write(_ p: MediaPlaylist) -> String {
        var out = "#EXTM3U\n#EXT-X-VERSION:\(version(of: p))\n#EXT-X-TARGETDURATION:\(p.targetDuration)\n"
        out += "#EXT-X-MEDIA-SEQUENCE:\(p.mediaSequence)\n"
        if p.discontinuitySequence != 0 || p.playlistType != .vod {
            out += "#EXT-X-DISCONTINUITY-SEQUENCE:\(p.discontinuitySequence)\n"
        }
        if let t = p.playlistType { out += "#EXT-X-PLAYLIST-TYPE:\(t.rawValue)\n" }
        if p.independentSegments { out += "#EXT-X-INDEPENDENT-SEGMENTS\n" }
        if p.iFramesOnly { out += "#EXT-X-I-FRAMES-ONLY\n" }
        for s in p.segments { write(s, to: &out) }
        for m in p.trailingMarkers { out += line(m) + "\n" }
        if p.endList { out += "#EXT-X-ENDLIST\n" }
        return out
    }

    /// One segment: the markers that end what came before (`EXT-X-CUE-IN`, date ranges carrying
    /// `SCTE35-IN`), `EXT-X-DISCONTINUITY`, `EXT-X-KEY`, `EXT-X-MAP`, `EXT-X-PROGRAM-DATE-TIME`,
    /// the other markers, `EXT-X-BYTERANGE`, `EXT-X-GAP`, `EXTINF` and the URI.
    static func write(_ s: Segment, to out: inout String) {
        for m in s.markers where m.endsBreak { out += line(m) + "\n" }
        if s.discontinuity { out += "#EXT-X-DISCONTINUITY\n" }
        if let k = s.key { out += "#EXT-X-KEY:" + attributes(k) + "\n" }
        if let m = s.map {
            var a = HLSAttributeList()
            a.quoted("URI", m.uri)
            if let r = m.byteRange { a.quoted("BYTERANGE", "\(r.length)@\(r.offset ?? 0)") }
            out += "#EXT-X-MAP:" + a.text + "\n"
        }
        if let d = s.programDateTime { out += "#EXT-X-PROGRAM-DATE-TIME:" + HLSText.date(d) + "\n" }
        for m in s.markers where !m.endsBreak { out += line(m) + "\n" }
        if let r = s.byteRange { out += "#EXT-X-BYTERANGE:\(r.length)" + (r.offset.map { "@\($0)" } ?? "") + "\n" }
        if s.gap { out += "#EXT-X-GAP\n" }
        out += "#EXTINF:" + HLSText.seconds(s.duration) + "," + s.title.filter { $0 != "\n" && $0 != "\r" } + "\n"
        out += s.uri + "\n"
    }

    /// A marker's line.
    static func line(_ m: Marker) -> String {
        switch m {
        case .cueOut(let d): return d.map { "#EXT-X-CUE-OUT:DURATION=" + HLSText.seconds($0) } ?? "#EXT-X-CUE-OUT"
        case .cueOutCont(let e, let d):
            var a = HLSAttributeList()
            a.seconds("ElapsedTime", e)   // the field's spelling (Adobe's tag), not an RFC name
            a.seconds("Duration", d)
            return a.text.isEmpty ? "#EXT-X-CUE-OUT-CONT" : "#EXT-X-CUE-OUT-CONT:" + a.text
        case .cueIn: return "#EXT-X-CUE-IN"
        case .dateRange(let r):
            var a = HLSAttributeList()
            a.quoted("ID", r.id)
            a.quoted("CLASS", r.rangeClass)
            a.quoted("START-DATE", HLSText.date(r.startDate))
            a.quoted("END-DATE", r.endDate.map(HLSText.date))
            a.seconds("DURATION", r.duration)
            a.seconds("PLANNED-DURATION", r.plannedDuration)
            for c in r.clientAttributes { a.client(c) }
            a.hex("SCTE35-CMD", r.scte35Cmd)
            a.hex("SCTE35-OUT", r.scte35Out)
            a.hex("SCTE35-IN", r.scte35In)
            a.yes("END-ON-NEXT", r.endOnNext)
            return "#EXT-X-DATERANGE:" + a.text
        }
    }

    static func attributes(_ k: Key) -> String {
        var a = HLSAttributeList()
        a.enumerated("METHOD", k.method.rawValue)
        a.quoted("URI", k.uri)
        a.hex("IV", k.iv)
        a.quoted("KEYFORMAT", k.keyFormat)
        a.quoted("KEYFORMATVERSIONS", k.keyFormatVersions)
        return a.text
    }

    /// The least `EXT-X-VERSION` a media playlist needs (RFC 8216 §7): 3 for decimal `EXTINF`
    /// (always written), 4 for byte ranges or I-frames only, 5 for `KEYFORMAT`, 6 for `EXT-X-MAP`
    /// outside an I-frames-only playlist.
    public static func version(of p: MediaPlaylist) -> Int {
        var v = 3
        if p.iFramesOnly || p.segments.contains(where: { $0.byteRange != nil }) { v = max(v, 4) }
        if p.segments.contains(where: { $0.key?.keyFormat != nil || $0.key?.keyFormatVersions != nil }) { v = max(v, 5) }
        if p.segments.contains(where: { $0.map != nil }) { v = max(v, p.iFramesOnly ? 5 : 6) }
        return v
    }

    /// The text of a multivariant playlist: `EXT-X-MEDIA` lines, then each variant's
    /// `EXT-X-STREAM-INF` and URI, then the I-frame variants.
    public static func write(_ p: MultivariantPlaylist) -> String {
        let service = p.renditions.contains { $0.instreamID?.hasPrefix("SERVICE") == true }
        var out = "#EXTM3U\n#EXT-X-VERSION:\(service ? 7 : 3)\n"
        if p.independentSegments { out += "#EXT-X-INDEPENDENT-SEGMENTS\n" }
        for r in p.renditions {
            var a = HLSAttributeList()
            a.enumerated("TYPE", r.type.rawValue)
            a.quoted("GROUP-ID", r.groupID)
            a.quoted("NAME", r.name)
            a.quoted("LANGUAGE", r.language)
            a.quoted("ASSOC-LANGUAGE", r.assocLanguage)
            a.enumerated("DEFAULT", r.isDefault ? "YES" : "NO")
            a.enumerated("AUTOSELECT", r.autoselect ? "YES" : "NO")
            if r.type == .subtitles { a.yes("FORCED", r.forced) }
            a.quoted("INSTREAM-ID", r.instreamID)
            a.quoted("CHARACTERISTICS", r.characteristics)
            a.quoted("CHANNELS", r.channels)
            a.quoted("URI", r.uri)
            out += "#EXT-X-MEDIA:" + a.text + "\n"
        }
        for v in p.variants {
            var a = HLSAttributeList()
            a.integer("BANDWIDTH", v.bandwidth)
            a.integer("AVERAGE-BANDWIDTH", v.averageBandwidth)
            a.resolution("RESOLUTION", v.resolution)
            a.quoted("CODECS", v.codecs)
            a.frameRate("FRAME-RATE", v.frameRate)
            a.quoted("AUDIO", v.audio)
            a.quoted("VIDEO", v.video)
            a.quoted("SUBTITLES", v.subtitles)
            switch v.closedCaptions {
            case .none?: a.enumerated("CLOSED-CAPTIONS", "NONE")
            case .group(let g)?: a.quoted("CLOSED-CAPTIONS", g)
            case nil: break
            }
            out += "#EXT-X-STREAM-INF:" + a.text + "\n" + v.uri + "\n"
        }
        for v in p.iFrameVariants {
            var a = HLSAttributeList()
            a.integer("BANDWIDTH", v.bandwidth)
            a.resolution("RESOLUTION", v.resolution)
            a.quoted("CODECS", v.codecs)
            a.quoted("URI", v.uri)
            out += "#EXT-X-I-FRAME-STREAM-INF:" + a.text + "\n"
        }
        return out
    }
}

extension HLS.Marker {
    /// Whether the marker closes what came before (`EXT-X-CUE-IN`, a date range with
    /// `SCTE35-IN`): the writer puts it before the segment's `EXT-X-DISCONTINUITY`.
    var endsBreak: Bool {
        switch self {
        case .cueIn: true
        case .dateRange(let r): r.scte35In != nil
        default: false
        }
    }
}
