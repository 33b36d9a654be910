import CFFmpeg

/// An owned, reusable AVPacket (compressed data). Freed in deinit.
public final class Packet {
    let pointer: UnsafeMutablePointer<AVPacket>

    /// Allocates an empty packet.
    public init() throws {
        guard let p = av_packet_alloc() else { throw MediaError.allocationFailed("AVPacket") }
        pointer = p
    }

    deinit { var p: UnsafeMutablePointer<AVPacket>? = pointer; av_packet_free(&p) }

    /// The index of the stream this packet belongs to.
    public var streamIndex: Int { Int(pointer.pointee.stream_index) }

    /// Size of the payload in bytes.
    public var size: Int { Int(pointer.pointee.size) }

    /// Drops the payload, keeping the packet for reuse.
    public func unref() { av_packet_unref(pointer) }

    /// Moves this packet's payload into a new packet, leaving this one empty.
    public func take() throws -> Packet {
        let p = try Packet()
        av_packet_move_ref(p.pointer, pointer)
        return p
    }
}
