import CFFmpeg
import Timing

extension Packet {
    /// Presentation timestamp in ticks of its stream's time base; nil when unset.
    public var ptsTicks: Int64? { pointer.pointee.pts == noPTS ? nil : pointer.pointee.pts }
    /// Decoding timestamp in ticks of its stream's time base; nil when unset.
    public var dtsTicks: Int64? { pointer.pointee.dts == noPTS ? nil : pointer.pointee.dts }
    /// Duration in ticks of its stream's time base; 0 when unknown.
    public var durationTicks: Int64 { pointer.pointee.duration }
    /// Whether the packet starts a keyframe.
    public var isKeyframe: Bool { (pointer.pointee.flags & AV_PKT_FLAG_KEY) != 0 }
    /// Whether the demuxer marks the packet to be decoded but not shown (edit lists).
    public var isDiscarded: Bool { (pointer.pointee.flags & AV_PKT_FLAG_DISCARD) != 0 }
    /// Whether the demuxer marks the packet as corrupt.
    public var isCorrupt: Bool { (pointer.pointee.flags & AV_PKT_FLAG_CORRUPT) != 0 }

    /// Sets presentation and decoding timestamps (ticks of the time base the consumer expects).
    public func setTimestamps(pts: Int64?, dts: Int64?) {
        pointer.pointee.pts = pts ?? noPTS
        pointer.pointee.dts = dts ?? noPTS
    }

    /// The payload bytes (a copy).
    public var bytes: [UInt8] {
        guard let data = pointer.pointee.data, pointer.pointee.size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(pointer.pointee.size)))
    }
}

extension Packet {
    /// Sets the duration (ticks of the time base the consumer expects).
    public func setDuration(_ ticks: Int64) { pointer.pointee.duration = ticks }
}

extension Packet {
    /// Replaces the payload with `bytes`, keeping timestamps, flags and side data.
    public func replacePayload(with bytes: [UInt8]) throws {
        guard let fresh = av_packet_alloc() else { throw MediaError.allocationFailed("AVPacket") }
        var tmp: UnsafeMutablePointer<AVPacket>? = fresh
        defer { av_packet_free(&tmp) }
        try check(av_new_packet(fresh, Int32(bytes.count)), "allocating a packet")
        bytes.withUnsafeBytes { fresh.pointee.data.update(from: $0.bindMemory(to: UInt8.self).baseAddress!, count: bytes.count) }
        try check(av_packet_copy_props(fresh, pointer), "copying packet properties")
        av_packet_unref(pointer)
        av_packet_move_ref(pointer, fresh)
    }
}

extension Packet {
    /// A packet holding a copy of `bytes`.
    public convenience init(bytes: [UInt8]) throws {
        try self.init()
        try check(av_new_packet(pointer, Int32(bytes.count)), "allocating a packet")
        bytes.withUnsafeBytes { pointer.pointee.data.update(from: $0.bindMemory(to: UInt8.self).baseAddress!, count: bytes.count) }
    }

    /// Marks the packet as a keyframe or not.
    public func setKeyframe(_ on: Bool) {
        if on { pointer.pointee.flags |= AV_PKT_FLAG_KEY } else { pointer.pointee.flags &= ~AV_PKT_FLAG_KEY }
    }
}
