import Foundation
import Timing

extension HLS {
    /// A marker before a segment: an RFC 8216 date range, or one of the ad cue tags that origins,
    /// packagers and ad insertion servers write (not in RFC 8216; clients ignore what they do not
    /// know, §4).
    public enum Marker: Sendable, Hashable, Codable {
        /// `EXT-X-DATERANGE`.
        case dateRange(DateRange)
        /// `EXT-X-CUE-OUT[:DURATION=d]` (also read: `EXT-X-CUE-OUT:d`): a break starts here.
        case cueOut(duration: MediaTime?)
        /// `EXT-X-CUE-OUT-CONT:ElapsedTime=e,Duration=d` (also read: `e/d`): inside a break.
        case cueOutCont(elapsed: MediaTime?, duration: MediaTime?)
        /// `EXT-X-CUE-IN`: the break ends here.
        case cueIn
    }

    /// `EXT-X-DATERANGE` (RFC 8216 §4.3.2.7): a range of dates with attributes, such as an ad
    /// break's SCTE-35 splice commands (§4.3.2.7.1) or an ad's identity (a `CLASS` of one's own).
    public struct DateRange: Sendable, Hashable, Codable {
        /// `ID`: unique in the playlist; an SCTE-35 OUT and its IN share one.
        public var id: String
        /// `CLASS`.
        public var rangeClass: String?
        /// `START-DATE`.
        public var startDate: Date
        /// `END-DATE`.
        public var endDate: Date?
        /// `DURATION`.
        public var duration: MediaTime?
        /// `PLANNED-DURATION`.
        public var plannedDuration: MediaTime?
        /// `SCTE35-CMD`, `SCTE35-OUT`, `SCTE35-IN`: splice_info_section bytes.
        public var scte35Cmd: [UInt8]?, scte35Out: [UInt8]?, scte35In: [UInt8]?
        /// `END-ON-NEXT=YES`.
        public var endOnNext: Bool
        /// `X-…` attributes, in order.
        public var clientAttributes: [ClientAttribute]

        /// A date range.
        public init(id: String, rangeClass: String? = nil, startDate: Date, endDate: Date? = nil, duration: MediaTime? = nil,
                    plannedDuration: MediaTime? = nil, scte35Cmd: [UInt8]? = nil, scte35Out: [UInt8]? = nil,
                    scte35In: [UInt8]? = nil, endOnNext: Bool = false, clientAttributes: [ClientAttribute] = []) {
            self.id = id; self.rangeClass = rangeClass; self.startDate = startDate; self.endDate = endDate
            self.duration = duration; self.plannedDuration = plannedDuration; self.scte35Cmd = scte35Cmd
            self.scte35Out = scte35Out; self.scte35In = scte35In; self.endOnNext = endOnNext
            self.clientAttributes = clientAttributes
        }

        /// The value of client attribute `name` (`X-…`), if present.
        public func clientAttribute(_ name: String) -> AttributeValue? {
            clientAttributes.first { $0.name == name }?.value
        }
    }

    /// A client-defined `X-…` attribute of a date range.
    public struct ClientAttribute: Sendable, Hashable, Codable {
        /// The name, starting `X-`.
        public var name: String
        /// The value.
        public var value: AttributeValue

        /// An attribute.
        public init(_ name: String, _ value: AttributeValue) { self.name = name; self.value = value }
    }

    /// An attribute value of one of the three kinds a client attribute may take (§4.3.2.7).
    public enum AttributeValue: Sendable, Hashable, Codable {
        /// A quoted string (no `"`, CR or LF).
        case string(String)
        /// A hexadecimal sequence (`0x…`).
        case hex([UInt8])
        /// A decimal floating-point number.
        case number(MediaTime)
    }
}
