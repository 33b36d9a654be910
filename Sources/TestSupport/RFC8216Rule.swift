extension RFC8216 {
    /// Every rule the checker enforces: a stable identifier (the raw value, named after the RFC
    /// section it comes from), the section, and what it requires. Each is a MUST or MUST NOT of
    /// RFC 8216 unless its summary says otherwise.
    public enum Rule: String, CaseIterable, Sendable {
        // Playlist text (§4.1, §4.2, §4.3.1, §4.3.5, §7)
        /// UTF-8 without a BOM, no control characters but CR LF, NFC.
        case encoding = "4.1-encoding"
        /// No whitespace except in quoted-strings and the EXTINF title.
        case whitespace = "4.1-whitespace"
        /// A URI line is a URI: no characters RFC 3986 does not allow.
        case uri = "4.1-uri"
        /// A tag is #EXT, a name of [A-Z0-9-], and an optional non-empty :value with balanced quotes (unknown tags too).
        case tagSyntax = "4.1-tag-syntax"
        /// A playlist is a media or a multivariant playlist, never both kinds of tags.
        case kind = "4.1-kind"
        /// Attribute-lists follow §4.2: NAME=VALUE pairs, comma-separated.
        case attributeList = "4.2-attribute-list"
        /// An AttributeName appears at most once in an attribute-list.
        case duplicateAttribute = "4.2-duplicate-attribute"
        /// #EXTM3U is the first line.
        case extm3u = "4.3.1.1-extm3u"
        /// EXT-X-VERSION is a decimal-integer, at most once.
        case version = "4.3.1.2-version"
        /// EXT-X-VERSION is at least what §7 requires for the tags and attributes used.
        case versionCompatibility = "7-version"
        /// EXT-X-INDEPENDENT-SEGMENTS and EXT-X-START appear at most once.
        case onceInPlaylist = "4.3.5-once"
        /// EXT-X-INDEPENDENT-SEGMENTS has no value.
        case independentSegments = "4.3.5.1-independent-segments"
        /// EXT-X-START has a signed-decimal-floating-point TIME-OFFSET and PRECISE YES or NO.
        case start = "4.3.5.2-start"
        // Media segments (§4.3.2)
        /// A segment's tags are followed by its URI line.
        case segment = "4.3.2-segment"
        /// EXTINF is <decimal duration>,[title], one per segment; integers below version 3.
        case extinf = "4.3.2.1-extinf"
        /// Every media segment URI has an EXTINF.
        case extinfRequired = "4.3.2.1-extinf-required"
        /// EXT-X-BYTERANGE is n[@o]; without o it follows a sub-range of the same resource.
        case byteRange = "4.3.2.2-byterange"
        /// EXT-X-DISCONTINUITY has no value.
        case discontinuity = "4.3.2.3-discontinuity"
        /// EXT-X-KEY: METHOD NONE|AES-128|SAMPLE-AES; NONE alone; URI unless NONE; IV 128-bit hex; KEYFORMAT(VERSIONS) quoted.
        case key = "4.3.2.4-key"
        /// EXT-X-MAP has a quoted URI, an optional quoted BYTERANGE, and an IV on an AES-128 key that applies to it.
        case map = "4.3.2.5-map"
        /// EXT-X-PROGRAM-DATE-TIME is an ISO 8601 date-time.
        case programDateTime = "4.3.2.6-program-date-time"
        /// Dates name their time zone (a SHOULD of §4.3.2.6, enforced: a zoneless date is read as local time).
        case timeZone = "4.3.2.6-time-zone"
        /// EXT-X-DATERANGE has a quoted ID and START-DATE and attributes of their types.
        case dateRange = "4.3.2.7-daterange"
        /// END-DATE is not before START-DATE.
        case dateRangeEndDate = "4.3.2.7-end-date"
        /// END-DATE equals START-DATE plus DURATION when both are present (1 ms tolerance).
        case dateRangeDuration = "4.3.2.7-duration"
        /// END-ON-NEXT=YES needs a CLASS and forbids DURATION and END-DATE.
        case dateRangeEndOnNext = "4.3.2.7-end-on-next"
        /// Date ranges of a CLASS that uses END-ON-NEXT do not overlap.
        case dateRangeClassOverlap = "4.3.2.7-class-overlap"
        /// A playlist with EXT-X-DATERANGE has an EXT-X-PROGRAM-DATE-TIME.
        case dateRangeNeedsProgramDateTime = "4.3.2.7-program-date-time"
        /// Date ranges with one ID agree on every attribute they share, in a playlist and across its refreshes.
        case dateRangeSameID = "4.3.2.7-same-id"
        /// SCTE35-CMD, SCTE35-OUT and SCTE35-IN are hexadecimal-sequences.
        case scte35 = "4.3.2.7.1-scte35"
        /// EXT-X-GAP has no value.
        case gap = "bis-4.4.4.7-gap"
        // Media playlist tags (§4.3.3)
        /// Each media playlist tag appears at most once.
        case onceInMediaPlaylist = "4.3.3-once"
        /// EXT-X-TARGETDURATION is present, a decimal-integer.
        case targetDuration = "4.3.3.1-target-duration"
        /// Every EXTINF rounded to the nearest integer is at most the target duration.
        case extinfExceedsTarget = "4.3.3.1-extinf-exceeds-target"
        /// EXT-X-MEDIA-SEQUENCE is a decimal-integer before the first segment.
        case mediaSequenceTag = "4.3.3.2-media-sequence"
        /// EXT-X-DISCONTINUITY-SEQUENCE is a decimal-integer before the first segment and any EXT-X-DISCONTINUITY.
        case discontinuitySequenceTag = "4.3.3.3-discontinuity-sequence"
        /// EXT-X-ENDLIST has no value.
        case endList = "4.3.3.4-endlist"
        /// EXT-X-PLAYLIST-TYPE is EVENT or VOD.
        case playlistType = "4.3.3.5-playlist-type"
        /// EXT-X-I-FRAMES-ONLY has no value.
        case iFramesOnly = "4.3.3.6-i-frames-only"
        /// A VOD playlist, which cannot change, holds the final segment and so has EXT-X-ENDLIST.
        case vodEndList = "6.2.1-vod-endlist"
        // Multivariant playlist tags (§4.3.4)
        /// EXT-X-MEDIA: TYPE, GROUP-ID, NAME; INSTREAM-ID exactly for CLOSED-CAPTIONS; URI for SUBTITLES, none for CLOSED-CAPTIONS; FORCED only for SUBTITLES; DEFAULT=YES with AUTOSELECT=YES.
        case media = "4.3.4.1-media"
        /// A rendition group has distinct NAMEs and at most one DEFAULT=YES.
        case renditionGroup = "4.3.4.1.1-group"
        /// EXT-X-STREAM-INF has BANDWIDTH and attributes of their types.
        case streamInf = "4.3.4.2-stream-inf"
        /// EXT-X-STREAM-INF is followed by a URI line, and every URI line of a multivariant playlist follows one.
        case streamInfURI = "4.3.4.2-uri"
        /// AUDIO, VIDEO, SUBTITLES and CLOSED-CAPTIONS name an EXT-X-MEDIA group of that TYPE.
        case groupReference = "4.3.4.2-group-reference"
        /// CLOSED-CAPTIONS=NONE on one EXT-X-STREAM-INF means NONE on all.
        case closedCaptionsNone = "4.3.4.2-closed-captions-none"
        /// EXT-X-I-FRAME-STREAM-INF has BANDWIDTH and URI.
        case iFrameStreamInf = "4.3.4.3-i-frame-stream-inf"
        /// EXT-X-SESSION-DATA has DATA-ID and VALUE or URI (not both); DATA-ID with LANGUAGE unique.
        case sessionData = "4.3.4.4-session-data"
        /// EXT-X-SESSION-KEY: METHOD not NONE, a URI, no duplicate.
        case sessionKey = "4.3.4.5-session-key"
        // Refreshes of one media playlist (§6.2.1, §6.2.2, §6.3.4)
        /// A segment keeps its URI in every refresh (its media sequence number names it).
        case segmentURI = "6.2.1-segment-uri"
        /// A segment keeps its EXTINF duration in every refresh.
        case segmentDuration = "6.2.1-segment-duration"
        /// A segment keeps its byte range in every refresh.
        case segmentByteRange = "6.2.1-segment-byterange"
        /// The tags applying to a kept segment, its EXT-X-KEY and EXT-X-MAP included, do not change or go (but EXT-X-DISCONTINUITY and tags RFC 8216 does not define before a segment that became first).
        case segmentTags = "6.2.1-segment-tags"
        /// No tag is inserted before a published segment: lines are only appended (a segment that became first keeps only tags of earlier lines).
        case insertedTag = "6.2.1-inserted-tag"
        /// Playlist-wide tags (version, type, I-frames, independent segments, start) do not change.
        case header = "6.2.1-header"
        /// EXT-X-TARGETDURATION does not change.
        case targetDurationChanged = "6.2.1-target-duration"
        /// A playlist with EXT-X-PLAYLIST-TYPE:VOD never changes.
        case vodChanged = "6.2.1-vod"
        /// A playlist with EXT-X-PLAYLIST-TYPE:EVENT only has lines appended.
        case eventChanged = "6.2.1-event"
        /// After EXT-X-ENDLIST no segment is added and the tag stays.
        case endListFinal = "6.2.1-endlist"
        /// An EXT-X-DATERANGE is not removed while a date of it maps to a segment of the playlist.
        case dateRangeRemoved = "6.2.1-daterange-removed"
        /// A playlist without EXT-X-ENDLIST gets a new segment within 1.5 target durations (needs fetch times).
        case stale = "6.2.1-stale"
        /// EXT-X-MEDIA-SEQUENCE is present once segments are removed, grows by one per removed segment, never decreases.
        case mediaSequence = "6.2.2-media-sequence"
        /// Segments leave in the order they appear: never from the end while earlier ones stay.
        case removalOrder = "6.2.2-removal-order"
        /// EXT-X-DISCONTINUITY-SEQUENCE never decreases and is present once segments are removed from a playlist with EXT-X-DISCONTINUITY.
        case discontinuitySequence = "6.2.2-discontinuity-sequence"
        /// A segment's discontinuity sequence number never changes across refreshes.
        case discontinuityNumber = "6.2.2-discontinuity-number"
        /// Removing segments never leaves a playlist without EXT-X-ENDLIST shorter than three target durations.
        case window = "6.2.2-window"
        /// The first playlist seen, starting past media sequence 0 (so segments were removed), is not shorter than three target durations.
        case windowFirst = "6.2.2-window-first"
        // Between the media playlists of one presentation (§6.2.4)
        /// The media playlists of a presentation have one target duration (I-frame VOD playlists excepted).
        case variantTargetDuration = "6.2.4-target-duration"
        /// If one media playlist of a presentation has EXT-X-PLAYLIST-TYPE, all have it with the same value.
        case variantPlaylistType = "6.2.4-playlist-type"
        /// The variants carry the same date ranges with the same attributes.
        case variantDateRanges = "6.2.4-date-ranges"
        /// Matching content has matching discontinuity sequence numbers: complete variants start and end on the same ones.
        case variantDiscontinuities = "6.2.4-discontinuities"
        // The checker's own use
        /// An allowance names a rule the checker has.
        case unknownAllowance = "allowance-unknown-rule"

        /// The section of RFC 8216 (or of its second edition, draft-pantos-hls-rfc8216bis, for
        /// the tags it added) that states the rule.
        public var section: String {
            switch self {
            case .gap: return "8216bis 4.4.4.7"
            case .unknownAllowance: return "-"
            case .vodEndList: return "6.2.1, 4.3.3.5"
            case .dateRangeSameID: return "4.3.2.7, 6.2.1"
            case .versionCompatibility: return "7"
            default:
                let id = rawValue
                return String(id[..<(id.firstIndex(of: "-") ?? id.endIndex)])
            }
        }

        /// What the rule requires, in one line.
        public var summary: String {
            switch self {
            case .encoding: return "UTF-8 without a BOM, no control characters but CR LF, NFC"
            case .whitespace: return "no whitespace except in quoted-strings and the EXTINF title"
            case .uri: return "a URI line is a URI: no characters RFC 3986 does not allow"
            case .tagSyntax: return "a tag is #EXT, a name of [A-Z0-9-], and an optional non-empty :value with balanced quotes (unknown tags too)"
            case .kind: return "a playlist is a media or a multivariant playlist, never both kinds of tags"
            case .attributeList: return "attribute-lists follow §4.2: NAME=VALUE pairs, comma-separated"
            case .duplicateAttribute: return "an AttributeName appears at most once in an attribute-list"
            case .extm3u: return "#EXTM3U is the first line"
            case .version: return "EXT-X-VERSION is a decimal-integer, at most once"
            case .versionCompatibility: return "EXT-X-VERSION is at least what §7 requires for the tags and attributes used"
            case .onceInPlaylist: return "EXT-X-INDEPENDENT-SEGMENTS and EXT-X-START appear at most once"
            case .independentSegments: return "EXT-X-INDEPENDENT-SEGMENTS has no value"
            case .start: return "EXT-X-START has a signed-decimal-floating-point TIME-OFFSET and PRECISE YES or NO"
            case .segment: return "a segment's tags are followed by its URI line"
            case .extinf: return "EXTINF is <decimal duration>,[title], one per segment; integers below version 3"
            case .extinfRequired: return "every media segment URI has an EXTINF"
            case .byteRange: return "EXT-X-BYTERANGE is n[@o]; without o it follows a sub-range of the same resource"
            case .discontinuity: return "EXT-X-DISCONTINUITY has no value"
            case .key: return "EXT-X-KEY: METHOD NONE|AES-128|SAMPLE-AES; NONE alone; URI unless NONE; IV 128-bit hex; KEYFORMAT(VERSIONS) quoted"
            case .map: return "EXT-X-MAP has a quoted URI, an optional quoted BYTERANGE, and an IV on an AES-128 key that applies to it"
            case .programDateTime: return "EXT-X-PROGRAM-DATE-TIME is an ISO 8601 date-time"
            case .timeZone: return "dates name their time zone (a SHOULD of §4.3.2.6, enforced: a zoneless date is read as local time)"
            case .dateRange: return "EXT-X-DATERANGE has a quoted ID and START-DATE and attributes of their types"
            case .dateRangeEndDate: return "END-DATE is not before START-DATE"
            case .dateRangeDuration: return "END-DATE equals START-DATE plus DURATION when both are present (1 ms tolerance)"
            case .dateRangeEndOnNext: return "END-ON-NEXT=YES needs a CLASS and forbids DURATION and END-DATE"
            case .dateRangeClassOverlap: return "date ranges of a CLASS that uses END-ON-NEXT do not overlap"
            case .dateRangeNeedsProgramDateTime: return "a playlist with EXT-X-DATERANGE has an EXT-X-PROGRAM-DATE-TIME"
            case .dateRangeSameID: return "date ranges with one ID agree on every attribute they share, in a playlist and across its refreshes"
            case .scte35: return "SCTE35-CMD, SCTE35-OUT and SCTE35-IN are hexadecimal-sequences"
            case .gap: return "EXT-X-GAP has no value"
            case .onceInMediaPlaylist: return "each media playlist tag appears at most once"
            case .targetDuration: return "EXT-X-TARGETDURATION is present, a decimal-integer"
            case .extinfExceedsTarget: return "every EXTINF rounded to the nearest integer is at most the target duration"
            case .mediaSequenceTag: return "EXT-X-MEDIA-SEQUENCE is a decimal-integer before the first segment"
            case .discontinuitySequenceTag: return "EXT-X-DISCONTINUITY-SEQUENCE is a decimal-integer before the first segment and any EXT-X-DISCONTINUITY"
            case .endList: return "EXT-X-ENDLIST has no value"
            case .playlistType: return "EXT-X-PLAYLIST-TYPE is EVENT or VOD"
            case .iFramesOnly: return "EXT-X-I-FRAMES-ONLY has no value"
            case .vodEndList: return "a VOD playlist, which cannot change, holds the final segment and so has EXT-X-ENDLIST"
            case .media: return "EXT-X-MEDIA: TYPE, GROUP-ID, NAME; INSTREAM-ID exactly for CLOSED-CAPTIONS; URI for SUBTITLES, none for CLOSED-CAPTIONS; FORCED only for SUBTITLES; DEFAULT=YES with AUTOSELECT=YES"
            case .renditionGroup: return "a rendition group has distinct NAMEs and at most one DEFAULT=YES"
            case .streamInf: return "EXT-X-STREAM-INF has BANDWIDTH and attributes of their types"
            case .streamInfURI: return "EXT-X-STREAM-INF is followed by a URI line, and every URI line of a multivariant playlist follows one"
            case .groupReference: return "AUDIO, VIDEO, SUBTITLES and CLOSED-CAPTIONS name an EXT-X-MEDIA group of that TYPE"
            case .closedCaptionsNone: return "CLOSED-CAPTIONS=NONE on one EXT-X-STREAM-INF means NONE on all"
            case .iFrameStreamInf: return "EXT-X-I-FRAME-STREAM-INF has BANDWIDTH and URI"
            case .sessionData: return "EXT-X-SESSION-DATA has DATA-ID and VALUE or URI (not both); DATA-ID with LANGUAGE unique"
            case .sessionKey: return "EXT-X-SESSION-KEY: METHOD not NONE, a URI, no duplicate"
            case .segmentURI: return "a segment keeps its URI in every refresh (its media sequence number names it)"
            case .segmentDuration: return "a segment keeps its EXTINF duration in every refresh"
            case .segmentByteRange: return "a segment keeps its byte range in every refresh"
            case .segmentTags: return "the tags applying to a kept segment, its EXT-X-KEY and EXT-X-MAP included, do not change or go (but EXT-X-DISCONTINUITY and tags RFC 8216 does not define before a segment that became first)"
            case .insertedTag: return "no tag is inserted before a published segment: lines are only appended (a segment that became first keeps only tags of earlier lines)"
            case .header: return "playlist-wide tags (version, type, I-frames, independent segments, start) do not change"
            case .targetDurationChanged: return "EXT-X-TARGETDURATION does not change"
            case .vodChanged: return "a playlist with EXT-X-PLAYLIST-TYPE:VOD never changes"
            case .eventChanged: return "a playlist with EXT-X-PLAYLIST-TYPE:EVENT only has lines appended"
            case .endListFinal: return "after EXT-X-ENDLIST no segment is added and the tag stays"
            case .dateRangeRemoved: return "an EXT-X-DATERANGE is not removed while a date of it maps to a segment of the playlist"
            case .stale: return "a playlist without EXT-X-ENDLIST gets a new segment within 1.5 target durations (needs fetch times)"
            case .mediaSequence: return "EXT-X-MEDIA-SEQUENCE is present once segments are removed, grows by one per removed segment, never decreases"
            case .removalOrder: return "segments leave in the order they appear: never from the end while earlier ones stay"
            case .discontinuitySequence: return "EXT-X-DISCONTINUITY-SEQUENCE never decreases and is present once segments are removed from a playlist with EXT-X-DISCONTINUITY"
            case .discontinuityNumber: return "a segment's discontinuity sequence number never changes across refreshes"
            case .window: return "removing segments never leaves a playlist without EXT-X-ENDLIST shorter than three target durations"
            case .windowFirst: return "the first playlist seen, starting past media sequence 0 (so segments were removed), is not shorter than three target durations"
            case .variantTargetDuration: return "the media playlists of a presentation have one target duration (I-frame VOD playlists excepted)"
            case .variantPlaylistType: return "if one media playlist of a presentation has EXT-X-PLAYLIST-TYPE, all have it with the same value"
            case .variantDateRanges: return "the variants carry the same date ranges with the same attributes"
            case .variantDiscontinuities: return "matching content has matching discontinuity sequence numbers: complete variants start and end on the same ones"
            case .unknownAllowance: return "an allowance names a rule the checker has"
            }
        }
    }
}
