import Foundation
import Timing

/// The URL a session's playlist gives a stored segment, and what a fetch of it asks for:
/// `/v1/segments/PATH` with, when needed, `o` (90 kHz ticks its timestamps are moved by onto the
/// viewer's clock), `d=1` (sent marked as a new stream), `c` (marker packets after it that lead
/// into the next segment's continuity counters) and, for an ad segment of a session, the
/// beacon place `s`, `r`, `b`, `a`, `k` signed by `t` (`SegmentSignature`).
public struct SegmentURL: Sendable, Equatable {
    /// The store path.
    public var path: String
    /// The clock shift, ticks (0: none); within ±2^32.
    public var shift: Int64 = 0
    /// Marked as a new stream.
    public var marked = false
    /// The ad place whose beacons the fetch fires.
    public var beacon: BeaconPlace?
    /// The continuity counters of the segment that follows it, led into by marker packets
    /// after its own (`TSDiscontinuity.leadingInto`); empty: none. At most 8.
    public var leadsInto: [TSDiscontinuity.Counter] = []

    /// Which ad segment of which session.
    public struct BeaconPlace: Sendable, Equatable {
        /// Session id.
        public var session: String
        /// Rendition name.
        public var rendition: String
        /// Break (live: the viewer's avail), ad, segment indices.
        public var breakIndex: Int, ad: Int, segment: Int

        /// The signed message.
        var message: String { "\(session)|\(rendition)|\(breakIndex)|\(ad)|\(segment)" }
    }

    /// A segment URL.
    public init(path: String, shift: Int64 = 0, marked: Bool = false, beacon: BeaconPlace? = nil) {
        self.path = path; self.shift = shift; self.marked = marked; self.beacon = beacon
    }

    /// The text, signed with `signature`, under the CDN prefix of its kind (`cdn`; none: a path
    /// on the service).
    public func text(signedBy signature: SegmentSignature, cdn: CDNPrefixes = .none) -> String {
        var query: [String] = []
        if shift != 0 { query.append("o=\(shift)") }
        if marked { query.append("d=1") }
        if !leadsInto.isEmpty { query.append("c=" + leadsInto.map { "\($0.pid).\($0.cc)" }.joined(separator: ",")) }
        if let b = beacon {
            query += ["s=\(b.session)", "r=\(b.rendition)", "b=\(b.breakIndex)", "a=\(b.ad)", "k=\(b.segment)", "t=\(signature.tag(b.message))"]
        }
        return cdn.prefix(forPath: path) + "/v1/segments/" + path + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }

    /// Why a fetch's query cannot be served.
    public enum QueryError: Error, Equatable, CustomStringConvertible {
        /// `o` is not a whole number of ticks within ±2^32 (or 0).
        case badShift(String)
        /// `d` is not `1`.
        case badMark(String)
        /// `c` is not up to 8 `PID.CC` pairs (PID 16…8190, CC 0…15) separated by commas.
        case badCounters(String)

        /// One line.
        public var description: String {
            switch self {
            case .badShift(let o): "bad clock shift '\(o.prefix(40))'"
            case .badMark(let d): "bad discontinuity mark '\(d.prefix(40))'"
            case .badCounters(let c): "bad continuity counters '\(c.prefix(40))'"
            }
        }
    }

    /// What a fetch of `path` with `query` asks for: bounds checked on every number (a bad
    /// shift or mark is an error); beacon parameters only when complete, in range and signed
    /// (anything else is ignored: the segment is served, nothing fires).
    public static func parse(path: String, query: (String) -> String?, signature: SegmentSignature) throws(QueryError) -> SegmentURL {
        var url = SegmentURL(path: path)
        if let o = query("o") {
            guard o.utf8.count <= 12, let t = Int64(o), t != 0, t > -(1 << 32), t < (1 << 32) else { throw .badShift(o) }
            url.shift = t
        }
        if let d = query("d") {
            guard d == "1" else { throw .badMark(d) }
            url.marked = true
        }
        if let c = query("c") {
            let pairs = c.utf8.count <= 96 ? c.split(separator: ",", omittingEmptySubsequences: false) : []
            let counters = pairs.map { pair -> TSDiscontinuity.Counter? in
                let parts = pair.split(separator: ".", omittingEmptySubsequences: false)
                guard parts.count == 2, parts.allSatisfy({ (1...4).contains($0.utf8.count) && $0.utf8.allSatisfy { (48...57).contains($0) } }),
                      let pid = Int(parts[0]), let cc = UInt8(parts[1]) else { return nil }
                let counter = TSDiscontinuity.Counter(pid: pid, cc: cc)
                return counter.isValid ? counter : nil
            }
            guard (1...8).contains(counters.count), counters.allSatisfy({ $0 != nil }) else { throw .badCounters(c) }
            url.leadsInto = counters.compactMap { $0 }
        }
        func index(_ name: String) -> Int? {
            guard let v = query(name), (1...6).contains(v.utf8.count), v.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
            return Int(v)
        }
        if let s = query("s"), let r = query("r"), let b = index("b"), let a = index("a"), let k = index("k"), let t = query("t"),
           s.utf8.count <= 64, r.utf8.count <= 64 {
            let place = BeaconPlace(session: s, rendition: r, breakIndex: b, ad: a, segment: k)
            if signature.verify(place.message, tag: t) { url.beacon = place }
        }
        return url
    }
}
