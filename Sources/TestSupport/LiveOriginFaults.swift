import Foundation
import Timing

/// A fault a hostile `LiveOrigin` injects at content segment `at` (its index in
/// `LiveOriginMedia`), as origins in the field misbehave: its media sequence numbering, its
/// timestamps, its `EXTINF`s and target duration, its answers to segment fetches, its in-band
/// SCTE-35. A fault that changes the playlist applies once segment `at` is published.
public struct LiveOriginFault: Sendable, Equatable {
    /// What goes wrong.
    public enum Kind: Sendable, Equatable {
        /// `EXT-X-MEDIA-SEQUENCE` goes back by this many: the whole playlist is renumbered lower
        /// (the URIs, which name content segments, stay).
        case sequenceBack(Int)
        /// The origin restarts: its window holds only segments from `at` on, numbered from 0.
        case sequenceReset
        /// Numbered from 2^50 on (over the parser's 2^48 bound).
        case sequenceHuge
        /// `EXT-X-MEDIA-SEQUENCE` written as a negative number.
        case sequenceNegative
        /// `EXT-X-MEDIA-SEQUENCE` written as letters.
        case sequenceGarbage
        /// `EXT-X-MEDIA-SEQUENCE` a different pseudo-random number on every request.
        case sequenceRandom
        /// Every segment from `at` on carries timestamps (video, audio, PCR) this much earlier.
        case ptsBack(MediaTime)
        /// Timestamps restart at 0 with segment `at` (and go on from there).
        case ptsReset
        /// Segment `at` carries the timestamps of the segment before it (only it).
        case ptsRepeat
        /// Every segment from `at` on at a pseudo-random PTS of its own.
        case ptsRandom
        /// Segment `at` listed with `EXTINF:0`.
        case extinfZero
        /// Segment `at` listed with `EXTINF:7` (the target is 2).
        case extinfOverTarget
        /// From `at` on, each entry is two content segments joined (4 s) and
        /// `EXT-X-TARGETDURATION` is 4.
        case targetDuration4
        /// From `at` on, every segment answers 404 to its 1st, 3rd, 5th … request.
        case alternate404
        /// Segment `at` answers 404 to every request.
        case gone404
        /// Once segment `at` is published, the media playlist answers 503 to this many requests.
        case playlistUnavailable(requests: Int)
        /// Segment `at` carries SCTE-35 sections of the largest length (4,095 bytes after the
        /// length field: a `splice_null` with a descriptor loop of private descriptors, CRC valid),
        /// with one before and one after it that declare that length but are cut short.
        case hugeSections
        /// Segment `at` carries a `splice_insert` out of network 5 hours after it (and one an hour
        /// before it), 30 s long.
        case farSplicePTS
        /// Segment `at` carries a `splice_insert` (event 900, 8 s, at its first frame plus 1 s)
        /// whose `splice_command_length` is the legacy 0xFFF, and a `private_command` with 0xFFF.
        case commandLengthFFF
        /// A CMAF origin (`cmaf`) names a map of its own before every segment from `at` on
        /// (`init.mp4?n=N`: the same bytes under a new URI each time).
        case mapPerSegment
    }

    /// The content segment the fault starts at.
    public var at: Int
    /// What goes wrong.
    public var kind: Kind
    /// `EXT-X-DISCONTINUITY` before each segment whose timestamps the fault moves.
    public var discontinuity: Bool
    /// For the 404 faults: the one rendition that answers 404 (nil: every one).
    public var rendition: Int?

    /// A fault.
    public init(at: Int, _ kind: Kind, discontinuity: Bool = false, rendition: Int? = nil) {
        self.at = at; self.kind = kind; self.discontinuity = discontinuity; self.rendition = rendition
    }
}

/// The faults of one origin, as the playlist writer and the segment server consult them.
struct LiveOriginFaults: Sendable {
    let faults: [LiveOriginFault]
    let media: LiveOriginMedia

    /// One playlist entry: the content segments it joins, its URI, its `EXTINF` text.
    struct Entry: Equatable {
        var segments: [Int]
        var uri: String
        var extinf: String
        var discontinuity: Bool
        var sequence: Int
    }

    /// The restart point (`sequenceReset`) once published.
    func restart(published p: Int) -> Int? {
        faults.first { $0.kind == .sequenceReset && $0.at < p }?.at
    }

    /// Whether segment `n` is named under a map of its own (`mapPerSegment`).
    func ownMap(_ n: Int) -> Bool { faults.contains { $0.kind == .mapPerSegment && n >= $0.at } }

    /// The target duration written, once `published` segments are out.
    func targetDuration(published p: Int) -> Int {
        faults.contains { $0.kind == .targetDuration4 && $0.at < p } ? 4 : 2
    }

    /// The entries of a window over content segments `window`, numbered as the origin numbers
    /// them before any sequence fault: a content segment is its index, a joined pair from
    /// `at` on is `at + (n - at) / 2`.
    func entries(_ window: Range<Int>) -> [Entry] {
        let pairFrom = faults.first { $0.kind == .targetDuration4 }?.at
        var out: [Entry] = []
        var n = window.lowerBound
        while n < window.upperBound {
            if let a = pairFrom, n >= a {
                if (n - a) % 2 == 1 { n += 1; continue }   // the second half of a pair whose first left the window
                guard n + 1 < window.upperBound else { break }
                let d = media.segments[n].duration + media.segments[n + 1].duration
                out.append(Entry(segments: [n, n + 1], uri: "seg/\(n)-2.ts", extinf: LiveOrigin.decimal(d),
                                 discontinuity: false, sequence: a + (n - a) / 2))
                n += 2
                continue
            }
            var extinf = LiveOrigin.decimal(media.segments[n].duration)
            if faults.contains(where: { $0.at == n && $0.kind == .extinfZero }) { extinf = "0" }
            if faults.contains(where: { $0.at == n && $0.kind == .extinfOverTarget }) { extinf = "7" }
            out.append(Entry(segments: [n], uri: "seg/\(n).ts", extinf: extinf, discontinuity: discontinuity(before: n), sequence: n))
            n += 1
        }
        return out
    }

    /// Whether a fault with `discontinuity` moves segment `n`'s timestamps away from the one before.
    func discontinuity(before n: Int) -> Bool {
        faults.contains { f in
            guard f.discontinuity else { return false }
            switch f.kind {
            case .ptsBack, .ptsReset: return n == f.at
            case .ptsRepeat: return n == f.at || n == f.at + 1
            case .ptsRandom: return n >= f.at
            default: return false
            }
        }
    }

    /// The `EXT-X-MEDIA-SEQUENCE` value written for a window whose first entry is numbered
    /// `first`, `request` counting the playlist requests (for the random numbering).
    func sequenceTag(first: Int, restartedAt: Int?, published p: Int, request: Int) -> String {
        for f in faults where f.at < p {
            switch f.kind {
            case .sequenceBack(let k): return "\(first - k)"
            case .sequenceReset: return "\(first - (restartedAt ?? f.at))"
            case .sequenceHuge: return "\((1 << 50) + first)"
            case .sequenceNegative: return "-\(first + 1)"
            case .sequenceGarbage: return "seq\(first)"
            case .sequenceRandom: return "\(Self.mix(UInt64(request)) % 1_000_000)"
            default: continue
            }
        }
        return "\(first)"
    }

    /// 90 kHz ticks added to every timestamp of content segment `n`.
    func ptsShift(_ n: Int) -> Int64 {
        var shift: Int64 = 0
        for f in faults {
            switch f.kind {
            case .ptsBack(let d) where n >= f.at: shift -= d.mpegTicks
            case .ptsReset where n >= f.at: shift -= media.segments[f.at].firstPTS
            case .ptsRepeat where n == f.at && n > 0: shift -= media.segments[n].firstPTS - media.segments[n - 1].firstPTS
            case .ptsRandom where n >= f.at: shift += Int64(Self.mix(UInt64(n) &+ 77) % (1 << 33)) - (1 << 32)
            default: break
            }
        }
        return shift
    }

    /// Whether the `count`-th request (from 1) of segment `n` of `rendition` answers 404.
    func notFound(_ n: Int, rendition: Int, request count: Int) -> Bool {
        faults.contains { f in
            guard f.rendition == nil || f.rendition == rendition else { return false }
            switch f.kind {
            case .alternate404: return n >= f.at && count % 2 == 1
            case .gone404: return n == f.at
            default: return false
            }
        }
    }

    /// Whether the media playlist answers 503 to its `count`-th request (from 1) since the
    /// fault's segment was published, `published` segments being out.
    func playlistRefused(published p: Int, count: Int) -> Bool {
        faults.contains { f in
            if case .playlistUnavailable(let n) = f.kind { return f.at < p && count <= n }
            return false
        }
    }

    /// Whether a fault counts playlist requests once `published` segments are out.
    func countsPlaylistRequests(published p: Int) -> Bool {
        faults.contains { f in
            if case .playlistUnavailable = f.kind { return f.at < p }
            return false
        }
    }

    /// The extra SCTE-35 sections segment `n` carries.
    func sections(_ n: Int) -> [[UInt8]] {
        var out: [[UInt8]] = []
        let first = media.segments[n].firstPTS + ptsShift(n)
        for f in faults where f.at == n {
            switch f.kind {
            case .hugeSections: out += [LiveOriginSCTE35.truncated(), LiveOriginSCTE35.hugeSpliceNull(), LiveOriginSCTE35.truncated()]
            case .farSplicePTS:
                out.append(LiveOriginSCTE35.spliceInsert(eventID: 700, outOfNetwork: true, pts: first + 5 * 3600 * 90_000, breakDuration: 30 * 90_000))
                let hourBefore = ((first - 3600 * 90_000) % (1 << 33) + (1 << 33)) % (1 << 33)   // as written: modulo 2^33
                out.append(LiveOriginSCTE35.spliceInsert(eventID: 701, outOfNetwork: true, pts: hourBefore, breakDuration: 30 * 90_000))
            case .commandLengthFFF:
                var s = LiveOriginSCTE35.spliceInsert(eventID: 900, outOfNetwork: true, pts: first + 90_000, breakDuration: 8 * 90_000)
                LiveOriginSCTE35.setCommandLength(&s, 0xFFF)
                out.append(s)
                out.append(LiveOriginSCTE35.privateCommandFFF())
            default: break
            }
        }
        return out
    }

    /// A fixed pseudo-random mix of `x` (splitmix64), so runs repeat.
    static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
