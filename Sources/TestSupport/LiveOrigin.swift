import Foundation
import Threads
import Timing

/// A live HLS origin on 127.0.0.1 for tests: it publishes `LiveOriginMedia`'s segments one by one
/// (a real-time clock, as an encoder publishes each segment once it is complete, or a manual one
/// moved by `advance(segments:)`), and serves a sliding media playlist over them with ad-break
/// signals from a schedule (CUE-OUT/CONT/IN markers, SCTE-35 DATERANGEs, in-band SCTE-35).
///
/// Paths: `/live.m3u8` (rendition 0) and `/r<K>/live.m3u8` (rendition K), segments `seg/<N>.ts`
/// relative to them, `/master.m3u8` naming every rendition. Segment N is media sequence number N.
/// `faults` (`LiveOriginFault`) make it a hostile origin: numbering, timestamps, durations,
/// fetches and in-band sections go wrong at the segments they name.
/// The playlist holds the last `windowSize` published segments, `EXT-X-TARGETDURATION:2`,
/// `EXT-X-PROGRAM-DATE-TIME` on every segment; once the last segment is published it gets
/// `EXT-X-ENDLIST` (the origin does not loop). A segment not yet published answers 404; one
/// that left the window is still served (origins keep them a while).
///
/// ```swift
/// let media = try LiveOriginMedia.make()
/// let origin = try LiveOrigin(media: media, breaks: [
///     LiveOriginBreak(start: .segment(6), duration: MediaTime(seconds: 10), signal: .cueOut),
///     LiveOriginBreak(start: .frame(545), duration: MediaTime(seconds: 8), signal: .inBand(.spliceInsert)),
/// ])
/// origin.advance(segments: 3)       // manual clock
/// origin.url("/live.m3u8")
/// ```
public final class LiveOrigin: Sendable {
    /// How segments get published.
    public enum Clock: Sendable, Equatable {
        /// Only `advance(segments:)` publishes.
        case manual
        /// Segment n (n ≥ the initial count) is published when the durations of the segments from
        /// the initial count through n have passed since the origin started; `advance` adds to it.
        case realTime
    }

    /// What the media playlist holds now.
    public struct Window: Sendable, Equatable {
        /// `EXT-X-MEDIA-SEQUENCE`: the first segment's index.
        public var mediaSequence: Int
        /// The segment indices listed.
        public var segments: Range<Int>
        /// `EXT-X-ENDLIST` is written (every segment is published).
        public var ended: Bool
        /// A window.
        public init(mediaSequence: Int, segments: Range<Int>, ended: Bool) {
            self.mediaSequence = mediaSequence; self.segments = segments; self.ended = ended
        }
    }

    /// The content.
    public let media: LiveOriginMedia
    /// The breaks, placed on the content.
    public let breaks: [LiveOriginPlacedBreak]
    /// The faults injected.
    public let faults: [LiveOriginFault]
    /// Segments in the playlist.
    public let windowSize: Int
    /// The clock.
    public let clock: Clock
    /// `EXT-X-PROGRAM-DATE-TIME` of content frame 0.
    public let programDateBase: Date
    private let server: HTTPTestServer
    let core: Core

    /// Starts an origin over `media` with `breaks` (in order, not overlapping), publishing
    /// `initialSegments` (default: `windowSize`) at once. `segmentChunkDelay`: seconds a segment's
    /// body pauses after each 64 KiB (an origin far away: fetches take a while). Throws
    /// `LiveOriginError` for a schedule that does not fit, or when the socket cannot be set up.
    /// `dash`: a live DASH origin as well (`/live.mpd`, `LiveOrigin+DASH`): the same content and
    /// breaks, video and audio as separate CMAF tracks, breaks as MPD Events and `emsg`.
    /// `cmaf`: the segments are served as CMAF (`LiveOriginMedia.Rendition.cmaf()`: an
    /// `EXT-X-MAP` of `init.mp4`, `seg/<N>.m4s`), their splice times moved as their timestamps
    /// are, in-band signals as `emsg` boxes (scheme `urn:scte:scte35:2013:bin`) after the
    /// segment's `styp`; no faults then. `subtitles`: the master names a WebVTT subtitle
    /// rendition (`LiveOrigin+Subtitles`). `secondLanguage` (with `dash`): a second audio
    /// language (German: the sound 12 dB quieter, `LiveOriginDASH.languages`), in the demuxed
    /// HLS master (`a2.m3u8`) and the MPD (an AdaptationSet `lang="de"`, Representation `a2`).
    /// `aes128`: every segment encrypted whole under its key (`/key.bin`; the IV each segment's
    /// media sequence number, as an `EXT-X-KEY` without `IV` implies), MPEG-TS only.
    /// `sampleEncryption`: the demuxed HLS origin's video segments sample-encrypted (needs `dash`;
    /// `LiveOrigin+SampleEncryption`). `dashSecondPeriodAt`: the MPD starts a second Period at
    /// that segment (`LiveOriginDASH.secondPeriodAt`).
    /// `textInMP4`: the subtitles as WebVTT or TTML in MP4 (`TestMP4Text`): with `dash`, the MPD
    /// has an English text AdaptationSet of them (`LiveOrigin+DASHText`); with `subtitles`, the
    /// HLS subtitle rendition is fMP4 segments of them behind an `EXT-X-MAP`.
    public init(media: LiveOriginMedia, breaks: [LiveOriginBreak] = [], windowSize: Int = 5, clock: Clock = .manual,
                initialSegments: Int? = nil, programDateBase: Date = Date(timeIntervalSince1970: 1_796_083_200),
                faults: [LiveOriginFault] = [], segmentChunkDelay: Double = 0, cmaf: Bool = false, dash: Bool = false,
                subtitles: Bool = false, secondLanguage: Bool = false, aes128: LiveOriginAES128? = nil,
                textInMP4: LiveOriginDASH.TextFormat? = nil, sampleEncryption: LiveOriginSampleEncryption? = nil,
                dashSecondPeriodAt: Int? = nil) throws {
        precondition(!secondLanguage || dash, "a second language is a demuxed HLS origin's (dash: true)")
        precondition(sampleEncryption == nil || dash, "sample encryption is the demuxed HLS origin's (dash: true)")
        precondition(aes128 == nil || (!cmaf && !dash && faults.isEmpty), "an AES-128 origin is MPEG-TS without faults")
        precondition(windowSize >= 1)
        self.media = media
        self.breaks = try LiveOriginPlacedBreak.place(breaks, on: media)
        self.faults = faults
        self.windowSize = windowSize
        self.clock = clock
        self.programDateBase = programDateBase
        if cmaf || dash {
            precondition(faults.allSatisfy { $0.kind == .mapPerSegment && !dash }, "a CMAF origin's one fault is mapPerSegment; a DASH origin has none")
        }
        core = Core(media: media, breaks: self.breaks, initial: min(media.segments.count, initialSegments ?? windowSize),
                    realTime: clock == .realTime, windowSize: windowSize, base: programDateBase,
                    faults: LiveOriginFaults(faults: faults, media: media), segmentChunkDelay: segmentChunkDelay,
                    cmaf: cmaf ? try media.renditions.map { try $0.cmaf() } : nil,
                    dash: dash ? try {
                        var d = try LiveOriginDASH.make(media, secondLanguage: secondLanguage)
                        d.text = textInMP4
                        d.secondPeriodAt = dashSecondPeriodAt
                        return d
                    }() : nil,
                    subtitles: subtitles, aes128: aes128, textInMP4: textInMP4, sampleEncryption: sampleEncryption)
        server = try HTTPTestServer()
        let core = self.core
        server.setHandler { request in core.respond(request.path) }
    }

    deinit { server.stop() }

    /// Stops serving. Idempotent.
    public func stop() { server.stop() }

    /// `http://127.0.0.1:PORT` + path, e.g. `url("/live.m3u8")`.
    public func url(_ path: String) -> String { server.url(path) }

    /// Every request received so far.
    public var requests: [HTTPTestServer.Request] { server.requests }

    /// Publishes `segments` more (at most up to the last one).
    public func advance(segments: Int = 1) { core.advance(segments) }

    /// How many segments are published now.
    public var publishedCount: Int { core.published() }

    /// What the media playlist holds now.
    public var window: Window { core.window(published: core.published()) }

    /// The media playlist of rendition `rendition` as it is now.
    public func playlist(rendition: Int = 0) -> String { core.playlist(rendition: rendition, published: core.published()) }

    /// The multivariant playlist.
    public func masterPlaylist() -> String { core.master() }

    /// The 90 kHz ticks the faults move content segment `index`'s timestamps by (0 without PTS faults).
    public func ptsShift(ofSegment index: Int) -> Int64 { core.faults.ptsShift(index) }

    /// The bytes served for segment `index` of `rendition` (rewritten when it carries in-band SCTE-35).
    public func segmentData(_ index: Int, rendition: Int = 0) throws -> Data { Data(try core.segment(rendition, index)) }

    /// The content frame shown at `pts` (nil outside the content).
    public func frame(atPTS pts: Int64) -> Int? { media.frame(atPTS: pts) }

    /// Seconds after the origin started at which segment `index` is published on the real-time
    /// clock (0 for the initial ones), ignoring `advance`.
    public func publishTime(ofSegment index: Int) -> Double { core.publishTime(index) }

    /// The shared state, also held by the server's handler (so the origin's deinit runs).
    final class Core: Sendable {
        let media: LiveOriginMedia
        let breaks: [LiveOriginPlacedBreak]
        let initial: Int, realTime: Bool, windowSize: Int, base: Date
        let segmentChunkDelay: Double
        let started = DispatchTime.now().uptimeNanoseconds
        /// Sections per segment (in-band breaks), and the SCTE-35 continuity counter each starts at.
        let inBand: [Int: [[UInt8]]]
        let continuity: [Int]
        let rewritesAll: Bool
        let faults: LiveOriginFaults
        /// CMAF: each rendition's folder and the timestamp offset of its segments; nil: MPEG-TS.
        let cmaf: [(folder: URL, ptsOffset: Int64)]?
        /// DASH: the tracks served under `/dash/` and `/live.mpd`.
        let dash: LiveOriginDASH?
        /// The master names a WebVTT subtitle rendition (`/subs/`).
        let subtitles: Bool
        /// Its segments are WebVTT or TTML in MP4 rather than WebVTT files.
        let textInMP4: LiveOriginDASH.TextFormat?
        /// Segments encrypted (`/key.bin`, `EXT-X-KEY` without IV): whole (AES-128) or their samples; nil: clear.
        let aes128: LiveOriginAES128?
        /// The demuxed HLS origin's video sample-encrypted (its audio clear); nil: clear.
        let sampleEncryption: LiveOriginSampleEncryption?
        /// When the origin started (the MPD's availability start is computed from it).
        let startDate = Date()
        /// What changes as the origin is asked and advanced.
        private struct Counts {
            var manual = 0
            var cache: [Int: [UInt8]] = [:]
            var fetches: [Int: Int] = [:]
            var playlistRequests = 0
            var refusedCount = 0
        }
        private let counts = Locked(Counts())

        init(media: LiveOriginMedia, breaks: [LiveOriginPlacedBreak], initial: Int, realTime: Bool, windowSize: Int, base: Date,
             faults: LiveOriginFaults, segmentChunkDelay: Double, cmaf: [(folder: URL, ptsOffset: Int64)]?, dash: LiveOriginDASH? = nil,
             subtitles: Bool = false, aes128: LiveOriginAES128? = nil, textInMP4: LiveOriginDASH.TextFormat? = nil,
             sampleEncryption: LiveOriginSampleEncryption? = nil) {
            self.segmentChunkDelay = segmentChunkDelay
            self.sampleEncryption = sampleEncryption
            self.textInMP4 = textInMP4
            self.aes128 = aes128
            self.subtitles = subtitles
            self.cmaf = cmaf
            self.dash = dash
            self.media = media; self.breaks = breaks; self.initial = initial; self.realTime = realTime
            self.windowSize = windowSize; self.base = base; self.faults = faults
            var sections: [Int: [[UInt8]]] = [:]
            for b in breaks where b.scheduled.signals.contains(where: { if case .inBand = $0 { true } else { false } }) {
                let outs = b.scheduled.repeated ? Array(b.startSegment..<b.endSegment) : [b.startSegment]
                let moved = cmaf?.first?.ptsOffset ?? dash?.ptsOffset ?? 0   // a CMAF origin's timestamps, and so its splice times
                for n in outs { sections[n, default: []].append(b.outSection(shift: faults.ptsShift(b.startSegment) + moved)) }
                sections[b.endSegment, default: []].append(b.inSection(shift: faults.ptsShift(b.endSegment) + moved))
            }
            for i in media.segments.indices {
                let extra = faults.sections(i)
                if !extra.isEmpty { sections[i, default: []] += extra }
            }
            inBand = sections
            rewritesAll = !sections.isEmpty
            var cc: [Int] = [], total = 0
            for i in media.segments.indices { cc.append(total); total += LiveOriginTS.packetCount(sections[i] ?? []) }
            continuity = cc
        }


        func advance(_ n: Int) { counts.withLock { $0.manual += max(0, n) } }

        func publishTime(_ index: Int) -> Double {
            guard index >= initial else { return 0 }
            return media.segments[initial...min(index, media.segments.count - 1)].reduce(0) { $0 + $1.duration.seconds }
        }

        func published() -> Int {
            let extra = counts.withLock { $0.manual }
            var n = initial
            if realTime {
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
                var t = 0.0
                while n < media.segments.count {
                    t += media.segments[n].duration.seconds
                    if t > elapsed { break }
                    n += 1
                }
            }
            return min(media.segments.count, n + extra)
        }

        func window(published p: Int) -> Window {
            let first = max(0, p - windowSize)
            return Window(mediaSequence: first, segments: first..<p, ended: p == media.segments.count)
        }

        func respond(_ path: String) -> HTTPTestServer.Response? {
            let playlistType = ["Content-Type": "application/vnd.apple.mpegurl", "Cache-Control": "no-cache"]
            if path == "/master.m3u8" { return .init(headers: playlistType, body: Data(master().utf8)) }
            if let aes128, path == "/key.bin" { return .init(headers: ["Content-Type": "application/octet-stream"], body: Data(aes128.servedKey ?? aes128.key)) }
            if let dash, path == "/live.mpd" || path.hasPrefix("/dash/") { return respondDASH(path, dash) }
            if let dash, path.hasPrefix("/demuxed/") { return respondDemuxed(path, dash) }
            if subtitles, path.hasPrefix("/subs/") { return respondSubtitles(path) }
            var rendition = 0, rest = Substring(path)
            if path.hasPrefix("/r"), let slash = path.dropFirst(2).firstIndex(of: "/"), let k = Int(path[path.index(path.startIndex, offsetBy: 2)..<slash]) {
                guard media.renditions.indices.contains(k) else { return nil }
                rendition = k; rest = path[slash...]
            }
            if rest == "/live.m3u8" {
                let p = published()
                if faults.countsPlaylistRequests(published: p) {
                    let count: Int = counts.withLock { $0.refusedCount += 1; return $0.refusedCount }
                    if faults.playlistRefused(published: p, count: count) {
                        return .init(status: 503, body: "unavailable (fault)", contentType: "text/plain")
                    }
                }
                return .init(headers: playlistType, body: Data(playlist(rendition: rendition, published: p).utf8))
            }
            if let cmaf {
                // CMAF: the initialization segment and whole segments, from the CMAF folder
                let folder = cmaf[rendition].folder
                if rest == "/init.mp4" { return .init(headers: ["Content-Type": "video/mp4"], body: (try? Data(contentsOf: folder.appendingPathComponent("init.mp4"))) ?? Data()) }
                guard rest.hasPrefix("/seg/"), rest.hasSuffix(".m4s"), let n = Int(rest.dropFirst(5).dropLast(4)), n >= 0, n < published(),
                      let data = try? Data(contentsOf: folder.appendingPathComponent("\(n).m4s")) else { return nil }
                var response = HTTPTestServer.Response(headers: ["Content-Type": "video/mp4"], body: Self.addingEventMessages(data, sections: inBand[n] ?? []))
                response.chunkDelay = segmentChunkDelay
                return response
            }
            guard rest.hasPrefix("/seg/"), rest.hasSuffix(".ts") else { return nil }
            let name = rest.dropFirst(5).dropLast(3)
            let joined = name.hasSuffix("-2")
            guard let n = Int(joined ? name.dropLast(2) : name), n >= 0, n + (joined ? 1 : 0) < published() else { return nil }
            let key = rendition * 1_000_000 + n
            let count: Int = counts.withLock { $0.fetches[key, default: 0] += 1; return $0.fetches[key]! }
            if faults.notFound(n, rendition: rendition, request: count) { return .init(status: 404, body: "not found (fault)", contentType: "text/plain") }
            guard let bytes = try? segment(rendition, n) + (joined ? segment(rendition, n + 1) : []) else {
                return .init(status: 500, body: "segment \(n) could not be read", contentType: "text/plain")
            }
            var response = HTTPTestServer.Response(headers: ["Content-Type": "video/mp2t"], body: Data(bytes))
            response.chunkDelay = segmentChunkDelay
            return response
        }

        func segment(_ rendition: Int, _ index: Int) throws -> [UInt8] {
            let key = rendition * 1_000_000 + index
            if let c = counts.withLock({ $0.cache[key] }) { return c }
            let r = media.renditions[rendition]
            var bytes = [UInt8](try Data(contentsOf: r.file(index)))
            if rewritesAll {
                do {
                    bytes = try LiveOriginTS.addingSCTE35(bytes, sections: inBand[index] ?? [], continuity: continuity[index])
                } catch {
                    throw LiveOriginError.segment("\(index) of rendition \(rendition): \(error)")
                }
            }
            let shift = faults.ptsShift(index)
            if shift != 0 { LiveOriginTS.shiftTimestamps(&bytes, by: shift) }
            if let aes128 { bytes = try aes128.encrypt(bytes, sequence: index) }
            counts.withLock { $0.cache[key] = bytes }
            return bytes
        }

        func master() -> String {
            var lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-INDEPENDENT-SEGMENTS"]
            if subtitles { lines.append(Self.subtitleRendition) }
            for (k, r) in media.renditions.enumerated() {
                lines.append("#EXT-X-STREAM-INF:BANDWIDTH=\(r.peakBitRate),RESOLUTION=\(r.size.width)x\(r.size.height),FRAME-RATE=\(media.fps).000"
                             + (subtitles ? ",SUBTITLES=\"subs\"" : ""))
                lines.append("r\(k)/live.m3u8")
            }
            return lines.joined(separator: "\n") + "\n"
        }

        func playlist(rendition: Int, published p: Int) -> String {
            let w = window(published: p)
            let segments = media.segments
            let request = counts.withLock { $0.playlistRequests += 1; return $0.playlistRequests }
            let restart = faults.restart(published: p)
            let entries = faults.entries(max(w.segments.lowerBound, restart ?? 0)..<w.segments.upperBound)
            let tag = faults.sequenceTag(first: entries.first?.sequence ?? w.mediaSequence, restartedAt: restart, published: p, request: request)
            var lines = ["#EXTM3U", "#EXT-X-VERSION:\(cmaf == nil ? 3 : 7)", "#EXT-X-TARGETDURATION:\(faults.targetDuration(published: p))", "#EXT-X-MEDIA-SEQUENCE:\(tag)"]
            if cmaf != nil { lines.append("#EXT-X-MAP:URI=\"init.mp4\"") }
            if let aes128 { lines.append("#EXT-X-KEY:METHOD=\(aes128.method),URI=\"/key.bin\"") }
            for e in entries {
                let s = segments[e.segments[0]]
                if e.discontinuity { lines.append("#EXT-X-DISCONTINUITY") }
                lines.append("#EXT-X-PROGRAM-DATE-TIME:\(date(ofFrame: s.firstFrame))")
                for n in e.segments { for b in breaks { lines += markers(b, before: n, first: w.mediaSequence) } }
                if cmaf != nil, faults.ownMap(e.segments[0]) { lines.append("#EXT-X-MAP:URI=\"init.mp4?n=\(e.segments[0])\"") }
                lines.append("#EXTINF:\(e.extinf),")
                lines.append(cmaf == nil ? e.uri : String(e.uri.dropLast(3)) + ".m4s")
            }
            if w.ended { lines.append("#EXT-X-ENDLIST") }
            return lines.joined(separator: "\n") + "\n"
        }

        /// The marker lines of `b` in front of segment `n` of a window starting at `first`.
        /// `offset`: the segments' timestamp offset when not `cmafOffset` (the DASH tracks' in `/demuxed/`).
        func markers(_ b: LiveOriginPlacedBreak, before n: Int, first: Int, offset: Int64? = nil) -> [String] {
            b.scheduled.signals.flatMap { markers(b, signal: $0, before: n, first: first, offset: offset ?? cmafOffset) }
        }

        func markers(_ b: LiveOriginPlacedBreak, signal: LiveOriginBreak.Signal, before n: Int, first: Int, offset: Int64) -> [String] {
            let d = LiveOrigin.decimal(b.plannedDuration)
            let again = b.scheduled.repeated && n > b.startSegment && n < b.endSegment
            switch signal {
            case .cueOut:
                if n == b.startSegment || again { return ["#EXT-X-CUE-OUT:DURATION=\(d)"] }
                if n > b.startSegment && n < b.endSegment {
                    let e = MediaTime(value: Int64(media.segments[n].firstFrame - b.startFrame), timescale: Int64(media.fps))
                    return ["#EXT-X-CUE-OUT-CONT:ElapsedTime=\(LiveOrigin.decimal(e)),Duration=\(d)"]
                }
                return n == b.endSegment ? ["#EXT-X-CUE-IN"] : []
            case .dateRange:
                var out: [String] = []
                let attributes = "ID=\"\(b.dateRangeID)\",START-DATE=\"\(date(ofFrame: b.startFrame))\""
                let ahead = b.scheduled.signalledAhead > 0 && n == b.startSegment - b.scheduled.signalledAhead
                if n == b.startSegment || again || ahead || (n == first && b.startSegment < first && b.endSegment >= first) {
                    out.append("#EXT-X-DATERANGE:\(attributes),PLANNED-DURATION=\(d),SCTE35-OUT=\(LiveOriginSCTE35.hex(b.outSection(shift: faults.ptsShift(b.startSegment) + offset)))")
                }
                if n == b.endSegment {
                    out.append("#EXT-X-DATERANGE:\(attributes),SCTE35-IN=\(LiveOriginSCTE35.hex(b.inSection(shift: faults.ptsShift(b.endSegment) + offset)))")
                }
                return out
            case .inBand:
                return []
            }
        }

        /// `segment` (fMP4) with an `emsg` box (version 0, SCTE-35 in binary) per section after its `styp`.
        static func addingEventMessages(_ segment: Data, sections: [[UInt8]]) -> Data {
            guard !sections.isEmpty else { return segment }
            func u32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
            var boxes: [UInt8] = []
            for (i, section) in sections.enumerated() {
                let body: [UInt8] = [0, 0, 0, 0] + Array("urn:scte:scte35:2013:bin".utf8) + [0] + [0]
                    + u32(90_000) + u32(0) + u32(0xFFFF_FFFF) + u32(UInt32(i + 1)) + section
                boxes += u32(UInt32(8 + body.count)) + Array("emsg".utf8) + body
            }
            let bytes = [UInt8](segment)
            var at = 0
            if bytes.count >= 8, bytes[4..<8].elementsEqual("styp".utf8) {
                at = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
            }
            return Data(bytes[..<at] + boxes + bytes[at...])
        }

        /// What a CMAF origin's timestamps are moved by (0 for MPEG-TS): its splice times move with them.
        var cmafOffset: Int64 { cmaf?.first?.ptsOffset ?? 0 }

        func date(ofFrame n: Int) -> String {
            let t = base.addingTimeInterval(Double(n) / Double(media.fps))
            return LiveOrigin.iso8601(t)
        }
    }

    /// ISO 8601 with milliseconds, UTC.
    static func iso8601(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        f.timeZone = TimeZone(identifier: "UTC")
        return f.string(from: date)
    }

    /// `t` in decimal seconds: exact when it has at most 6 decimals, else rounded to 6.
    public static func decimal(_ t: MediaTime) -> String {
        let micro = t.rescaled(to: 1_000_000, rounding: .nearest).value
        let whole = micro / 1_000_000, fraction = micro % 1_000_000
        if fraction == 0 { return "\(whole)" }
        var f = String(format: "%06lld", fraction)
        while f.hasSuffix("0") { f.removeLast() }
        return "\(whole).\(f)"
    }
}

/// A live origin's encryption (`LiveOrigin(aes128:)`): its key, its `METHOD` (`AES-128`, or
/// `SAMPLE-AES`), and the encryption the test brings (for AES-128, AES-128-CBC with PKCS#7 padding
/// under that key and the IV given; TestSupport has no AES).
public struct LiveOriginAES128: Sendable {
    /// The key (16 bytes) the segments are encrypted with.
    public var key: [UInt8]
    /// What `/key.bin` answers: `key`, unless a test makes the origin hand out another.
    public var servedKey: [UInt8]? = nil
    /// `EXT-X-KEY`'s `METHOD`.
    public var method: String
    /// Encrypts a segment's bytes with `key` and an IV.
    public var cbc: @Sendable (_ bytes: [UInt8], _ key: [UInt8], _ iv: [UInt8]) throws -> [UInt8]

    /// An origin key and its encryption.
    public init(key: [UInt8], method: String = "AES-128", cbc: @escaping @Sendable ([UInt8], [UInt8], [UInt8]) throws -> [UInt8]) {
        self.key = key; self.method = method; self.cbc = cbc
    }

    /// Segment `sequence`'s bytes encrypted: the IV is its media sequence number, 128 bits big-endian (RFC 8216 §5.2).
    public func encrypt(_ bytes: [UInt8], sequence: Int) throws -> [UInt8] {
        try cbc(bytes, key, Self.iv(sequence))
    }

    /// The IV an `EXT-X-KEY` without `IV` implies for media sequence number `sequence`.
    public static func iv(_ sequence: Int) -> [UInt8] {
        [UInt8](repeating: 0, count: 8) + (0..<8).map { UInt8(truncatingIfNeeded: UInt64(sequence) >> (56 - 8 * $0)) }
    }
}
