/// H.264 parameter-set plumbing for smart rendering: the content's `avcC` record, the encoder's
/// Annex B header, and one `avcC` holding both, so that copied packets (which use the content's
/// SPS/PPS id 0) and re-encoded ones (libx264 with `sps-id=1`) decode from one sample entry.
struct AVCConfig: Equatable {
    /// The five header bytes: version, profile, compatibility, level, length size.
    var header: [UInt8]
    var sps: [[UInt8]]
    var pps: [[UInt8]]
    /// Whatever follows the PPS list (the High-profile chroma/bit-depth fields), kept as is.
    var trailer: [UInt8]

    /// Bytes of each NAL unit's length prefix.
    var lengthSize: Int { Int(header[4] & 0x03) + 1 }

    /// Parses an `avcC` record; nil when malformed.
    init?(avcC b: [UInt8]) {
        guard b.count >= 7, b[0] == 1 else { return nil }
        var i = 6
        func list(_ count: Int) -> [[UInt8]]? {
            var out: [[UInt8]] = []
            for _ in 0..<count {
                guard i + 2 <= b.count else { return nil }
                let n = Int(b[i]) << 8 | Int(b[i + 1])
                i += 2
                guard i + n <= b.count, n > 0 else { return nil }
                out.append(Array(b[i..<i + n]))
                i += n
            }
            return out
        }
        guard let sps = list(Int(b[5] & 0x1F)), !sps.isEmpty, i < b.count else { return nil }
        let ppsCount = Int(b[i]); i += 1
        guard let pps = list(ppsCount), !pps.isEmpty else { return nil }
        header = Array(b[0..<5])
        self.sps = sps
        self.pps = pps
        trailer = Array(b[i...])
    }

    init(header: [UInt8], sps: [[UInt8]], pps: [[UInt8]], trailer: [UInt8]) {
        self.header = header; self.sps = sps; self.pps = pps; self.trailer = trailer
    }

    /// The record's bytes.
    var bytes: [UInt8] {
        var out = header
        out.append(0xE0 | UInt8(sps.count))
        for s in sps { out += [UInt8(s.count >> 8), UInt8(s.count & 0xFF)] + s }
        out.append(UInt8(pps.count))
        for p in pps { out += [UInt8(p.count >> 8), UInt8(p.count & 0xFF)] + p }
        return out + trailer
    }

    /// This record with `other`'s parameter sets appended.
    func adding(sps more: [[UInt8]], pps morePPS: [[UInt8]]) -> AVCConfig {
        AVCConfig(header: header, sps: sps + more, pps: pps + morePPS, trailer: trailer)
    }

    /// The NAL unit types (low 5 bits of each header) in a length-prefixed packet; nil when malformed.
    static func nalTypes(lengthPrefixed b: [UInt8], lengthSize: Int) -> [UInt8]? {
        NALUnits.ranges(lengthPrefixed: b, lengthSize: lengthSize)?.map { b[$0.lowerBound] & 0x1F }
    }

    /// The id an SPS declares (its first ue(v) after profile, constraints and level), or a PPS
    /// declares (its first ue(v)); nil when unreadable.
    static func parameterSetID(_ nal: [UInt8]) -> Int? {
        let type = nal.first.map { $0 & 0x1F }
        let offset = type == 7 ? 4 : type == 8 ? 1 : -1
        guard offset > 0, nal.count > offset else { return nil }
        var reader = ExpGolombReader(Array(nal[offset...]))
        return reader.ue()
    }
}

/// Reads Exp-Golomb codes (no emulation-prevention handling: enough for the first fields).
struct ExpGolombReader {
    private let bytes: [UInt8]
    private var bit = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    private mutating func next() -> Int? {
        guard bit / 8 < bytes.count else { return nil }
        let v = Int(bytes[bit / 8] >> (7 - UInt8(bit % 8))) & 1
        bit += 1
        return v
    }

    /// ue(v).
    mutating func ue() -> Int? {
        var zeros = 0
        while true {
            guard let b = next() else { return nil }
            if b == 1 { break }
            zeros += 1
            if zeros > 31 { return nil }
        }
        var value = 0
        for _ in 0..<zeros { guard let b = next() else { return nil }; value = value << 1 | b }
        return (1 << zeros) - 1 + value
    }
}
