import Foundation
import Timing

extension HLS {
    /// One media segment with the tags that apply to it, in the order the writer puts them
    /// before its URI: the markers (`EXT-X-CUE-IN` first), `EXT-X-DISCONTINUITY`, `EXT-X-KEY`,
    /// `EXT-X-MAP`, `EXT-X-PROGRAM-DATE-TIME`, the date ranges and cue-out markers,
    /// `EXT-X-BYTERANGE`, `EXT-X-GAP`, `EXTINF`.
    public struct Segment: Sendable, Hashable, Codable {
        /// The URI line, as written (relative or absolute).
        public var uri: String
        /// The exact duration; `EXTINF` carries it to the millisecond.
        public var duration: MediaTime
        /// `EXTINF`'s title (after the comma); usually empty.
        public var title: String
        /// `EXT-X-DISCONTINUITY` before it: its encoding, timestamps or format change here.
        public var discontinuity: Bool
        /// `EXT-X-PROGRAM-DATE-TIME`: the wall-clock date of its first sample.
        public var programDateTime: Date?
        /// `EXT-X-KEY` that starts applying with this segment (nil: the one in force goes on).
        public var key: Key?
        /// `EXT-X-MAP` that starts applying with this segment (nil: the one in force goes on).
        public var map: Map?
        /// `EXT-X-BYTERANGE`: a sub-range of the resource.
        public var byteRange: ByteRange?
        /// `EXT-X-GAP`: the segment is missing and must not be loaded.
        public var gap: Bool
        /// Markers before it: date ranges and the ad cue tags origins and ad servers use.
        public var markers: [Marker]

        /// A segment.
        public init(uri: String, duration: MediaTime, title: String = "", discontinuity: Bool = false,
                    programDateTime: Date? = nil, key: Key? = nil, map: Map? = nil, byteRange: ByteRange? = nil,
                    gap: Bool = false, markers: [Marker] = []) {
            self.uri = uri; self.duration = duration; self.title = title; self.discontinuity = discontinuity
            self.programDateTime = programDateTime; self.key = key; self.map = map; self.byteRange = byteRange
            self.gap = gap; self.markers = markers
        }

        /// The duration rounded to whole seconds, as `EXT-X-TARGETDURATION` is compared with it
        /// (RFC 8216 §4.3.3.1: "rounded to the nearest integer").
        public var roundedSeconds: Int { Int(duration.rescaled(to: 1, rounding: .nearest).value) }
    }

    /// `EXT-X-BYTERANGE:<length>[@<offset>]`.
    public struct ByteRange: Sendable, Hashable, Codable {
        /// Bytes.
        public var length: Int
        /// First byte; nil: right after the previous range of the same resource.
        public var offset: Int?

        /// A range.
        public init(length: Int, offset: Int? = nil) { self.length = length; self.offset = offset }
    }

    /// `EXT-X-KEY`: how the segments that follow are encrypted.
    public struct Key: Sendable, Hashable, Codable {
        /// `METHOD`.
        public enum Method: String, Sendable, Hashable, Codable {
            /// Clear segments.
            case none = "NONE"
            /// Whole segments encrypted with AES-128 CBC.
            case aes128 = "AES-128"
            /// Samples encrypted inside the segments.
            case sampleAES = "SAMPLE-AES"
            /// Samples encrypted with CENC's `cenc` (fragmented MP4).
            case sampleAESCTR = "SAMPLE-AES-CTR"
        }
        /// `METHOD`.
        public var method: Method
        /// `URI` of the key (required unless NONE).
        public var uri: String?
        /// `IV`: 128 bits.
        public var iv: [UInt8]?
        /// `KEYFORMAT`.
        public var keyFormat: String?
        /// `KEYFORMATVERSIONS`.
        public var keyFormatVersions: String?

        /// A key.
        public init(method: Method, uri: String? = nil, iv: [UInt8]? = nil, keyFormat: String? = nil, keyFormatVersions: String? = nil) {
            self.method = method; self.uri = uri; self.iv = iv; self.keyFormat = keyFormat; self.keyFormatVersions = keyFormatVersions
        }

        /// `METHOD=NONE`: what follows is clear.
        public static let none = Key(method: .none)
    }

    /// `EXT-X-MAP`: the media initialization section (an fMP4 init segment).
    public struct Map: Sendable, Hashable, Codable {
        /// `URI`.
        public var uri: String
        /// `BYTERANGE` (with an offset).
        public var byteRange: ByteRange?

        /// A map.
        public init(uri: String, byteRange: ByteRange? = nil) { self.uri = uri; self.byteRange = byteRange }
    }
}
