import Foundation
import Timing

extension HLS {
    /// A live media playlist that changes refresh by refresh and keeps RFC 8216 §6.2.1–6.2.2 by
    /// construction: it is only ever appended to, slid from the front, or ended.
    ///
    /// - A published segment's URI, duration and tags never change; each keeps its media
    ///   sequence number and its discontinuity sequence number in every later version
    ///   (`EXT-X-DISCONTINUITY-SEQUENCE` counts the discontinuities slid out, §6.2.2).
    /// - `EXT-X-TARGETDURATION` is fixed when the playlist is made; a segment whose rounded
    ///   duration exceeds it is refused (`AppendError.overTarget`), never published.
    /// - A segment is slid out only while what stays lasts at least `minimumDuration`, which is
    ///   at least three target durations (§6.2.2: "The server MUST NOT remove a Media Segment
    ///   from a Playlist file without an EXT-X-ENDLIST tag if that would produce a Playlist whose
    ///   duration is less than three times the target duration").
    /// - A date range stays listed while any date of it maps to a listed segment (§6.2.1): when
    ///   the segment it was written before slides out, it is carried to the first listed one.
    /// - The `EXT-X-KEY` in force stays in force (§6.2.3): when the segment it was written before
    ///   slides out, it is written again before the first listed segment, so every listed segment
    ///   keeps the key that applied to it when it was published.
    /// - Once ended (`EXT-X-ENDLIST`) nothing changes any more.
    public struct LivePlaylist: Sendable, Equatable, Codable {
        /// A published segment and its sequence numbers.
        public struct Published: Sendable, Equatable, Codable {
            /// The segment as written.
            public let segment: Segment
            /// Its media sequence number.
            public let sequence: Int
            /// Its discontinuity sequence number.
            public let discontinuitySequence: Int
        }

        /// Why a segment was not published.
        public enum AppendError: Error, Sendable, Equatable, CustomStringConvertible {
            /// Its rounded duration is over the target duration.
            case overTarget(uri: String, seconds: Double, target: Int)
            /// The playlist has ended.
            case ended
            /// Its URI cannot be a URI line.
            case badURI

            /// One line.
            public var description: String {
                switch self {
                case .overTarget(let u, let s, let t): "segment \(u) of \(s) s is over the target duration \(t) s"
                case .ended: "the playlist has ended"
                case .badURI: "a segment URI is empty or holds a line break"
                }
            }
        }

        /// `EXT-X-TARGETDURATION`, fixed.
        public let targetDuration: Int
        /// The least duration kept once reached (≥ 3 target durations).
        public let minimumDuration: MediaTime
        /// `EXT-X-INDEPENDENT-SEGMENTS`.
        public let independentSegments: Bool
        /// The segments listed now, oldest first.
        public private(set) var window: [Published] = []
        /// `EXT-X-ENDLIST` written.
        public private(set) var ended = false
        /// Segments published so far (the next one's media sequence number less the first's).
        public private(set) var published = 0
        private let firstSequence: Int
        private var lastDiscontinuitySequence = 0
        /// Date ranges of segments slid out that still cover a listed segment.
        public private(set) var carried: [DateRange] = []
        /// The last `EXT-X-KEY` of the segments slid out (`METHOD=NONE` included): in force at
        /// the first listed segment unless it has its own.
        public private(set) var carriedKey: Key?

        /// An empty live playlist whose target duration is `targetDuration` seconds, keeping at
        /// least `keeping` (and never less than three target durations) once it has that much;
        /// its first segment will have media sequence number `firstSequence`.
        public init(targetDuration: Int, keeping: MediaTime = .zero, firstSequence: Int = 0, independentSegments: Bool = true) {
            precondition(targetDuration >= 1, "a target duration is at least 1 s")
            self.targetDuration = targetDuration
            self.minimumDuration = MediaTime.max(keeping, MediaTime(seconds: Int64(targetDuration) * 3))
            self.firstSequence = max(0, firstSequence)
            self.independentSegments = independentSegments
        }

        /// Publishes `segment` at the end, then slides out what the window no longer needs;
        /// returns the segments slid out (the caller keeps their media available a while longer,
        /// §6.2.2).
        @discardableResult
        public mutating func append(_ segment: Segment) throws(AppendError) -> [Published] {
            guard !ended else { throw .ended }
            guard HLS.isValidURI(segment.uri) else { throw .badURI }
            guard segment.roundedSeconds <= targetDuration, segment.duration >= .zero else {
                throw .overTarget(uri: segment.uri, seconds: segment.duration.seconds, target: targetDuration)
            }
            if segment.discontinuity { lastDiscontinuitySequence += 1 }
            window.append(Published(segment: segment, sequence: firstSequence + published, discontinuitySequence: lastDiscontinuitySequence))
            published += 1
            return slide()
        }

        /// Ends the playlist: `EXT-X-ENDLIST`, and no change after.
        public mutating func end() { ended = true }

        /// Removes segments from the front while what stays lasts at least `minimumDuration`.
        private mutating func slide() -> [Published] {
            var total = window.reduce(MediaTime.zero) { $0 + $1.segment.duration }
            var gone = 0
            while gone + 1 < window.count, total - window[gone].segment.duration >= minimumDuration {
                total -= window[gone].segment.duration
                gone += 1
            }
            let out = Array(window[..<gone])
            window.removeFirst(gone)
            if gone > 0 { carry(out) }
            if let key = out.last(where: { $0.segment.key != nil })?.segment.key { carriedKey = key }
            return out
        }

        /// Keeps the date ranges (of `removed` and those carried already) whose dates reach a
        /// listed segment: a range from START-DATE to END-DATE (or START-DATE + DURATION, or the
        /// instant START-DATE) against the listed segments' program dates.
        private mutating func carry(_ removed: [Published]) {
            guard let first = window.first?.segment.programDateTime, let last = window.last,
                  let lastDate = last.segment.programDateTime else { carried = []; return }
            let end = lastDate.addingTimeInterval(last.segment.duration.seconds)
            let ranges = carried + removed.flatMap { $0.segment.markers }.compactMap { m -> DateRange? in
                if case .dateRange(let r) = m { r } else { nil }
            }
            carried = ranges.filter { r in
                let rangeEnd = r.endDate ?? r.duration.map { r.startDate.addingTimeInterval($0.seconds) } ?? r.startDate
                return r.startDate < end && rangeEnd >= first
            }
        }

        /// The duration listed now.
        public var duration: MediaTime { window.reduce(.zero) { $0 + $1.segment.duration } }

        /// The playlist as it is now, for the writer: `EXT-X-MEDIA-SEQUENCE` the first listed
        /// segment's number, `EXT-X-DISCONTINUITY-SEQUENCE` such that every listed segment keeps
        /// its discontinuity sequence number (the first one's own tag stays written).
        public var playlist: MediaPlaylist {
            let first = window.first
            let ds = first.map { $0.discontinuitySequence - ($0.segment.discontinuity ? 1 : 0) } ?? lastDiscontinuitySequence
            var segments = window.map(\.segment)
            if !carried.isEmpty, !segments.isEmpty { segments[0].markers = carried.map { .dateRange($0) } + segments[0].markers }
            if !segments.isEmpty, segments[0].key == nil { segments[0].key = carriedKey }
            return MediaPlaylist(targetDuration: targetDuration, mediaSequence: first?.sequence ?? firstSequence + published,
                                 discontinuitySequence: ds, playlistType: nil, independentSegments: independentSegments,
                                 segments: segments, endList: ended)
        }

        /// The playlist's text now.
        public var text: String { HLS.write(playlist) }

        private enum CodingKeys: String, CodingKey {
            case targetDuration, minimumDuration, independentSegments, window, ended, published, firstSequence,
                 lastDiscontinuitySequence, carried, carriedKey
        }

        /// Reads a playlist written by `encode(to:)`, checked as strictly as `append` checks: a
        /// record read back (a live session kept in Redis) cannot make a playlist that breaks the
        /// rules above — a target under 1 s, a window shorter than three targets, sequence numbers
        /// that do not follow one another, a segment over the target or with a URI that is not one.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            targetDuration = try c.decode(Int.self, forKey: .targetDuration)
            minimumDuration = try c.decode(MediaTime.self, forKey: .minimumDuration)
            independentSegments = try c.decode(Bool.self, forKey: .independentSegments)
            window = try c.decode([Published].self, forKey: .window)
            ended = try c.decode(Bool.self, forKey: .ended)
            published = try c.decode(Int.self, forKey: .published)
            firstSequence = try c.decode(Int.self, forKey: .firstSequence)
            lastDiscontinuitySequence = try c.decode(Int.self, forKey: .lastDiscontinuitySequence)
            carried = try c.decode([DateRange].self, forKey: .carried)
            carriedKey = try c.decodeIfPresent(Key.self, forKey: .carriedKey)
            func refuse(_ why: String) -> DecodingError {
                DecodingError.dataCorruptedError(forKey: .window, in: c, debugDescription: "a live playlist \(why)")
            }
            guard (1...86_400).contains(targetDuration) else { throw refuse("with a target duration of \(targetDuration) s") }
            guard minimumDuration >= MediaTime(seconds: Int64(targetDuration) * 3) else { throw refuse("keeping less than three target durations") }
            guard firstSequence >= 0, published >= window.count, firstSequence <= Int.max - published, lastDiscontinuitySequence >= 0 else {
                throw refuse("with sequence numbers out of range")
            }
            let next = firstSequence + published
            for (i, p) in window.enumerated() {
                guard p.sequence == next - window.count + i else { throw refuse("whose media sequence numbers do not follow one another") }
                guard p.discontinuitySequence <= lastDiscontinuitySequence,
                      i == 0 || p.discontinuitySequence == window[i - 1].discontinuitySequence + (p.segment.discontinuity ? 1 : 0) else {
                    throw refuse("whose discontinuity sequence numbers do not follow its discontinuities")
                }
                guard HLS.isValidURI(p.segment.uri), p.segment.duration >= .zero, p.segment.roundedSeconds <= targetDuration else {
                    throw refuse("holding a segment that could not have been published")
                }
            }
        }
    }
}
