import Timing

extension RFC8216 {
    /// Follows the refreshes of ONE media playlist URL and checks each against every earlier one
    /// (§6.2.1, §6.2.2, and what §6.3.4 has clients verify), besides checking it alone as
    /// `check(media:)` does:
    /// - a segment, named by its media sequence number, keeps its URI, EXTINF duration, byte range,
    ///   discontinuity sequence number and the tags applying to it (EXT-X-KEY and EXT-X-MAP too);
    ///   no tag is inserted before it;
    /// - segments leave only from the start (EXT-X-MEDIA-SEQUENCE grows by one per removed segment,
    ///   never decreases) and arrive only at the end;
    /// - EXT-X-DISCONTINUITY-SEQUENCE accounts for every EXT-X-DISCONTINUITY removed with them;
    /// - EXT-X-TARGETDURATION and the playlist-wide tags never change; a VOD playlist never
    ///   changes; an EVENT playlist only grows; after EXT-X-ENDLIST no segment is added;
    /// - a removal never leaves a playlist without EXT-X-ENDLIST shorter than three target durations;
    /// - date ranges keep their attributes and stay while they map to a segment;
    /// - with fetch times (`at`), a playlist without EXT-X-ENDLIST gets a new segment within 1.5
    ///   target durations.
    ///
    /// Usage: one checker per playlist URL, `add` every fetched body in fetch order, each call
    /// returning the violations that body adds.
    public struct RefreshChecker: Sendable {
        struct Record: Sendable {
            var uri: String
            var duration: MediaTime
            var extinf: String
            var byteRange: RFC8216MediaPlaylist.ByteRange?
            var discontinuityNumber: UInt64
            var keys: [String]
            var map: String?
            var lastSeen: Double?
            var longestPlaylist: MediaTime
        }

        let allowances: [Allowance]
        let timeSlack: Double
        var previous: RFC8216MediaPlaylist?
        var vodReference: [String]?
        var history: [UInt64: Record] = [:]
        var dateRangeAttributes: [String: [String: String]] = [:]
        var endListAfter: UInt64??      // the last media sequence number when EXT-X-ENDLIST first appeared
        var newest: UInt64?
        var newestSince: Double?
        var staleReported = false
        var latest: [UInt64] = []
        /// The number of playlists added so far.
        public private(set) var refreshes = 0

        /// A checker that tolerates the `allowing` rules (reporting them as allowed). `timeSlack`
        /// seconds are granted to timed rules for the time a fetch itself takes.
        public init(allowing allowances: [Allowance] = [], timeSlack: Double = 0.5) {
            self.allowances = allowances
            self.timeSlack = timeSlack
        }

        /// Checks the next body of the playlist (of a successful fetch: an error page is no
        /// refresh), alone and against all earlier ones. `time` is when it was fetched (seconds on
        /// any monotonic clock, taken when the response arrived), for the timed rules; without it
        /// they are skipped.
        public mutating func add(_ text: String, at time: Double? = nil) -> [Violation] {
            refreshes += 1
            var f = RFC8216Findings()
            let p = RFC8216MediaPlaylist.read(text, into: &f)
            if let old = previous {
                compare(old, p, into: &f)
            } else {
                checkFirst(p, into: &f)
            }
            checkDateRanges(p, into: &f)
            checkStale(p, at: time, into: &f)
            record(p, at: time)
            return f.finish(allowing: allowances)
        }

        /// The URIs of the segments that must be downloadable at `time`: those of the latest
        /// refresh (§6.2.1: available for immediate download), and those removed since, until
        /// their last sighting plus their duration plus the longest playlist seen holding them
        /// (§6.2.2). The checker fetches nothing; a test fetches these and expects success.
        public func mustBeAvailable(at time: Double) -> [String] {
            let current = Set(latest)
            var uris = latest.compactMap { history[$0]?.uri }
            for (sequence, r) in history.sorted(by: { $0.key < $1.key }) where !current.contains(sequence) {
                guard let seen = r.lastSeen else { continue }
                if time < seen + r.duration.seconds + r.longestPlaylist.seconds { uris.append(r.uri) }
            }
            return uris
        }

        // MARK: - Rules

        /// §6.2.2 on the first playlist seen: past media sequence 0, segments were removed, so it
        /// must not be shorter than three target durations.
        func checkFirst(_ p: RFC8216MediaPlaylist, into f: inout RFC8216Findings) {
            guard !p.hasEndList, p.mediaSequence > 0, let target = p.targetDuration,
                  p.duration < MediaTime(seconds: Int64(clamping: target)) * 3 else { return }
            f.add(.windowFirst, p.lines.first { $0.tagName == "EXT-X-MEDIA-SEQUENCE" },
                  "starts at media sequence \(p.mediaSequence), so segments were removed, yet it lasts \(p.duration.seconds) s, less than 3 × EXT-X-TARGETDURATION \(target)")
        }

        func compare(_ old: RFC8216MediaPlaylist, _ new: RFC8216MediaPlaylist, into f: inout RFC8216Findings) {
            let firstLine = new.lines.first
            if let a = old.targetDuration, let b = new.targetDuration, a != b {
                f.add(.targetDurationChanged, new.targetDurationLine, "EXT-X-TARGETDURATION was \(a), now \(b) (it MUST NOT change)")
            }
            if old.headerLines != new.headerLines {
                f.add(.header, firstLine, "playlist-wide tags were \(old.headerLines), now \(new.headerLines)")
            }
            let newLines = new.lines.filter { $0.kind != .blank }
            if new.playlistType == "VOD", let reference = vodReference, reference != newLines.map(\.text) {
                let i = (0..<min(reference.count, newLines.count)).first { reference[$0] != newLines[$0].text } ?? min(reference.count, newLines.count)
                f.add(.vodChanged, i < newLines.count ? newLines[i] : newLines.last,
                      "an EXT-X-PLAYLIST-TYPE:VOD playlist changed (first fetched: `\(i < reference.count ? reference[i] : "(end)")`)")
            }
            if old.playlistType == "EVENT" && new.playlistType == "EVENT" {
                let before = old.lines.filter { $0.kind != .blank }
                if let i = before.indices.first(where: { $0 >= newLines.count || before[$0].text != newLines[$0].text }) {
                    f.add(.eventChanged, i < newLines.count ? newLines[i] : newLines.last,
                          "an EXT-X-PLAYLIST-TYPE:EVENT playlist changed an earlier line (was `\(before[i].text)`); it may only append")
                }
            }
            if old.hasEndList && !new.hasEndList {
                f.add(.endListFinal, firstLine, "EXT-X-ENDLIST was there and is gone")
            }
            if case .some(let last) = endListAfter,
               let added = new.segments.first(where: { s in last.map { s.sequence > $0 } ?? true }) {
                f.add(.endListFinal, added.uri, "segment \(added.sequence) added after EXT-X-ENDLIST")
            }
            let sequenceDecreased = new.mediaSequence < old.mediaSequence
            if sequenceDecreased {
                f.add(.mediaSequence, new.lines.first { $0.tagName == "EXT-X-MEDIA-SEQUENCE" } ?? firstLine,
                      "EXT-X-MEDIA-SEQUENCE went from \(old.mediaSequence) to \(new.mediaSequence) (it MUST NOT decrease)")
            }
            if new.discontinuitySequence < old.discontinuitySequence {
                f.add(.discontinuitySequence, new.lines.first { $0.tagName == "EXT-X-DISCONTINUITY-SEQUENCE" } ?? firstLine,
                      "EXT-X-DISCONTINUITY-SEQUENCE went from \(old.discontinuitySequence) to \(new.discontinuitySequence) (it MUST NOT decrease)")
            }
            let removed = new.mediaSequence > old.mediaSequence
            if !sequenceDecreased, let oldLast = old.segments.last?.sequence, new.mediaSequence <= oldLast,
               new.mediaSequence &+ UInt64(new.segments.count) <= oldLast {
                let gone = new.mediaSequence &+ UInt64(new.segments.count)
                f.add(.removalOrder, new.segments.last?.uri ?? firstLine,
                      "\(gone == oldLast ? "segment \(gone)" : "segments \(gone)...\(oldLast)") left from the end, while earlier ones stayed (segments MUST be removed in the order they appear)")
            }
            if removed && old.hasDiscontinuity && !new.hasDiscontinuitySequenceTag {
                f.add(.discontinuitySequence, firstLine, "segments were removed from a playlist with EXT-X-DISCONTINUITY, which then MUST have EXT-X-DISCONTINUITY-SEQUENCE")
            }
            if removed && !new.hasEndList, let target = new.targetDuration,
               new.duration < MediaTime(seconds: Int64(clamping: target)) * 3 {
                // §6.2.2: "The server MUST NOT remove a Media Segment from a Playlist file without an
                // EXT-X-ENDLIST tag if that would produce a Playlist whose duration is less than
                // three times the target duration."
                f.add(.window, new.targetDurationLine ?? firstLine,
                      "segments \(old.mediaSequence)..<\(new.mediaSequence) were removed, leaving \(new.duration.seconds) s, less than 3 × EXT-X-TARGETDURATION \(target)")
            }
            if let shift = shiftedNumbering(old, new) {
                f.add(.mediaSequence, new.segments[0].uri, shift)
                return   // every per-segment comparison would only repeat it
            }
            compareSegments(new, into: &f)
            if !sequenceDecreased { compareTags(old, new, into: &f) }
            checkRemovedDateRanges(old, new, into: &f)
        }

        /// When the new playlist's segments are the old ones under other numbers (segments
        /// removed without EXT-X-MEDIA-SEQUENCE advancing by as many, or the tag missing), why.
        func shiftedNumbering(_ old: RFC8216MediaPlaylist, _ new: RFC8216MediaPlaylist) -> String? {
            guard let first = new.segments.first else { return nil }
            func aligned(_ d: Int) -> Bool {
                let overlap = min(new.segments.count, old.segments.count - d)
                return overlap > 0 && (0..<overlap).allSatisfy { new.segments[$0].uri.text == old.segments[$0 + d].uri.text }
            }
            let expected = Int(clamping: Int64(clamping: new.mediaSequence) - Int64(clamping: old.mediaSequence))
            if expected >= 0 && expected < old.segments.count && aligned(expected) { return nil }
            if expected >= old.segments.count { return nil }   // nothing in common by number
            guard let d = old.segments.indices.first(where: { $0 != expected && old.segments[$0].uri.text == first.uri.text && aligned($0) }) else { return nil }
            let was = old.segments[d].sequence
            return new.hasMediaSequenceTag
                ? "`\(first.uri.text)` was segment \(was), now \(first.sequence): \(d) segment(s) were removed but EXT-X-MEDIA-SEQUENCE moved by \(expected) (it MUST grow by one per removed segment)"
                : "`\(first.uri.text)` was segment \(was), now \(first.sequence): segments were removed from a playlist without EXT-X-MEDIA-SEQUENCE (it MUST be present then)"
        }

        /// Every segment seen before keeps what named it; new segments' discontinuity numbers fit
        /// the ones before them.
        func compareSegments(_ new: RFC8216MediaPlaylist, into f: inout RFC8216Findings) {
            var reportedNumber = false
            for (i, s) in new.segments.enumerated() {
                guard let r = history[s.sequence] else {
                    if i == 0 { checkNewFirstNumber(s, into: &f) }
                    continue
                }
                if r.uri != s.uri.text {
                    f.add(.segmentURI, s.uri, "segment \(s.sequence) was `\(r.uri)`")
                }
                if r.duration != s.duration {
                    f.add(.segmentDuration, s.extinf ?? s.uri, "segment \(s.sequence) (`\(s.uri.text)`) was `\(r.extinf)`: a published segment's duration changed")
                }
                if r.byteRange != s.byteRange {
                    f.add(.segmentByteRange, s.uri, "segment \(s.sequence) had byte range \(r.byteRange.map { "\($0)" } ?? "none"), now \(s.byteRange.map { "\($0)" } ?? "none")")
                }
                if r.keys != s.keys {
                    // §6.2.3: an EXT-X-KEY is not removed while it applies to a segment of the playlist.
                    f.add(.segmentTags, s.uri, "the EXT-X-KEY applying to segment \(s.sequence) was \(r.keys), now \(s.keys)")
                }
                if r.map != s.map {
                    f.add(.segmentTags, s.uri, "the EXT-X-MAP applying to segment \(s.sequence) was \(r.map ?? "none"), now \(s.map ?? "none")")
                }
                if r.discontinuityNumber != s.discontinuityNumber && !reportedNumber {
                    reportedNumber = true
                    let how = s.discontinuityNumber < r.discontinuityNumber
                        ? "an EXT-X-DISCONTINUITY was removed without EXT-X-DISCONTINUITY-SEQUENCE growing by one for it"
                        : "EXT-X-DISCONTINUITY-SEQUENCE grew by more than the EXT-X-DISCONTINUITY tags removed"
                    f.add(.discontinuityNumber, s.uri,
                          "segment \(s.sequence) had discontinuity sequence number \(r.discontinuityNumber), now \(s.discontinuityNumber) (EXT-X-DISCONTINUITY-SEQUENCE \(new.discontinuitySequence) + \(s.discontinuitiesBefore) EXT-X-DISCONTINUITY before it): \(how)")
                }
            }
        }

        /// A first segment never seen: its discontinuity number is at least that of the nearest
        /// earlier segment seen and grows by at most one per segment since; with
        /// EXT-X-DISCONTINUITY on it and its predecessor seen, exactly one more.
        func checkNewFirstNumber(_ s: RFC8216MediaPlaylist.Segment, into f: inout RFC8216Findings) {
            guard let (sequence, r) = history.filter({ $0.key < s.sequence }).max(by: { $0.key < $1.key }) else { return }
            let steps = s.sequence - sequence
            let n = s.discontinuityNumber, base = r.discontinuityNumber
            let tagged = s.block.contains { $0.tagName == "EXT-X-DISCONTINUITY" }
            if n < base || n - base > steps || (steps == 1 && tagged && n != base + 1) {
                f.add(.discontinuityNumber, s.uri,
                      "segment \(s.sequence) has discontinuity sequence number \(n), but segment \(sequence) had \(base)\(tagged ? " and this one follows an EXT-X-DISCONTINUITY" : "")")
            }
        }

        /// The tags applying to a kept segment do not change (§6.2.1 allows removing a segment
        /// with the tags that apply only to it, nothing else); a segment that became first keeps
        /// its own tags and gains only tags carried over from earlier lines; tags after the last
        /// segment stay before the next one.
        func compareTags(_ old: RFC8216MediaPlaylist, _ new: RFC8216MediaPlaylist, into f: inout RFC8216Findings) {
            let ownRules: Set<String> = ["EXTINF", "EXT-X-BYTERANGE"]   // compared as duration and byte range
            func segmentTags(_ block: [RFC8216Line]) -> [String] {
                block.filter { !RFC8216MediaPlaylist.playlistWide.contains($0.tagName ?? "") && !ownRules.contains($0.tagName ?? "") }.map(\.text)
            }
            let offset = Int(clamping: new.mediaSequence - old.mediaSequence)
            for (i, s) in new.segments.enumerated() {
                let j = i + offset
                guard j < old.segments.count else { break }
                let before = segmentTags(old.segments[j].block), after = segmentTags(s.block)
                if i > 0 || j == 0 {
                    if before == after { continue }
                    if isSubsequence(before, of: after), let added = after.first(where: { !before.contains($0) }) {
                        f.add(.insertedTag, s.uri, "`\(added)` inserted before segment \(s.sequence), which was already published (lines may only be appended)")
                    } else {
                        f.add(.segmentTags, s.uri, "the tags before segment \(s.sequence) were \(before), now \(after)")
                    }
                    continue
                }
                // Now first: the segments before it left with the tags that applied only to them.
                // An EXT-X-DISCONTINUITY before it may go too (§6.2.2 counts it into
                // EXT-X-DISCONTINUITY-SEQUENCE), and so may tags the RFC does not define, whose
                // scope it cannot know (clients ignore them, §6.3.1).
                let kept = before.filter { $0 != "#EXT-X-DISCONTINUITY" && RFC8216Text.isDefined(RFC8216Line(number: 0, text: $0, kind: RFC8216Line.classify($0)).tagName ?? "") }
                if let lost = kept.first(where: { !after.contains($0) }) {
                    f.add(.segmentTags, s.uri, "segment \(s.sequence), now first, lost `\(lost)`, which applies to it")
                }
                let earlier = Set(segmentTags(old.lines.prefix { $0.number < old.segments[j].uri.number }.filter { $0.tagName != nil }))
                if let added = after.first(where: { !earlier.contains($0) }) {
                    f.add(.insertedTag, s.uri, "segment \(s.sequence), now first, gained `\(added)`, which no earlier line had (lines may only be appended)")
                }
            }
            let trailing = segmentTags(old.trailing)
            guard !trailing.isEmpty, let last = old.segments.last else { return }
            let next: [String]? = new.segments.first { $0.sequence == last.sequence + 1 }.map { segmentTags($0.block) }
                ?? (new.segments.last?.sequence == last.sequence ? segmentTags(new.trailing) : nil)
            if let next, let lost = trailing.first(where: { !next.contains($0) }) {
                f.add(.segmentTags, new.lines.first, "`\(lost)` after the last segment is gone (lines may only be appended)")
            }
        }

        /// Whether `a`'s lines appear in `b` in the same order.
        func isSubsequence(_ a: [String], of b: [String]) -> Bool {
            var rest = b[...]
            for line in a {
                guard let i = rest.firstIndex(of: line) else { return false }
                rest = rest[(i + 1)...]
            }
            return true
        }

        /// §6.2.1: an EXT-X-DATERANGE stays while any date of it maps to a segment of the playlist.
        func checkRemovedDateRanges(_ old: RFC8216MediaPlaylist, _ new: RFC8216MediaPlaylist, into f: inout RFC8216Findings) {
            let kept = Set(new.dateRanges.map(\.id))
            guard let first = new.segments.first?.start, let lastSegment = new.segments.last, let last = lastSegment.start else { return }
            let end = last + lastSegment.duration
            for r in old.dateRanges where !kept.contains(r.id) {
                guard let start = r.start else { continue }
                let rangeEnd = r.end ?? start
                if start < end && rangeEnd >= first {
                    f.add(.dateRangeRemoved, new.lines.first, "EXT-X-DATERANGE ID \"\(r.id)\" (line \(r.line.number) before) was removed, but its dates map to segments still in the playlist")
                }
            }
        }

        /// A date range's attributes never change across refreshes (§4.3.2.7's one value per
        /// attribute per ID, for a playlist that evolves; §6.2.1 allows only appending).
        func checkDateRanges(_ p: RFC8216MediaPlaylist, into f: inout RFC8216Findings) {
            guard previous != nil else { return }
            for r in p.dateRanges {
                for a in r.attributes.attributes {
                    if let earlier = dateRangeAttributes[r.id]?[a.name], earlier != a.raw {
                        f.add(.dateRangeSameID, r.line, "ID \"\(r.id)\": \(a.name)=\(a.raw.prefix(40)), but \(earlier.prefix(40)) in an earlier refresh")
                    }
                }
            }
        }

        /// §6.2.1: without EXT-X-ENDLIST, a version with a new segment within 1.5 target durations.
        mutating func checkStale(_ p: RFC8216MediaPlaylist, at time: Double?, into f: inout RFC8216Findings) {
            let last = p.segments.last?.sequence
            if last != newest {
                newest = last
                newestSince = time
                staleReported = false
                return
            }
            guard let time, let since = newestSince, !p.hasEndList, !staleReported, let target = p.targetDuration else { return }
            let limit = 1.5 * Double(target) + timeSlack
            if time - since > limit {
                staleReported = true
                f.add(.stale, p.segments.last?.uri ?? p.lines.first,
                      "no new segment for \(time - since) s (since segment \(last.map { "\($0)" } ?? "none") was first seen), more than 1.5 × EXT-X-TARGETDURATION \(target) + \(timeSlack) s slack")
            }
        }

        mutating func record(_ p: RFC8216MediaPlaylist, at time: Double?) {
            if p.playlistType == "VOD" && vodReference == nil { vodReference = p.lines.filter { $0.kind != .blank }.map(\.text) }
            if p.hasEndList, endListAfter == nil { endListAfter = .some(p.segments.last?.sequence) }
            let duration = p.duration
            for s in p.segments {
                var r = history[s.sequence] ?? Record(uri: s.uri.text, duration: s.duration, extinf: s.extinf?.text ?? "(none)",
                                                      byteRange: s.byteRange, discontinuityNumber: s.discontinuityNumber,
                                                      keys: s.keys, map: s.map, lastSeen: nil, longestPlaylist: .zero)
                if let time { r.lastSeen = time }
                r.longestPlaylist = MediaTime.max(r.longestPlaylist, duration)
                history[s.sequence] = r
            }
            for r in p.dateRanges {
                for a in r.attributes.attributes where dateRangeAttributes[r.id]?[a.name] == nil {
                    dateRangeAttributes[r.id, default: [:]][a.name] = a.raw
                }
            }
            latest = p.segments.map(\.sequence)
            previous = p
        }
    }
}
