import Foundation

/// The header of one 188-byte MPEG-TS packet, read straight from the bytes (no demuxer), for
/// checks of continuity counters and discontinuity indicators.
public struct TSPacketHeader: Sendable, Equatable {
    /// Byte offset of the packet in its file.
    public var offset: Int
    /// The PID.
    public var pid: Int
    /// `payload_unit_start_indicator`.
    public var payloadStart: Bool
    /// Whether the packet carries a payload (`adaptation_field_control` 01 or 11).
    public var hasPayload: Bool
    /// The 4-bit `continuity_counter`.
    public var continuityCounter: Int
    /// `discontinuity_indicator` of the adaptation field (false without one).
    public var discontinuity: Bool

    /// The headers of every packet of `data`; nil when it is not a whole number of packets that
    /// each start with the sync byte 0x47.
    public static func parse(_ data: Data) -> [TSPacketHeader]? {
        let bytes = [UInt8](data)
        guard bytes.count % 188 == 0 else { return nil }
        var out: [TSPacketHeader] = []
        out.reserveCapacity(bytes.count / 188)
        for offset in stride(from: 0, to: bytes.count, by: 188) {
            guard bytes[offset] == 0x47 else { return nil }
            let afc = (bytes[offset + 3] >> 4) & 3
            let hasAdaptation = afc & 2 != 0 && bytes[offset + 4] > 0
            out.append(TSPacketHeader(offset: offset, pid: Int(bytes[offset + 1] & 0x1F) << 8 | Int(bytes[offset + 2]),
                                      payloadStart: bytes[offset + 1] & 0x40 != 0, hasPayload: afc & 1 != 0,
                                      continuityCounter: Int(bytes[offset + 3] & 0x0F),
                                      discontinuity: hasAdaptation && bytes[offset + 5] & 0x80 != 0))
        }
        return out
    }

    /// `data` with every PID's continuity counters restarted at 0, as separately muxed segments
    /// have them (a broken package for tests that a checker must reject).
    public static func restartingCounters(_ data: Data) -> Data {
        var bytes = [UInt8](data)
        var next: [Int: UInt8] = [:]
        for offset in stride(from: 0, to: bytes.count - 187, by: 188) where bytes[offset] == 0x47 {
            let pid = Int(bytes[offset + 1] & 0x1F) << 8 | Int(bytes[offset + 2])
            guard bytes[offset + 3] & 0x10 != 0 else { continue }   // no payload: the counter stays
            let cc = next[pid] ?? 0
            bytes[offset + 3] = (bytes[offset + 3] & 0xF0) | cc
            next[pid] = (cc + 1) & 0x0F
        }
        return Data(bytes)
    }
}
