import Timing

/// One EXT-X-DATERANGE tag (§4.3.2.7) as read, with its dates.
struct RFC8216DateRange: Sendable {
    let line: RFC8216Line
    let attributes: RFC8216AttributeList
    /// The ID's value.
    let id: String
    let start: MediaTime?
    let endDate: MediaTime?
    let duration: MediaTime?
    var cls: String? { attributes["CLASS"]?.value }
    var endOnNext: Bool { attributes["END-ON-NEXT"] != nil }

    /// Where the range ends, when the tag says: END-DATE, or START-DATE plus DURATION.
    var end: MediaTime? {
        if let endDate { return endDate }
        if let start, let duration { return start + duration }
        return nil
    }

    static let spec = RFC8216TagSpec(rule: .dateRange, types: [
        "ID": .quoted, "CLASS": .quoted, "START-DATE": .quoted, "END-DATE": .quoted, "DURATION": .decimalFloat,
        "PLANNED-DURATION": .decimalFloat, "END-ON-NEXT": .enumerated(["YES"])],
        required: ["ID", "START-DATE"], clientAttributes: true)

    /// DATERANGE and END-DATE's dates are compared to this resolution: dates carry milliseconds
    /// (§4.3.2.6's SHOULD), so a DURATION finer than that cannot match them exactly.
    static let tolerance = MediaTime(value: 1, timescale: 1000)

    /// Reads the tag and reports what breaks its own rules; nil when its attribute-list is unreadable.
    static func read(_ line: RFC8216Line, into f: inout RFC8216Findings) -> RFC8216DateRange? {
        guard let list = spec.read(line, into: &f) else { return nil }
        func date(_ name: String) -> MediaTime? {
            guard let a = list[name], a.isQuoted else { return nil }
            guard let d = RFC8216Date.parse(a.value) else {
                f.add(.dateRange, line, "\(name)=\(a.raw) is not an ISO 8601 date-time"); return nil
            }
            if !d.hasTimeZone { f.add(.timeZone, line, "\(name) names no time zone") }
            return d.instant
        }
        let start = date("START-DATE"), endDate = date("END-DATE")
        let duration = list["DURATION"].flatMap { $0.isQuoted ? nil : RFC8216Value.decimalFloat($0.raw) }
        for name in ["SCTE35-CMD", "SCTE35-OUT", "SCTE35-IN"] {
            if let a = list[name], let problem = RFC8216AttributeType.hexadecimal(maxDigits: nil).problem(a) {
                f.add(.scte35, line, problem)
            }
        }
        if let start, let endDate, endDate < start {
            f.add(.dateRangeEndDate, line, "END-DATE is \((start - endDate).seconds) s before START-DATE")
        }
        if let start, let endDate, let duration, (start + duration - endDate).magnitude > tolerance {
            f.add(.dateRangeDuration, line, "START-DATE + DURATION is \((start + duration - endDate).seconds) s off END-DATE")
        }
        let range = RFC8216DateRange(line: line, attributes: list, id: list["ID"]?.value ?? "", start: start, endDate: endDate, duration: duration)
        if range.endOnNext {
            if range.cls == nil { f.add(.dateRangeEndOnNext, line, "END-ON-NEXT=YES without a CLASS") }
            if list["DURATION"] != nil || list["END-DATE"] != nil { f.add(.dateRangeEndOnNext, line, "END-ON-NEXT=YES with DURATION or END-DATE") }
        }
        return range
    }

    /// The rules between the tags of one playlist: a program date-time somewhere, one value per
    /// attribute per ID, no overlap within a CLASS that uses END-ON-NEXT.
    static func checkTogether(_ ranges: [RFC8216DateRange], hasProgramDateTime: Bool, into f: inout RFC8216Findings) {
        if let first = ranges.first, !hasProgramDateTime {
            f.add(.dateRangeNeedsProgramDateTime, first.line, "EXT-X-DATERANGE in a playlist without EXT-X-PROGRAM-DATE-TIME")
        }
        var seen: [String: [String: (raw: String, line: Int)]] = [:]
        for r in ranges {
            for a in r.attributes.attributes {
                if let earlier = seen[r.id]?[a.name] {
                    if earlier.raw != a.raw {
                        f.add(.dateRangeSameID, r.line, "ID \"\(r.id)\": \(a.name)=\(a.raw.prefix(40)) but \(earlier.raw.prefix(40)) on line \(earlier.line)")
                    }
                } else {
                    seen[r.id, default: [:]][a.name] = (a.raw, r.line.number)
                }
            }
        }
        checkClassOverlap(ranges, into: &f)
    }

    /// §4.3.2.7: within a CLASS that has an END-ON-NEXT=YES range, ranges do not overlap. A
    /// range's end is its END-DATE or START-DATE + DURATION, or for END-ON-NEXT the START-DATE
    /// of the next range of the class; ranges of one ID count as one.
    static func checkClassOverlap(_ ranges: [RFC8216DateRange], into f: inout RFC8216Findings) {
        let classes = Set(ranges.filter(\.endOnNext).compactMap(\.cls))
        for cls in classes.sorted() {
            var byID: [String: (start: MediaTime, end: MediaTime?, line: RFC8216Line)] = [:]
            for r in ranges where r.cls == cls {
                guard let start = r.start else { continue }
                let known = byID[r.id]
                byID[r.id] = (known?.start ?? start, known?.end ?? r.end, known?.line ?? r.line)
            }
            let sorted = byID.sorted { $0.value.start < $1.value.start }
            for (i, a) in sorted.enumerated() {
                guard let end = a.value.end else { continue }
                for b in sorted[(i + 1)...] where b.value.start < end {
                    f.add(.dateRangeClassOverlap, b.value.line, "CLASS \"\(cls)\": \"\(b.key)\" starts before \"\(a.key)\" (line \(a.value.line.number)) ends")
                }
            }
        }
    }
}
