import Foundation

/// A fragmented MP4 text track as a live DASH origin sends it: an initialization segment whose
/// sample entry is WebVTT (`wvtt`) or TTML (`stpp`, ISO/IEC 14496-30), and media segments of
/// `moof`/`mdat` pairs (ISO/IEC 14496-12 §8.8). Read from a network, so every size, count and
/// offset is checked against the bytes there are; anything else is a one-line `Failure`.
///
/// A sample's time is its decode time (`tfdt` plus the durations before it) plus its composition
/// offset, in the track's timescale (`mdhd`). A WebVTT sample's cues (`vttc`) show for the whole
/// sample (`webVTTCues`); a TTML sample is one document whose times count from the track's media
/// time 0 (14496-30; DASH, unlike Smooth Streaming, adds no segment offset), shown only within
/// the sample (its root temporal extent) — read by the caller's TTML reader.
public enum FragmentedTextTrack {
    /// The sample format.
    public enum Format: Sendable, Hashable {
        /// WebVTT (`wvtt`).
        case webVTT
        /// TTML (`stpp`).
        case ttml
    }

    /// What the initialization segment says of the text track.
    public struct Header: Sendable, Hashable {
        /// Ticks per second of its sample times.
        public var timescale: Int64
        /// Its sample entry.
        public var format: Format
        /// Its track id (`tkhd`), what its fragments name.
        public var trackID: UInt32
        /// `trex` defaults: a sample's duration and size when a fragment gives none.
        public var defaultDuration: UInt32 = 0, defaultSize: UInt32 = 0
    }

    /// One sample: its time and duration (track ticks) and its bytes.
    public struct Sample: Sendable, Hashable {
        /// Its presentation time, track ticks.
        public var start: Int64
        /// How long it shows, track ticks.
        public var duration: Int64
        /// Its bytes (WebVTT boxes, or a TTML document).
        public var bytes: Data
    }

    /// Why a text segment could not be read, in one line.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        /// The line.
        public var description: String
        init(_ d: String) { description = "text track: " + d }
    }

    /// Most samples read from one segment.
    public static let maxSamples = 20_000
    /// Longest cue text kept, in bytes (longer cues are left out).
    public static let maxCueText = 4_096

    /// The text track of initialization segment `data` (the first track whose sample entry is
    /// `wvtt` or `stpp`).
    public static func header(_ data: Data) throws -> Header {
        let d = [UInt8](data)
        guard let moov = try boxes(d, 0..<d.count).first(where: { $0.type == "moov" }) else { throw Failure("no moov box in the initialization segment") }
        let inMoov = try boxes(d, moov.body)
        for trak in inMoov where trak.type == "trak" {
            let parts = try boxes(d, trak.body)
            guard let tkhd = parts.first(where: { $0.type == "tkhd" }), let mdia = parts.first(where: { $0.type == "mdia" }) else { continue }
            let media = try boxes(d, mdia.body)
            guard let mdhd = media.first(where: { $0.type == "mdhd" }), let minf = media.first(where: { $0.type == "minf" }),
                  let stbl = try boxes(d, minf.body).first(where: { $0.type == "stbl" }),
                  let stsd = try boxes(d, stbl.body).first(where: { $0.type == "stsd" }), stsd.body.count >= 8 else { continue }
            let entries = try boxes(d, (stsd.body.lowerBound + 8)..<stsd.body.upperBound)
            let format: Format
            switch entries.first?.type {
            case "wvtt": format = .webVTT
            case "stpp": format = .ttml
            default: continue
            }
            let v = try byte(d, mdhd.body)
            let timescale = try u32(d, mdhd.body, at: v == 1 ? 20 : 12)
            guard timescale > 0 else { throw Failure("timescale 0") }
            let trackID = try u32(d, tkhd.body, at: try byte(d, tkhd.body) == 1 ? 20 : 12)
            var header = Header(timescale: Int64(timescale), format: format, trackID: trackID)
            if let mvex = inMoov.first(where: { $0.type == "mvex" }) {
                for trex in try boxes(d, mvex.body) where trex.type == "trex" {
                    guard try u32(d, trex.body, at: 4) == trackID else { continue }
                    header.defaultDuration = try u32(d, trex.body, at: 12)
                    header.defaultSize = try u32(d, trex.body, at: 16)
                }
            }
            return header
        }
        throw Failure("no WebVTT (wvtt) or TTML (stpp) track in the initialization segment")
    }

    /// The samples of media segment `data` for the track `header` describes, in order.
    public static func samples(_ data: Data, _ header: Header) throws -> [Sample] {
        let d = [UInt8](data)
        var out: [Sample] = []
        for moof in try boxes(d, 0..<d.count) where moof.type == "moof" {
            for traf in try boxes(d, moof.body) where traf.type == "traf" {
                let parts = try boxes(d, traf.body)
                guard let tfhd = parts.first(where: { $0.type == "tfhd" }) else { throw Failure("a traf without tfhd") }
                let flags = try u32(d, tfhd.body, at: 0) & 0xFF_FFFF
                guard try u32(d, tfhd.body, at: 4) == header.trackID else { continue }
                var at = 8
                var base = moof.start
                if flags & 0x1 != 0 {
                    let b = try u64(d, tfhd.body, at: at); at += 8
                    guard b < UInt64(d.count) else { throw Failure("a base data offset past the segment") }
                    base = Int(b)
                }
                if flags & 0x2 != 0 { at += 4 }
                var defaultDuration = header.defaultDuration, defaultSize = header.defaultSize
                if flags & 0x8 != 0 { defaultDuration = try u32(d, tfhd.body, at: at); at += 4 }
                if flags & 0x10 != 0 { defaultSize = try u32(d, tfhd.body, at: at); at += 4 }
                guard let tfdt = parts.first(where: { $0.type == "tfdt" }) else { throw Failure("a traf without tfdt") }
                var time = try byte(d, tfdt.body) == 1 ? try u64(d, tfdt.body, at: 4) : UInt64(try u32(d, tfdt.body, at: 4))
                // at most 2^32 s of media time (an epoch-based clock is 1.8e9 s): any clock converts without overflow
                guard time < UInt64(1) << 62, time / UInt64(header.timescale) < UInt64(1) << 32 else { throw Failure("a decode time past 2^32 s") }
                var next = base
                for trun in parts where trun.type == "trun" {
                    let version = try byte(d, trun.body)
                    let f = try u32(d, trun.body, at: 0) & 0xFF_FFFF
                    let count = Int(try u32(d, trun.body, at: 4))
                    guard count <= maxSamples - out.count else { throw Failure("over \(maxSamples) samples in a segment") }
                    var p = 8
                    if f & 0x1 != 0 { next = base + Int(Int32(bitPattern: try u32(d, trun.body, at: p))); p += 4 }
                    if f & 0x4 != 0 { p += 4 }
                    for _ in 0..<count {
                        var duration = defaultDuration, size = defaultSize, offset: Int64 = 0
                        if f & 0x100 != 0 { duration = try u32(d, trun.body, at: p); p += 4 }
                        if f & 0x200 != 0 { size = try u32(d, trun.body, at: p); p += 4 }
                        if f & 0x400 != 0 { p += 4 }
                        if f & 0x800 != 0 {
                            let raw = try u32(d, trun.body, at: p); p += 4
                            offset = version == 0 ? Int64(raw) : Int64(Int32(bitPattern: raw))
                        }
                        guard next >= 0, Int(size) <= d.count - next else { throw Failure("a sample past the end of the segment") }
                        out.append(Sample(start: Int64(time) + offset, duration: Int64(duration), bytes: Data(d[next..<(next + Int(size))])))
                        next += Int(size)
                        time += UInt64(duration)
                    }
                }
            }
        }
        return out
    }

    /// The cues of WebVTT samples (`vttc`: `iden`, `sttg`, `payl`; `vtte` none), each showing for
    /// its sample, a cue that goes on in the next sample made one (`merged`); times in track ticks.
    /// A cue whose text is empty, over `maxCueText` or not UTF-8 is left out; `-->` in a text is
    /// written `--&gt;` and blank lines are dropped (what a WebVTT file can hold).
    public static func webVTTCues(_ samples: [Sample]) throws -> [WebVTT.Cue] {
        var cues: [WebVTT.Cue] = []
        for s in samples where s.duration > 0 {
            let d = [UInt8](s.bytes)
            for vttc in try boxes(d, 0..<d.count) where vttc.type == "vttc" {
                var id: String?, settings = "", text: String?
                for b in try boxes(d, vttc.body) {
                    let value = String(validating: d[b.body], as: UTF8.self)
                    switch b.type {
                    case "iden": id = value.map { String($0.prefix(256)) }?.filter { !$0.isNewline }
                    case "sttg": settings = value.map { String($0.prefix(256)) }?.filter { !$0.isNewline } ?? ""
                    case "payl": text = value
                    default: break
                    }
                }
                guard let raw = text, raw.utf8.count <= maxCueText else { continue }
                let lines = raw.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: true)
                let clean = lines.joined(separator: "\n").replacingOccurrences(of: "-->", with: "--&gt;")
                guard !clean.isEmpty else { continue }
                cues.append(WebVTT.Cue(id: id?.isEmpty == true ? nil : id, start: s.start, end: s.start + s.duration, settings: settings, text: clean))
            }
        }
        return merged(cues)
    }

    /// `cues` in start order with each cue that goes on where the same cue (id, settings, text)
    /// ended made one.
    public static func merged(_ cues: [WebVTT.Cue]) -> [WebVTT.Cue] {
        var out: [WebVTT.Cue] = []
        var open: [String: Int] = [:]   // a cue's identity → its index in `out`
        for c in cues.sorted(by: { ($0.start, $0.end) < ($1.start, $1.end) }) {
            let key = "\(c.id ?? "")\u{0}\(c.settings)\u{0}\(c.text)"
            if let i = open[key], out[i].end == c.start {
                out[i].end = c.end
            } else {
                open[key] = out.count
                out.append(c)
            }
        }
        return out
    }

    // MARK: boxes

    /// A box: its type, where it starts and its body.
    struct Box {
        var type: String
        var start: Int
        var body: Range<Int>
    }

    /// The boxes laid end to end in `range` of `d` (a size of 0 runs to the range's end; 1, a
    /// 64-bit size follows); at most 10,000.
    static func boxes(_ d: [UInt8], _ range: Range<Int>) throws -> [Box] {
        var out: [Box] = [], at = range.lowerBound
        while at < range.upperBound {
            guard range.upperBound - at >= 8 else { throw Failure("a box header cut short") }
            var size = Int(try u32(d, at..<range.upperBound, at: 0)), header = 8
            if size == 1 {
                let large = try u64(d, at..<range.upperBound, at: 8)
                guard large <= UInt64(range.upperBound - at) else { throw Failure("a box past its container") }
                size = Int(large); header = 16
            } else if size == 0 {
                size = range.upperBound - at
            }
            guard size >= header, size <= range.upperBound - at else { throw Failure("a box of \(size) bytes where \(range.upperBound - at) are left") }
            let type = String(decoding: d[(at + 4)..<(at + 8)], as: UTF8.self)
            out.append(Box(type: type, start: at, body: (at + header)..<(at + size)))
            guard out.count <= 10_000 else { throw Failure("over 10,000 boxes") }
            at += size
        }
        return out
    }

    /// The first byte of `r` (a full box's version).
    static func byte(_ d: [UInt8], _ r: Range<Int>) throws -> UInt8 {
        guard !r.isEmpty else { throw Failure("an empty box") }
        return d[r.lowerBound]
    }

    static func u32(_ d: [UInt8], _ r: Range<Int>, at offset: Int) throws -> UInt32 {
        let i = r.lowerBound + offset
        guard offset >= 0, i + 4 <= r.upperBound else { throw Failure("a box cut short") }
        return d[i..<(i + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    static func u64(_ d: [UInt8], _ r: Range<Int>, at offset: Int) throws -> UInt64 {
        let i = r.lowerBound + offset
        guard offset >= 0, i + 8 <= r.upperBound else { throw Failure("a box cut short") }
        return d[i..<(i + 8)].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
