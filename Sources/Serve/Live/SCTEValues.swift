import Playback

/// The SCTE-35 fields of the signal that opened a live break, as MediaTailor's `[scte.…]` ADS
/// variables give them to the ad server (SCTE 35 2019a §9.7.2.1, §10.3.3.1): the
/// `splice_insert`'s `splice_event_id`, `avail_num` and `avails_expected`, or the segmentation
/// descriptor's `segmentation_event_id`, `segmentation_type_id`, `segmentation_upid`,
/// `segment_num` and `segments_expected`. A field the signal does not carry is nil (the
/// variable is then empty, as in MediaTailor). Pure.
public struct SCTEValues: Sendable, Hashable {
    /// `splice_event_id` of a `splice_insert` (`[scte.event_id]`).
    public var eventID: UInt32?
    /// `avail_num` and `avails_expected` of a `splice_insert`.
    public var availNum: Int?
    public var availsExpected: Int?
    /// `segmentation_event_id` and `segmentation_type_id` of the segmentation descriptor.
    public var segmentationEventID: UInt32?
    public var segmentationTypeID: Int?
    /// The UPID's bytes as text when they are all printable ASCII (an ADI or URI UPID), else as
    /// lower-case hex; nil when the descriptor carries none.
    public var segmentationUPID: String?
    /// `segment_num` and `segments_expected` of the segmentation descriptor.
    public var segmentNum: Int?
    public var segmentsExpected: Int?

    /// Values of nothing.
    public init() {}

    /// The fields of a `splice_insert`, or of `descriptor` (the segmentation descriptor that
    /// opened the break) of a `time_signal`.
    package init(_ section: SCTE35Section, descriptor: SCTE35Section.SegmentationDescriptor? = nil) {
        if case .spliceInsert(let i) = section.command {
            eventID = i.eventID
            availNum = Int(i.availNum)
            availsExpected = Int(i.availsExpected)
        }
        if let d = descriptor ?? section.segmentation.first(where: { $0.kind?.isStart == true }) {
            segmentationEventID = d.eventID
            segmentationTypeID = Int(d.typeID)
            if !d.upid.isEmpty {
                segmentationUPID = d.upid.allSatisfy({ $0 >= 0x20 && $0 < 0x7F })
                    ? String(decoding: d.upid, as: UTF8.self) : d.upid.map { String(format: "%02x", $0) }.joined()
            }
            segmentNum = Int(d.segmentNum)
            segmentsExpected = Int(d.segmentsExpected)
        }
    }

    /// The value of variable `scte.NAME`; nil for a name that is not one (the template keeps
    /// it), "" for one the signal does not carry.
    func value(_ name: String) -> String? {
        func text<T: BinaryInteger>(_ v: T?) -> String { v.map { String($0) } ?? "" }
        switch name {
        case "event_id": return text(eventID)
        case "avail_num": return text(availNum)
        case "avails_expected": return text(availsExpected)
        case "segmentation_event_id": return text(segmentationEventID)
        case "segmentation_type_id": return text(segmentationTypeID)
        case "segmentation_upid": return segmentationUPID ?? ""
        case "segment_num": return text(segmentNum)
        case "segments_expected": return text(segmentsExpected)
        // flags and restrictions of the segmentation descriptor's delivery fields: not read
        case "archive_allowed_flag", "delivery_not_restricted_flag", "device_restrictions", "no_regional_blackout_flag",
             "web_delivery_allowed_flag", "sub_segment_num", "sub_segments_expected": return ""
        default: return nil
        }
    }
}
