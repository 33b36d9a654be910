import Foundation
import Media
import TestSupport

/// Apple's HLS Sample Encryption of an MPEG-TS segment (`METHOD=SAMPLE-AES`), for test fixtures:
/// what a FairPlay or clear-key SAMPLE-AES packager publishes, made from a clear segment of the
/// ffmpeg CLI's.
///
/// - H.264: each NAL unit of type 1 or 5 longer than 48 bytes keeps its header and the next 31
///   bytes clear; of the rest, one 16-byte block in ten is encrypted (AES-128-CBC, the chain
///   restarted at the IV for each NAL unit and carried across the clear blocks; the last 1 to
///   16 bytes always clear). The cipher works on the NAL unit as it is in the stream, and start
///   code emulation prevention is applied again over the whole result (FFmpeg's
///   `hls_sample_encryption.c` removes it, then decrypts).
/// - AAC (ADTS): each frame keeps its header and 16 more bytes clear, then every whole 16-byte
///   block is encrypted, the chain restarted at the IV for each frame; frames of at most 31
///   bytes after the header are clear.
/// - The PMT: stream types 0xDB (H.264) and 0xCF (AAC), a `private_data_indicator_descriptor`
///   (`zavc`, `aacd`) each, and for audio a registration descriptor `apad` with its
///   `audio_setup_information` (`zaac`, the AudioSpecificConfig).
///
/// The PES packets grow where emulation prevention adds bytes; they are packed into the same
/// transport packets (in place, the PCRs and random-access flags where they were), with more
/// packets after a PES's last one when it no longer fits; continuity counters renumbered.
enum SampleAESTSEncryptor {
    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// `ts` encrypted with `key` and `iv` (16 bytes each).
    static func encrypt(_ ts: Data, key: [UInt8], iv: [UInt8]) throws -> Data {
        guard key.count == 16, iv.count == 16 else { throw Failure("a key and an IV are 16 bytes each") }
        let bytes = [UInt8](ts)
        guard bytes.count % 188 == 0, !bytes.isEmpty else { throw Failure("\(bytes.count) bytes are not whole transport packets") }
        let packets = stride(from: 0, to: bytes.count, by: 188).map { Array(bytes[$0..<$0 + 188]) }
        guard packets.allSatisfy({ $0[0] == 0x47 }) else { throw Failure("a packet without its sync byte") }
        // the PMT's PID from the PAT, then the elementary streams from the PMT
        guard let pat = packets.first(where: { pid($0) == 0 }), let patSection = section(pat), patSection.count >= 12 else { throw Failure("no PAT") }
        let pmtPID = (Int(patSection[10]) & 0x1F) << 8 | Int(patSection[11])
        guard let pmt = packets.first(where: { pid($0) == pmtPID }), let pmtSection = section(pmt) else { throw Failure("no PMT") }
        let (newPMT, video, audio) = try protectedPMT(pmtSection)

        // every PES of the two streams: the packets it is in and its bytes
        struct PES { var pid: Int; var slots: [Int] = []; var bytes: [UInt8] = [] }
        var pesList: [PES] = [], open: [Int: Int] = [:]
        for (i, p) in packets.enumerated() {
            let id = pid(p)
            guard id == video || id == audio, let range = payload(p) else { continue }
            if p[1] & 0x40 != 0 { open[id] = pesList.count; pesList.append(PES(pid: id)) }
            guard let k = open[id] else { continue }   // a PES begun before the segment
            pesList[k].slots.append(i)
            pesList[k].bytes += p[range]
        }
        // encrypted, then packed back
        var replaced: [Int: [[UInt8]]] = [:]   // packet index → the packets that take its place
        for pes in pesList {
            let encrypted = try encryptPES(pes.bytes, video: pes.pid == video, key: key, iv: iv)
            var rest = encrypted[...]
            for (n, slot) in pes.slots.enumerated() {
                let original = packets[slot]
                if n < pes.slots.count - 1 {
                    // same adaptation field, same payload size (a PES never shrinks)
                    let capacity = payload(original)!.count
                    replaced[slot] = [Array(original[..<(188 - capacity)]) + rest.prefix(capacity)]
                    rest = rest.dropFirst(capacity)
                } else {
                    var out: [[UInt8]] = []
                    var field = essentialAdaptation(original)
                    var header = Array(original[0..<4])
                    repeat {
                        let (packet, taken) = packed(header, field: field, payload: rest)
                        out.append(packet)
                        rest = rest.dropFirst(taken)
                        field = []
                        header[1] &= 0xBF   // more of the same PES: no unit start
                    } while !rest.isEmpty
                    replaced[slot] = out
                }
            }
        }
        // in order, continuity counters renumbered on the two streams
        var out: [UInt8] = [], counters: [Int: UInt8] = [:]
        for (i, original) in packets.enumerated() {
            for var p in replaced[i] ?? [pid(original) == pmtPID ? rewritten(original, section: newPMT) : original] {
                let id = pid(p)
                if id == video || id == audio {
                    let hasPayload = p[3] & 0x10 != 0
                    let cc = counters[id].map { hasPayload ? ($0 &+ 1) & 0x0F : $0 } ?? (p[3] & 0x0F)
                    counters[id] = cc
                    p[3] = p[3] & 0xF0 | cc
                }
                out += p
            }
        }
        return Data(out)
    }

    // MARK: PMT

    /// The PMT section (from table_id to its CRC) with the two streams marked as sample-encrypted.
    static func protectedPMT(_ s: [UInt8]) throws -> (section: [UInt8], video: Int, audio: Int) {
        guard s.count >= 16, s[0] == 0x02 else { throw Failure("the PMT is not a program map section") }
        let length = (Int(s[1]) & 0x0F) << 8 | Int(s[2])
        guard 3 + length <= s.count, length >= 13 else { throw Failure("the PMT's section_length is out of its packet") }
        let programInfo = (Int(s[10]) & 0x0F) << 8 | Int(s[11])
        var i = 12 + programInfo
        let end = 3 + length - 4
        var loop: [UInt8] = []
        var video: Int?, audio: Int?
        while i + 5 <= end {
            let type = s[i], esPID = (Int(s[i + 1]) & 0x1F) << 8 | Int(s[i + 2])
            let infoLength = (Int(s[i + 3]) & 0x0F) << 8 | Int(s[i + 4])
            var info = Array(s[(i + 5)..<min(end, i + 5 + infoLength)])
            var newType = type
            switch type {
            case 0x1B:
                newType = 0xDB; video = esPID
                info += [0x0F, 4] + Array("zavc".utf8)
            case 0x0F:
                newType = 0xCF; audio = esPID
                // apad: 'zaac', priming (0), version 1, the AudioSpecificConfig (AAC-LC 48 kHz stereo)
                let config: [UInt8] = [0x11, 0x90]
                let setup = Array("zaac".utf8) + [0, 0, 1, UInt8(config.count)] + config
                info += [0x0F, 4] + Array("aacd".utf8) + [0x05, UInt8(4 + setup.count)] + Array("apad".utf8) + setup
            default: break
            }
            loop += [newType, s[i + 1], s[i + 2], 0xF0 | UInt8(info.count >> 8), UInt8(info.count & 0xFF)] + info
            i += 5 + infoLength
        }
        guard let video, let audio else { throw Failure("the PMT has no H.264 and AAC streams") }
        var section = Array(s[0..<(12 + programInfo)]) + loop
        let newLength = section.count - 3 + 4
        section[1] = s[1] & 0xF0 | UInt8(newLength >> 8)
        section[2] = UInt8(newLength & 0xFF)
        let crc = LiveOriginTS.crc32MPEG2(section)
        section += [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        guard section.count <= 183 else { throw Failure("the protected PMT does not fit one packet") }
        return (section, video, audio)
    }

    // MARK: PES

    static func encryptPES(_ pes: [UInt8], video: Bool, key: [UInt8], iv: [UInt8]) throws -> [UInt8] {
        guard pes.count >= 9, pes[0] == 0, pes[1] == 0, pes[2] == 1 else { throw Failure("a PES without its start code") }
        let headerEnd = 9 + Int(pes[8])
        guard headerEnd <= pes.count else { throw Failure("a PES header longer than its PES") }
        let es = Array(pes[headerEnd...])
        let encrypted = video ? try encryptVideo(es, key: key, iv: iv) : try encryptAudio(es, key: key, iv: iv)
        var out = Array(pes[..<headerEnd]) + encrypted
        let length = out.count - 6
        if pes[4] != 0 || pes[5] != 0 {
            guard length <= 0xFFFF else { throw Failure("a PES grew past 65,535 bytes") }
            out[4] = UInt8(length >> 8); out[5] = UInt8(length & 0xFF)
        } else if length <= 0xFFFF {
            // bounded where it fits, as Apple's segmenter writes it: FFmpeg 5.1's HLS reader
            // decrypts a packet with the key of the segment it is reading when the packet comes
            // out, and an unbounded PES comes out only when the next one starts, so the last
            // picture before a key change (or the end) would be left encrypted
            out[4] = UInt8(length >> 8); out[5] = UInt8(length & 0xFF)
        }
        return out
    }

    /// Annex B H.264: NAL units found as FFmpeg's decryptor finds them (a 4-byte start code
    /// before a 3-byte one).
    static func encryptVideo(_ es: [UInt8], key: [UInt8], iv: [UInt8]) throws -> [UInt8] {
        func startCode(at i: Int) -> Int {
            if i + 4 <= es.count, es[i] == 0, es[i + 1] == 0, es[i + 2] == 0, es[i + 3] == 1 { return 4 }
            if i + 3 <= es.count, es[i] == 0, es[i + 1] == 0, es[i + 2] == 1 { return 3 }
            return 0
        }
        var out: [UInt8] = []
        var i = 0
        while i < es.count {
            let code = startCode(at: i)
            guard code > 0 else { throw Failure("an H.264 access unit without a start code at byte \(i)") }
            var j = i + code
            while j < es.count && startCode(at: j) == 0 { j += 1 }
            var nal = Array(es[(i + code)..<j])
            out += es[i..<(i + code)]
            let type = (nal.first ?? 0) & 0x1F
            if (type == 1 || type == 5) && nal.count > 48 {
                var chain = iv
                var at = 32, left = nal.count - 32
                while left > 0 {
                    if left > 16 {
                        try AES128.encryptCBCBlocks(&nal, range: at..<(at + 16), key: key, chain: &chain)
                        at += 16; left -= 16
                    }
                    let skip = min(144, left)
                    at += skip; left -= skip
                }
                out += emulationPrevented(nal)
            } else {
                out += nal
            }
            i = j
        }
        return out
    }

    /// `bytes` with an 0x03 after every two zero bytes that come before a byte of at most 3.
    static func emulationPrevented(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 64)
        var zeros = 0
        for b in bytes {
            if zeros >= 2 && b <= 3 { out.append(3); zeros = 0 }
            out.append(b)
            zeros = b == 0 ? zeros + 1 : 0
        }
        return out
    }

    /// ADTS frames, each encrypted on its own.
    static func encryptAudio(_ es: [UInt8], key: [UInt8], iv: [UInt8]) throws -> [UInt8] {
        var out = es
        var i = 0
        while i + 7 <= out.count {
            guard out[i] == 0xFF, out[i + 1] & 0xF0 == 0xF0 else { throw Failure("an audio PES that is not ADTS at byte \(i)") }
            let header = out[i + 1] & 0x01 == 1 ? 7 : 9
            let length = (Int(out[i + 3]) & 0x03) << 11 | Int(out[i + 4]) << 3 | Int(out[i + 5]) >> 5
            guard length >= header, i + length <= out.count else { throw Failure("an ADTS frame longer than its PES") }
            if length - header > 31 {
                let blocks = (length - header - 16) / 16
                var chain = iv
                let start = i + header + 16
                try AES128.encryptCBCBlocks(&out, range: start..<(start + blocks * 16), key: key, chain: &chain)
            }
            i += length
        }
        guard i == out.count else { throw Failure("trailing bytes after the last ADTS frame") }
        return out
    }

    // MARK: Transport packets

    static func pid(_ p: [UInt8]) -> Int { (Int(p[1]) & 0x1F) << 8 | Int(p[2]) }

    /// Where the payload is, or nil when there is none.
    static func payload(_ p: [UInt8]) -> Range<Int>? {
        let control = p[3] >> 4 & 0x03
        guard control & 0x01 != 0 else { return nil }
        let start = control & 0x02 != 0 ? 5 + Int(p[4]) : 4
        return start < 188 ? start..<188 : nil
    }

    /// The adaptation field's flags and the fields they announce (PCR, OPCR, splice countdown,
    /// private data, extension), without its stuffing; empty when there is none or it is stuffing only.
    static func essentialAdaptation(_ p: [UInt8]) -> [UInt8] {
        guard p[3] & 0x20 != 0, p[4] > 0 else { return [] }
        let flags = p[5]
        var n = 1
        if flags & 0x10 != 0 { n += 6 }
        if flags & 0x08 != 0 { n += 6 }
        if flags & 0x04 != 0 { n += 1 }
        if flags & 0x02 != 0, 5 + n < 188 { n += 1 + Int(p[5 + n]) }
        if flags & 0x01 != 0, 5 + n < 188 { n += 1 + Int(p[5 + n]) }
        n = min(n, Int(p[4]))
        return Array(p[5..<(5 + n)])
    }

    /// A packet with `header` (4 bytes), adaptation field `field` (flags and fields) and as much
    /// of `payload` as fits, stuffed to 188 bytes; and how much of the payload it took.
    static func packed(_ header: [UInt8], field: [UInt8], payload: ArraySlice<UInt8>) -> ([UInt8], Int) {
        let room = 184 - (field.isEmpty ? 0 : 1 + field.count)
        let taken = min(room, payload.count)
        var p = Array(header[0..<4])
        if field.isEmpty && taken == 184 {
            p[3] = p[3] & 0xCF | 0x10
        } else {
            p[3] = p[3] & 0xCF | 0x30
            let fieldLength = 183 - taken   // the length byte not counted
            p.append(UInt8(fieldLength))
            if fieldLength > 0 {
                p += field.isEmpty ? [0x00] : field
                p += [UInt8](repeating: 0xFF, count: fieldLength - (field.isEmpty ? 1 : field.count))
            }
        }
        p += payload.prefix(taken)
        return (p, taken)
    }

    /// The section of a PSI packet (after its pointer field), to its section_length and CRC.
    static func section(_ p: [UInt8]) -> [UInt8]? {
        guard p[1] & 0x40 != 0, let range = payload(p) else { return nil }
        let start = range.lowerBound + 1 + Int(p[range.lowerBound])
        guard start + 3 <= 188 else { return nil }
        let length = (Int(p[start + 1]) & 0x0F) << 8 | Int(p[start + 2])
        guard start + 3 + length <= 188 else { return nil }
        return Array(p[start..<(start + 3 + length)])
    }

    /// A PSI packet carrying `section` instead of its own, 0xFF after it.
    static func rewritten(_ p: [UInt8], section: [UInt8]) -> [UInt8] {
        var out = Array(p[0..<4])
        out[3] = out[3] & 0xCF | 0x10
        out += [0] + section
        out += [UInt8](repeating: 0xFF, count: 188 - out.count)
        return out
    }
}
