import Media
import Timing

/// One pass over a video stream's packets, kept as their timestamps and flags (not their bytes):
/// the one keyframe scan that both the smart renderer (`SmartContentScan`, whether content can be
/// copied) and the service's packager (`ContentScan`, frame rate, keyframes and bit rate of a
/// source) read their decisions from.
package struct VideoPacketIndex {
    /// One packet, in decode order.
    public struct Entry: Equatable {
        /// Presentation and decode time in stream ticks (nil: the packet carries none).
        public var pts: Int64?
        public var dts: Int64?
        /// The demuxer's keyframe flag.
        public var keyframe: Bool
        /// Whether `isIDR` said the packet holds an IDR picture (false when not asked).
        public var idr: Bool
        /// Dropped by an edit list, or flagged corrupt by the demuxer.
        public var flawed: Bool
        /// Payload bytes.
        public var size: Int
    }

    /// The stream read.
    public let streamIndex: Int
    /// Its time base.
    public let timeBase: Rational
    /// Every packet of the stream, in decode order.
    public let entries: [Entry]

    /// Reads stream `index` of a freshly opened `demuxer` to its end (the demuxer keeps only that
    /// stream afterwards). `isIDR`, when given, is asked of each keyframe's payload.
    public init(demuxer: Demuxer, stream index: Int, isIDR: (([UInt8]) -> Bool)? = nil) throws {
        demuxer.keepOnly([index])
        let packet = try Packet()
        var entries: [Entry] = []
        while try demuxer.read(into: packet) == .packet {
            guard packet.streamIndex == index else { continue }
            let key = packet.isKeyframe
            entries.append(Entry(pts: packet.ptsTicks, dts: packet.dtsTicks, keyframe: key,
                                 idr: key && (isIDR?(packet.bytes) ?? false),
                                 flawed: packet.isDiscarded || packet.isCorrupt, size: packet.size))
        }
        streamIndex = index
        timeBase = demuxer.timeBase(of: index)
        self.entries = entries
    }

    /// `ticks` of the stream as a time.
    public func time(_ ticks: Int64) -> MediaTime {
        MediaTime(value: ticks * timeBase.numerator, timescale: timeBase.denominator)
    }
}
