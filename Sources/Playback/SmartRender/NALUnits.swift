/// NAL-unit framing shared by H.264 and HEVC: length-prefixed (the form MP4 samples take) and
/// Annex B (start codes, the form encoders' headers and MPEG-TS take).
enum NALUnits {
    /// Where each NAL unit's bytes lie in a length-prefixed packet; nil when malformed.
    static func ranges(lengthPrefixed b: [UInt8], lengthSize: Int) -> [Range<Int>]? {
        var i = 0
        var out: [Range<Int>] = []
        while i < b.count {
            guard i + lengthSize <= b.count else { return nil }
            var n = 0
            for k in 0..<lengthSize { n = n << 8 | Int(b[i + k]) }
            i += lengthSize
            guard n > 0, i + n <= b.count else { return nil }
            out.append(i..<i + n)
            i += n
        }
        return out
    }

    /// The NAL units of a length-prefixed packet; nil when malformed.
    static func split(lengthPrefixed b: [UInt8], lengthSize: Int) -> [[UInt8]]? {
        ranges(lengthPrefixed: b, lengthSize: lengthSize)?.map { Array(b[$0]) }
    }

    /// NAL units each prefixed with its 4-byte big-endian length.
    static func lengthPrefixed(_ units: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(units.reduce(0) { $0 + $1.count + 4 })
        for u in units {
            let n = UInt32(u.count)
            out += [UInt8(n >> 24), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)]
            out += u
        }
        return out
    }

    /// NAL units of an Annex B byte stream (start codes removed).
    static func split(annexB b: [UInt8]) -> [[UInt8]] {
        var starts: [Int] = []
        var i = 0
        while i + 2 < b.count {
            if b[i] == 0, b[i + 1] == 0, b[i + 2] == 1 {
                starts.append(i + 3); i += 3
            } else { i += 1 }
        }
        var units: [[UInt8]] = []
        for (k, start) in starts.enumerated() {
            var end = k + 1 < starts.count ? starts[k + 1] - 3 : b.count
            while end > start, b[end - 1] == 0 { end -= 1 }   // a 4-byte start code's leading zero, trailing zeros
            if end > start { units.append(Array(b[start..<end])) }
        }
        return units
    }

    /// Annex B bytes (4-byte start codes) of `units`.
    static func annexB(_ units: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(units.reduce(0) { $0 + $1.count + 4 })
        for u in units { out += [0, 0, 0, 1]; out += u }
        return out
    }
}
