/// The facts of AAC that copying a source's audio packets into a stitch's AAC track depends on,
/// read from the bytes themselves (no FFmpeg): the AudioSpecificConfig (ISO/IEC 14496-3 §1.6.2.1)
/// and the window sequence of a raw data block (§4.4.2).
enum AACConfig {
    /// Whether a source whose AudioSpecificConfig is `source` can have its packets copied into a
    /// track whose AudioSpecificConfig is `output`: both AAC-LC, the same sampling frequency and
    /// channel configuration, 1024-sample frames, no core coder, no extension; the source's config
    /// either just that (two bytes) or the same bytes as the output's (FFmpeg's encoder adds an
    /// explicit "no SBR" extension). HE-AAC signalled implicitly passes here; the caller also
    /// checks that the decoded rate is the output's.
    static func copyable(source: [UInt8], output: [UInt8]) -> Bool {
        guard let s = header(source), let o = header(output), s == o, s.objectType == 2, (1...2).contains(s.channelConfig),
              s.frameLengthFlag == 0, s.dependsOnCoreCoder == 0, s.extensionFlag == 0 else { return false }
        return source.count == 2 || source == output
    }

    struct Header: Equatable {
        var objectType: Int
        var samplingIndex: Int
        var channelConfig: Int
        var frameLengthFlag: Int
        var dependsOnCoreCoder: Int
        var extensionFlag: Int
    }

    /// The first 16 bits of an AudioSpecificConfig (nil for escaped object types or explicit rates).
    static func header(_ asc: [UInt8]) -> Header? {
        guard asc.count >= 2 else { return nil }
        var r = BitReader(asc)
        let aot = r.read(5), sf = r.read(4), ch = r.read(4)
        guard aot != 31, sf != 15 else { return nil }
        return Header(objectType: aot, samplingIndex: sf, channelConfig: ch,
                      frameLengthFlag: r.read(1), dependsOnCoreCoder: r.read(1), extensionFlag: r.read(1))
    }

    /// Whether a raw AAC-LC data block (one packet) starts with a mono or stereo element whose
    /// window sequence is ONLY_LONG_SEQUENCE for every channel: its window's halves are both long,
    /// so a neighbouring packet from another encoder that also uses a long half next to it overlaps
    /// it as one encoder's would. A channel pair with separate windows, or anything else, is false.
    static func isLongOnly(_ packet: [UInt8]) -> Bool {
        guard packet.count >= 3 else { return false }
        var r = BitReader(packet)
        switch r.read(3) {
        case 0, 3:   // SCE, LFE: element_instance_tag, global_gain, ics_info
            _ = r.read(4); _ = r.read(8)
        case 1:      // CPE: element_instance_tag, common_window, ics_info when common
            _ = r.read(4)
            guard r.read(1) == 1 else { return false }
        default:
            return false
        }
        _ = r.read(1)               // ics_reserved_bit
        return r.read(2) == 0       // window_sequence
    }

    /// Reads bits most significant first; past the end reads zeros.
    struct BitReader {
        private let bytes: [UInt8]
        private var bit = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }
        mutating func read(_ n: Int) -> Int {
            var v = 0
            for _ in 0..<n {
                let byte = bit / 8 < bytes.count ? Int(bytes[bit / 8]) : 0
                v = (v << 1) | ((byte >> (7 - bit % 8)) & 1)
                bit += 1
            }
            return v
        }
    }
}
