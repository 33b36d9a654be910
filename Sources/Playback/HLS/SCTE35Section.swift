import Foundation

/// A decoded SCTE-35 `splice_info_section` (SCTE 35 2022 §9.6), the one production parser for
/// cues from any carrier: in-band TS sections (`SCTE35TransportScan`) and the hex of
/// `EXT-X-DATERANGE` `SCTE35-OUT` / `SCTE35-IN` / `SCTE35-CMD` attributes. Times are 90 kHz
/// ticks, 33 bits, as in the section; `adjusted(_:)` adds `pts_adjustment`.
package struct SCTE35Section: Sendable, Equatable {
    /// `pts_adjustment` (90 kHz, 33 bits): added to every `pts_time` to give the PTS in the TS.
    public var ptsAdjustment: UInt64
    /// `tier` (12 bits).
    public var tier: UInt16
    /// The splice command.
    public var command: Command
    /// The `segmentation_descriptor`s of the descriptor loop (other descriptors are skipped).
    public var segmentation: [SegmentationDescriptor]

    /// The splice commands this parser reads; others are `.other(type)`.
    public enum Command: Sendable, Equatable {
        /// `splice_null` (0x00), a heartbeat.
        case spliceNull
        /// `splice_insert` (0x05).
        case spliceInsert(SpliceInsert)
        /// `time_signal` (0x06): `pts_time` when `time_specified_flag` is set; the meaning is in the
        /// segmentation descriptors.
        case timeSignal(ptsTime: UInt64?)
        /// Any other command type (`splice_schedule` 0x04, `bandwidth_reservation` 0x07, private 0xFF …).
        case other(type: UInt8)
    }

    /// A `splice_insert` command.
    public struct SpliceInsert: Sendable, Equatable {
        /// `splice_event_id`.
        public var eventID: UInt32
        /// `splice_event_cancel_indicator`: a previously sent event is withdrawn (no other fields).
        public var cancel: Bool
        /// `out_of_network_indicator`: true leaves the network (a break starts), false returns.
        public var outOfNetwork: Bool
        /// `splice_immediate_flag`: splice at the next opportunity, no `pts_time`.
        public var immediate: Bool
        /// `pts_time` of a program splice with `time_specified_flag` set (90 kHz, unadjusted).
        public var ptsTime: UInt64?
        /// `break_duration.duration` (90 kHz) when `duration_flag` is set.
        public var breakDuration: UInt64?
        /// `break_duration.auto_return`.
        public var autoReturn: Bool
        /// `unique_program_id`.
        public var uniqueProgramID: UInt16
        /// `avail_num`, `avails_expected`.
        public var availNum: UInt8, availsExpected: UInt8

        /// A `splice_insert` from its fields.
        package init(eventID: UInt32, cancel: Bool = false, outOfNetwork: Bool, immediate: Bool = false, ptsTime: UInt64? = nil,
                     breakDuration: UInt64? = nil, autoReturn: Bool = false, uniqueProgramID: UInt16 = 0, availNum: UInt8 = 0,
                     availsExpected: UInt8 = 0) {
            self.eventID = eventID; self.cancel = cancel; self.outOfNetwork = outOfNetwork; self.immediate = immediate
            self.ptsTime = ptsTime; self.breakDuration = breakDuration; self.autoReturn = autoReturn
            self.uniqueProgramID = uniqueProgramID; self.availNum = availNum; self.availsExpected = availsExpected
        }
    }

    /// A `segmentation_descriptor` (tag 0x02, identifier `CUEI`).
    public struct SegmentationDescriptor: Sendable, Equatable {
        /// `segmentation_event_id`.
        public var eventID: UInt32
        /// `segmentation_event_cancel_indicator`.
        public var cancel: Bool
        /// `segmentation_type_id` (see `SegmentationType`); 0 when cancelled.
        public var typeID: UInt8
        /// `segmentation_duration` (90 kHz, 40 bits) when `segmentation_duration_flag` is set.
        public var duration: UInt64?
        /// `segmentation_upid_type` and the UPID's bytes.
        public var upidType: UInt8, upid: [UInt8]
        /// `segment_num`, `segments_expected`.
        public var segmentNum: UInt8, segmentsExpected: UInt8

        /// A `segmentation_descriptor` from its fields.
        package init(eventID: UInt32, cancel: Bool = false, typeID: UInt8, duration: UInt64? = nil, upidType: UInt8 = 0, upid: [UInt8] = [],
                     segmentNum: UInt8 = 0, segmentsExpected: UInt8 = 0) {
            self.eventID = eventID; self.cancel = cancel; self.typeID = typeID; self.duration = duration
            self.upidType = upidType; self.upid = upid; self.segmentNum = segmentNum; self.segmentsExpected = segmentsExpected
        }

        /// What the type id means for ad insertion.
        public var kind: SegmentationType? { SegmentationType(rawValue: typeID) }
    }

    /// The `segmentation_type_id`s that delimit ad opportunities (SCTE 35 table 23).
    public enum SegmentationType: UInt8, Sendable {
        /// Break Start (0x22).
        case breakStart = 0x22
        /// Break End (0x23).
        case breakEnd = 0x23
        /// Provider Advertisement Start (0x30).
        case providerAdStart = 0x30
        /// Provider Advertisement End (0x31).
        case providerAdEnd = 0x31
        /// Distributor Advertisement Start (0x32).
        case distributorAdStart = 0x32
        /// Distributor Advertisement End (0x33).
        case distributorAdEnd = 0x33
        /// Provider Placement Opportunity Start (0x34).
        case providerPlacementOpportunityStart = 0x34
        /// Provider Placement Opportunity End (0x35).
        case providerPlacementOpportunityEnd = 0x35
        /// Distributor Placement Opportunity Start (0x36).
        case distributorPlacementOpportunityStart = 0x36
        /// Distributor Placement Opportunity End (0x37).
        case distributorPlacementOpportunityEnd = 0x37
        /// Provider Overlay Placement Opportunity Start (0x38).
        case providerOverlayPlacementOpportunityStart = 0x38
        /// Provider Overlay Placement Opportunity End (0x39).
        case providerOverlayPlacementOpportunityEnd = 0x39
        /// Distributor Overlay Placement Opportunity Start (0x3A).
        case distributorOverlayPlacementOpportunityStart = 0x3A
        /// Distributor Overlay Placement Opportunity End (0x3B).
        case distributorOverlayPlacementOpportunityEnd = 0x3B

        /// Whether the type opens an opportunity (a start), the end being `rawValue + 1`.
        public var isStart: Bool { rawValue % 2 == 0 }
    }

    /// Why bytes are not a usable section.
    public enum ParseError: Error, Equatable, CustomStringConvertible {
        /// Fewer bytes than the section needs; from `init(hex:)`, also an odd count or non-hex digits, or over 4096 bytes.
        case truncated
        /// The first byte, `table_id`, is not 0xFC (`splice_info_section`).
        case notSpliceInfo(tableID: UInt8)
        /// The section's `CRC_32` does not match its bytes.
        case badCRC
        /// `encrypted_packet` is set; encrypted sections are not read.
        case encrypted
        /// A length field (`splice_command_length`, `descriptor_loop_length`, a descriptor's or UPID's length) runs
        /// past the section, or an unknown command has the legacy length 0xFFF.
        case badLength
        /// One line.
        public var description: String {
            switch self {
            case .truncated: "SCTE-35 section truncated"
            case .notSpliceInfo(let t): "SCTE-35: table_id 0x\(String(t, radix: 16)) is not 0xFC"
            case .badCRC: "SCTE-35 section CRC-32 mismatch"
            case .encrypted: "SCTE-35 section is encrypted"
            case .badLength: "SCTE-35 section lengths disagree"
            }
        }
    }

    static let mask33: UInt64 = (1 << 33) - 1

    /// A section made from its fields, not bytes: an SCTE-35 event an MPD writes as XML (SCTE
    /// 214-1's `urn:scte:scte35:2013:xml`), or a binary one given the time its Event says.
    package init(ptsAdjustment: UInt64 = 0, tier: UInt16 = 0xFFF, command: Command, segmentation: [SegmentationDescriptor] = []) {
        self.ptsAdjustment = ptsAdjustment & Self.mask33
        self.tier = tier & 0xFFF
        self.command = command
        self.segmentation = segmentation
    }

    /// This section splicing at `pts` (90 kHz, 33 bits, `pts_adjustment` 0): a `splice_insert`
    /// or `time_signal` given the time its carrier says (a DASH Event's `presentationTime` is
    /// the splice time on the media timeline, whatever the section's own `pts_time`); other
    /// commands unchanged.
    package func splicing(at pts: UInt64) -> SCTE35Section {
        var s = self
        switch command {
        case .spliceInsert(var i) where !i.cancel:
            i.immediate = false
            i.ptsTime = pts & Self.mask33
            s.command = .spliceInsert(i)
            s.ptsAdjustment = 0
        case .timeSignal:
            s.command = .timeSignal(ptsTime: pts & Self.mask33)
            s.ptsAdjustment = 0
        default: break
        }
        return s
    }


    /// `t + pts_adjustment`, modulo 2^33: the PTS in the transport stream of a `pts_time`.
    public func adjusted(_ t: UInt64) -> UInt64 { (t &+ ptsAdjustment) & Self.mask33 }

    /// The splice PTS the command signals (adjusted): `splice_insert`'s or `time_signal`'s
    /// `pts_time`, nil for immediate or timeless commands.
    public var splicePTS: UInt64? {
        switch command {
        case .spliceInsert(let s): s.ptsTime.map(adjusted)
        case .timeSignal(let t): t.map(adjusted)
        default: nil
        }
    }

    /// Parses one whole section (table_id through CRC_32), checking the CRC. Bytes after the
    /// section (TS stuffing 0xFF) are ignored.
    public init(parsing bytes: [UInt8]) throws {
        guard bytes.count >= 3 else { throw ParseError.truncated }
        guard bytes[0] == 0xFC else { throw ParseError.notSpliceInfo(tableID: bytes[0]) }
        let total = 3 + (Int(bytes[1] & 0x0F) << 8 | Int(bytes[2]))
        guard total >= 3 + 11 + 2 + 4, bytes.count >= total else { throw ParseError.truncated }
        let s = Array(bytes[0..<total])
        guard SCTE35.crc32MPEG2(s) == 0 else { throw ParseError.badCRC }
        var r = BitReader(s, end: total - 4)
        _ = try r.bits(8 + 1 + 1 + 2 + 12 + 8)        // table_id … protocol_version
        guard try r.bits(1) == 0 else { throw ParseError.encrypted }
        _ = try r.bits(6)
        ptsAdjustment = try r.bits(33)
        _ = try r.bits(8)                               // cw_index
        tier = UInt16(try r.bits(12))
        let commandLength = Int(try r.bits(12))
        let commandType = UInt8(try r.bits(8))
        let commandStart = r.byteOffset
        switch commandType {
        case 0x00: command = .spliceNull
        case 0x05: command = .spliceInsert(try Self.spliceInsert(&r))
        case 0x06: command = .timeSignal(ptsTime: try Self.spliceTime(&r))
        default:
            command = .other(type: commandType)
            guard commandLength != 0xFFF else { throw ParseError.badLength }
        }
        if commandLength != 0xFFF {                     // 0xFFF: legacy "unknown", use what was read
            guard commandStart + commandLength <= total - 4 else { throw ParseError.badLength }
            r.seek(byte: commandStart + commandLength)
        }
        let loopLength = Int(try r.bits(16))
        let loopEnd = r.byteOffset + loopLength
        guard loopEnd <= total - 4 else { throw ParseError.badLength }
        var segs: [SegmentationDescriptor] = []
        while r.byteOffset + 2 <= loopEnd {
            let tag = UInt8(try r.bits(8)), length = Int(try r.bits(8))
            let next = r.byteOffset + length
            guard next <= loopEnd else { throw ParseError.badLength }
            if tag == 0x02, length >= 4 + 5, try r.bits(32) == 0x4355_4549 {
                segs.append(try Self.segmentation(&r, end: next))
            }
            r.seek(byte: next)
        }
        segmentation = segs
    }

    /// Parses the hex of an `EXT-X-DATERANGE` SCTE35 attribute (`0x…`, either case).
    public init(hex: String) throws {
        var h = Substring(hex.trimmingCharacters(in: .whitespaces))
        if h.hasPrefix("0x") || h.hasPrefix("0X") { h = h.dropFirst(2) }
        guard h.count % 2 == 0, h.count <= 2 * 4096 else { throw ParseError.truncated }
        var out: [UInt8] = []
        var i = h.startIndex
        while i < h.endIndex {
            let j = h.index(i, offsetBy: 2)
            guard let b = UInt8(h[i..<j], radix: 16) else { throw ParseError.truncated }
            out.append(b); i = j
        }
        try self.init(parsing: out)
    }

    static func spliceTime(_ r: inout BitReader) throws -> UInt64? {
        if try r.bits(1) == 1 { _ = try r.bits(6); return try r.bits(33) }
        _ = try r.bits(7); return nil
    }

    static func spliceInsert(_ r: inout BitReader) throws -> SpliceInsert {
        var s = SpliceInsert(eventID: UInt32(try r.bits(32)), cancel: try r.bits(1) == 1, outOfNetwork: false,
                             immediate: false, ptsTime: nil, breakDuration: nil, autoReturn: false,
                             uniqueProgramID: 0, availNum: 0, availsExpected: 0)
        _ = try r.bits(7)
        guard !s.cancel else { return s }
        s.outOfNetwork = try r.bits(1) == 1
        let program = try r.bits(1) == 1, hasDuration = try r.bits(1) == 1
        s.immediate = try r.bits(1) == 1
        _ = try r.bits(4)                               // event_id_compliance_flag, reserved
        if program && !s.immediate { s.ptsTime = try spliceTime(&r) }
        if !program {
            let count = try r.bits(8)
            for _ in 0..<count { _ = try r.bits(8); if !s.immediate { _ = try spliceTime(&r) } }
        }
        if hasDuration {
            s.autoReturn = try r.bits(1) == 1
            _ = try r.bits(6)
            s.breakDuration = try r.bits(33)
        }
        s.uniqueProgramID = UInt16(try r.bits(16))
        s.availNum = UInt8(try r.bits(8)); s.availsExpected = UInt8(try r.bits(8))
        return s
    }

    static func segmentation(_ r: inout BitReader, end: Int) throws -> SegmentationDescriptor {
        var d = SegmentationDescriptor(eventID: UInt32(try r.bits(32)), cancel: try r.bits(1) == 1, typeID: 0,
                                       duration: nil, upidType: 0, upid: [], segmentNum: 0, segmentsExpected: 0)
        _ = try r.bits(7)
        guard !d.cancel else { return d }
        let program = try r.bits(1) == 1, hasDuration = try r.bits(1) == 1
        _ = try r.bits(6)                               // delivery_not_restricted and its flags
        if !program {
            let count = try r.bits(8)
            for _ in 0..<count { _ = try r.bits(8 + 7 + 33) }
        }
        if hasDuration { d.duration = try r.bits(40) }
        d.upidType = UInt8(try r.bits(8))
        let upidLength = Int(try r.bits(8))
        guard r.byteOffset + upidLength + 3 <= end else { throw ParseError.badLength }
        for _ in 0..<upidLength { d.upid.append(UInt8(try r.bits(8))) }
        d.typeID = UInt8(try r.bits(8))
        d.segmentNum = UInt8(try r.bits(8)); d.segmentsExpected = UInt8(try r.bits(8))
        return d
    }
}

/// Reads big-endian bit fields, refusing to read past `end`.
struct BitReader {
    private let bytes: [UInt8]
    private let end: Int
    private var bit = 0

    init(_ bytes: [UInt8], end: Int) { self.bytes = bytes; self.end = end }

    /// The byte the next field starts in (fields here are byte-aligned where this is asked).
    var byteOffset: Int { bit / 8 }

    mutating func seek(byte: Int) { bit = byte * 8 }

    mutating func bits(_ n: Int) throws -> UInt64 {
        guard bit + n <= end * 8 else { throw SCTE35Section.ParseError.truncated }
        var v: UInt64 = 0
        for _ in 0..<n {
            v = v << 1 | UInt64((bytes[bit / 8] >> (7 - UInt8(bit % 8))) & 1)
            bit += 1
        }
        return v
    }
}
