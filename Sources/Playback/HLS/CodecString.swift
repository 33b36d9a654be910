import Foundation

/// RFC 6381 codec strings (HLS `CODECS`, DASH `@codecs`) from a track's decoder configuration.
enum CodecString {
    /// H.264 from its `avcC`: `avc1.PPCCLL` (profile, constraint flags, level); HEVC from its
    /// `hvcC` (ISO/IEC 14496-15 Annex E): `hev1.1.6.L93.B0` (profile space and profile, the
    /// compatibility flags bit-reversed in hex, tier and level, the constraint bytes up to the
    /// last non-zero one) with `sampleEntry` its four-character code. Nil for anything else.
    static func video(codecName: String, sampleEntry: String, configuration b: [UInt8]) -> String? {
        switch codecName {
        case "h264":
            guard b.count >= 4, b[0] == 1 else { return nil }
            return "avc1." + b[1...3].map { String(format: "%02X", $0) }.joined()
        case "hevc":
            guard b.count >= 13, b[0] == 1 else { return nil }
            let space = ["", "A", "B", "C"][Int(b[1] >> 6)]
            let tier = b[1] & 0x20 != 0 ? "H" : "L"
            let flags = b[2...5].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            var reversed: UInt32 = 0
            for i in 0..<32 where flags & (1 << i) != 0 { reversed |= 1 << (31 - i) }
            var constraints = Array(b[6...11])
            while constraints.last == 0 { constraints.removeLast() }
            let entry = sampleEntry == "hvc1" ? "hvc1" : "hev1"
            return ([entry, "\(space)\(b[1] & 0x1F)", String(reversed, radix: 16, uppercase: true), "\(tier)\(b[12])"]
                    + constraints.map { String($0, radix: 16, uppercase: true) }).joined(separator: ".")
        default:
            return nil
        }
    }

    /// AAC from its AudioSpecificConfig: `mp4a.40.N`, N its audio object type (2: LC).
    static func audio(codecName: String, configuration b: [UInt8]) -> String? {
        guard codecName == "aac" else { return nil }
        let objectType = b.first.map { Int($0 >> 3) } ?? 2
        return "mp4a.40.\(objectType == 0 ? 2 : objectType)"
    }
}
