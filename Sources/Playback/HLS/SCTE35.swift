import Timing

/// SCTE-35 `splice_info_section`s with a `splice_insert` command, as carried in HLS
/// `EXT-X-DATERANGE` `SCTE35-OUT` / `SCTE35-IN` attributes (hex, `0x…`).
package enum SCTE35 {
    /// A `splice_insert` section: out of the network (an ad break starts) or back in, at stream
    /// time `time` (`pts_time`, 90 kHz), with the break's duration on the way out.
    /// `ptsAdjustment` is the offset of the transport stream's clock from stream time: a splicer
    /// adds it to `pts_time` to find the splice frame's PTS in the segments.
    package static func spliceInsert(eventID: UInt32, outOfNetwork: Bool, at time: MediaTime,
                                    breakDuration: MediaTime?, ptsAdjustment: MediaTime = .zero) -> [UInt8] {
        var command = BitWriter()
        command.put(UInt64(eventID), 32)           // splice_event_id
        command.put(0, 1); command.put(0x7F, 7)    // cancel indicator, reserved
        command.put(outOfNetwork ? 1 : 0, 1)       // out_of_network_indicator
        command.put(1, 1)                          // program_splice_flag
        command.put(breakDuration == nil ? 0 : 1, 1)
        command.put(0, 1)                          // splice_immediate_flag
        command.put(0xF, 4)                        // reserved
        command.put(1, 1); command.put(0x3F, 6)    // splice_time: time_specified_flag, reserved
        command.put(ticks90k(time), 33)
        if let d = breakDuration {
            command.put(outOfNetwork ? 1 : 0, 1)   // auto_return
            command.put(0x3F, 6)
            command.put(ticks90k(d), 33)
        }
        command.put(0, 16)                         // unique_program_id
        command.put(0, 8); command.put(0, 8)       // avail_num, avails_expected
        let cmd = command.bytes

        var s = BitWriter()
        s.put(0xFC, 8)                             // table_id
        s.put(0, 1); s.put(0, 1); s.put(3, 2)      // section_syntax_indicator, private_indicator, sap_type
        // section_length: the bytes after it: 11 up to and including splice_command_type, the
        // command, descriptor_loop_length and the CRC
        let sectionLength = 11 + cmd.count + 2 + 4
        s.put(UInt64(sectionLength), 12)
        s.put(0, 8)                                // protocol_version
        s.put(0, 1); s.put(0, 6)                   // encrypted_packet, encryption_algorithm
        s.put(ticks90k(ptsAdjustment), 33)         // pts_adjustment
        s.put(0xFF, 8)                             // cw_index
        s.put(0xFFF, 12)                           // tier
        s.put(UInt64(cmd.count), 12)               // splice_command_length
        s.put(0x05, 8)                             // splice_command_type: splice_insert
        var out = s.bytes + cmd + [0, 0]           // descriptor_loop_length 0
        let crc = crc32MPEG2(out)
        out += [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
        return out
    }

    /// A `segmentation_descriptor` for `timeSignal`: program-wide, delivery not restricted,
    /// no UPID.
    package struct Segmentation: Sendable {
        /// `segmentation_event_id`, `segmentation_type_id`.
        package var eventID: UInt32, typeID: UInt8
        /// `segmentation_duration`, when set.
        package var duration: MediaTime?
        /// A descriptor.
        package init(eventID: UInt32, typeID: UInt8, duration: MediaTime? = nil) {
            self.eventID = eventID; self.typeID = typeID; self.duration = duration
        }
    }

    /// A `time_signal` section at stream time `time` with `segmentation` descriptors.
    package static func timeSignal(at time: MediaTime, segmentation: [Segmentation],
                                  ptsAdjustment: MediaTime = .zero) -> [UInt8] {
        var command = BitWriter()
        command.put(1, 1); command.put(0x3F, 6); command.put(ticks90k(time), 33)
        var loop: [UInt8] = []
        for d in segmentation {
            var w = BitWriter()
            w.put(0x4355_4549, 32)                 // identifier "CUEI"
            w.put(UInt64(d.eventID), 32)
            w.put(0, 1); w.put(0x7F, 7)            // cancel, reserved
            w.put(1, 1)                            // program_segmentation_flag
            w.put(d.duration == nil ? 0 : 1, 1)    // segmentation_duration_flag
            w.put(1, 1); w.put(0x1F, 5)            // delivery_not_restricted_flag, reserved
            if let t = d.duration { w.put(UInt64(max(0, t.mpegTicks)) & ((1 << 40) - 1), 40) }
            w.put(0, 8); w.put(0, 8)               // upid type 0, length 0
            w.put(UInt64(d.typeID), 8)
            w.put(0, 8); w.put(0, 8)               // segment_num, segments_expected
            loop += [0x02, UInt8(w.bytes.count)] + w.bytes
        }
        return section(command: command.bytes, type: 0x06, descriptors: loop, ptsAdjustment: ptsAdjustment)
    }

    static func section(command cmd: [UInt8], type: UInt8, descriptors: [UInt8], ptsAdjustment: MediaTime) -> [UInt8] {
        var s = BitWriter()
        s.put(0xFC, 8); s.put(0, 1); s.put(0, 1); s.put(3, 2)
        s.put(UInt64(11 + cmd.count + 2 + descriptors.count + 4), 12)
        s.put(0, 8); s.put(0, 1); s.put(0, 6)
        s.put(ticks90k(ptsAdjustment), 33)
        s.put(0xFF, 8); s.put(0xFFF, 12)
        s.put(UInt64(cmd.count), 12); s.put(UInt64(type), 8)
        var out = s.bytes + cmd + [UInt8(descriptors.count >> 8), UInt8(descriptors.count & 0xFF)] + descriptors
        let crc = crc32MPEG2(out)
        out += [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
        return out
    }

    /// `0x` and upper-case hex, the form `EXT-X-DATERANGE` expects.
    package static func hex(_ bytes: [UInt8]) -> String {
        "0x" + bytes.map { String(format: "%02X", $0) }.joined()
    }

    /// CRC-32/MPEG-2 (polynomial 0x04C11DB7, initial 0xFFFFFFFF, not reflected, no final xor):
    /// a section's CRC over all its bytes, CRC included, is 0.
    package static func crc32MPEG2(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            crc ^= UInt32(b) << 24
            for _ in 0..<8 { crc = (crc & 0x8000_0000) != 0 ? (crc << 1) ^ 0x04C1_1DB7 : crc << 1 }
        }
        return crc
    }

    static func ticks90k(_ t: MediaTime) -> UInt64 {
        UInt64(max(0, t.mpegTicks)) & ((1 << 33) - 1)
    }
}

/// Writes big-endian bit fields.
struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private var bitCount = 0

    mutating func put(_ value: UInt64, _ bits: Int) {
        for i in stride(from: bits - 1, through: 0, by: -1) {
            if bitCount % 8 == 0 { bytes.append(0) }
            if (value >> UInt64(i)) & 1 == 1 { bytes[bytes.count - 1] |= UInt8(1 << (7 - bitCount % 8)) }
            bitCount += 1
        }
    }
}
