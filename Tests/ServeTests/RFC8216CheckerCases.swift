import TestSupport
import Testing

/// The playlists the RFC 8216 checker is tested on: well-formed ones written by hand (in the
/// shapes of the RFC's §8 examples, Apple's authoring examples and MediaTailor's and Elemental's
/// documented output), and, for every rule, at least one that breaks it.
enum RFC8216Cases {
    /// A playlist from its lines: `#EXTM3U` first, each line ended by LF.
    static func playlist(_ lines: [String]) -> String { (["#EXTM3U"] + lines).joined(separator: "\n") + "\n" }
    /// EXTINF and URI pairs of segments `sN.ts` for `numbers`, each `seconds` long.
    static func segments(_ numbers: Range<Int>, _ seconds: String = "6.000") -> [String] {
        numbers.flatMap { ["#EXTINF:\(seconds),", "s\($0).ts"] }
    }
    static let header = ["#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:6"]
    /// A finished (VOD-like) playlist: the header, the body, EXT-X-ENDLIST.
    static func vod(_ body: [String] = segments(0..<2), header: [String] = header) -> String {
        playlist(header + body + ["#EXT-X-ENDLIST"])
    }
    /// A live playlist starting at media sequence `sequence`.
    static func live(_ sequence: Int, _ body: [String], header: [String] = header, extra: [String] = []) -> String {
        playlist(header + ["#EXT-X-MEDIA-SEQUENCE:\(sequence)"] + extra + body)
    }
    static let pdt = "#EXT-X-PROGRAM-DATE-TIME:2024-05-01T12:00:00.000Z"
    /// A multivariant playlist of one variant and the given lines before it.
    static func multivariant(_ lines: [String], variant: String = "#EXT-X-STREAM-INF:BANDWIDTH=1280000,CODECS=\"avc1.4d401e,mp4a.40.2\"") -> String {
        playlist(lines + [variant, "low.m3u8"])
    }

    // MARK: - Well formed

    /// Media playlists that break no rule.
    static let wellFormedMedia: [(name: String, text: String)] = [
        ("RFC 8216 §8.1 simple", playlist(["#EXT-X-TARGETDURATION:10", "#EXT-X-VERSION:3",
            "#EXTINF:9.009,", "http://media.example.com/first.ts", "#EXTINF:9.009,", "http://media.example.com/second.ts",
            "#EXTINF:3.003,", "http://media.example.com/third.ts", "#EXT-X-ENDLIST"])),
        ("RFC 8216 §8.2 live over HTTPS", playlist(["#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:8", "#EXT-X-MEDIA-SEQUENCE:2680",
            "#EXTINF:7.975,", "https://priv.example.com/fileSequence2680.ts", "#EXTINF:7.941,",
            "https://priv.example.com/fileSequence2681.ts", "#EXTINF:7.975,", "https://priv.example.com/fileSequence2682.ts"])),
        ("RFC 8216 §8.3 encrypted", playlist(["#EXT-X-VERSION:3", "#EXT-X-MEDIA-SEQUENCE:7794", "#EXT-X-TARGETDURATION:15",
            "#EXT-X-KEY:METHOD=AES-128,URI=\"https://priv.example.com/key.php?r=52\"",
            "#EXTINF:2.833,", "http://media.example.com/fileSequence52-A.ts", "#EXTINF:15.0,", "http://media.example.com/fileSequence52-B.ts",
            "#EXTINF:13.333,", "http://media.example.com/fileSequence52-C.ts",
            "#EXT-X-KEY:METHOD=AES-128,URI=\"https://priv.example.com/key.php?r=53\"",
            "#EXTINF:15.0,", "http://media.example.com/fileSequence53-A.ts"])),
        ("integer durations at version 1, CRLF line ends, a comment", "#EXTM3U\r\n#EXT-X-TARGETDURATION:10\r\n# a comment, ignored\r\n#EXTINF:10,First title, with comma\r\nfirst.ts\r\n\r\n#EXTINF:9,\r\nsecond.ts\r\n#EXT-X-ENDLIST\r\n"),
        ("6.499 s rounds to the target 6", vod(["#EXTINF:6.499,", "a.ts", "#EXTINF:5.5,", "b.ts"])),
        ("Apple fMP4 VOD with byte ranges", playlist(["#EXT-X-TARGETDURATION:6", "#EXT-X-VERSION:7", "#EXT-X-MEDIA-SEQUENCE:1",
            "#EXT-X-PLAYLIST-TYPE:VOD", "#EXT-X-INDEPENDENT-SEGMENTS", "#EXT-X-MAP:URI=\"main.mp4\",BYTERANGE=\"718@0\"",
            "#EXTINF:6.00000,", "#EXT-X-BYTERANGE:1508000@718", "main.mp4", "#EXTINF:6.00000,", "#EXT-X-BYTERANGE:1470000", "main.mp4",
            "#EXTINF:6.00000,", "#EXT-X-BYTERANGE:1496000", "main.mp4", "#EXT-X-ENDLIST"])),
        ("Apple I-frame playlist", playlist(["#EXT-X-TARGETDURATION:6", "#EXT-X-VERSION:5", "#EXT-X-MEDIA-SEQUENCE:0",
            "#EXT-X-PLAYLIST-TYPE:VOD", "#EXT-X-I-FRAMES-ONLY", "#EXT-X-MAP:URI=\"main.mp4\",BYTERANGE=\"718@0\"",
            "#EXTINF:2.002,", "#EXT-X-BYTERANGE:9200@1100", "main.mp4", "#EXTINF:2.002,", "#EXT-X-BYTERANGE:9100@376000", "main.mp4",
            "#EXT-X-ENDLIST"])),
        ("keys with IV and KEYFORMAT at version 5, then unencrypted", playlist(["#EXT-X-VERSION:5", "#EXT-X-TARGETDURATION:10",
            "#EXT-X-KEY:METHOD=AES-128,URI=\"https://priv.example.com/k1\",IV=0x9C7DB8778570D05C3177C349FD9236AA,KEYFORMAT=\"identity\",KEYFORMATVERSIONS=\"1/2\"",
            "#EXTINF:10.0,", "a.ts", "#EXT-X-KEY:METHOD=NONE", "#EXTINF:10.0,", "b.ts", "#EXT-X-ENDLIST"])),
        ("MediaTailor personalized live with ads", playlist(["#EXT-X-VERSION:6", "#EXT-X-TARGETDURATION:7",
            "#EXT-X-MEDIA-SEQUENCE:8779957", "#EXT-X-DISCONTINUITY-SEQUENCE:0",
            "#EXTINF:6.006,", "https://origin.example/live/index_1_8779957.ts?m=1566416212",
            "#EXTINF:6.006,", "https://origin.example/live/index_1_8779958.ts?m=1566416212",
            "#EXT-X-DISCONTINUITY", "#EXTINF:6.006,", "https://cdn.example/tm/94063eadf7d8c56e9e2edd84fdf897826a70d0df/fragment_1.ts",
            "#EXTINF:6.006,", "https://cdn.example/tm/94063eadf7d8c56e9e2edd84fdf897826a70d0df/fragment_2.ts",
            "#EXT-X-DISCONTINUITY", "#EXTINF:6.006,", "https://origin.example/live/index_1_8779961.ts?m=1566416212"])),
        ("Elemental, Adobe and SCTE-35 cue tags (not RFC tags: ignored, well formed)", playlist(["#EXT-X-VERSION:3",
            "#EXT-X-TARGETDURATION:7", "#EXT-X-MEDIA-SEQUENCE:409", pdt, "#EXTINF:6.006,", "seg409.ts",
            "#EXT-X-CUE-OUT:30.000", "#EXT-X-CUE:DURATION=\"201.467\",ID=\"0\",TYPE=\"SpliceOut\",TIME=\"414.171\"",
            "#EXT-OATCLS-SCTE35:/DAlAAAAAAAAAP/wFAUAAAABf+/+ANgNkv4AFJlwAAEBAQAAXKtJtw==",
            "#EXT-X-ASSET:GENRE=CV,CAID=12345678,EPISODE=\"Episode%20Name%20Date\"",
            "#EXTINF:6.006,", "seg410.ts", "#EXT-X-CUE-OUT-CONT:ElapsedTime=6.006,Duration=30.000", "#EXTINF:6.006,", "seg411.ts",
            "#EXT-X-CUE-OUT-CONT:12.012/30", "#EXTINF:6.006,", "seg412.ts", "#EXT-X-CUE-IN", "#EXTINF:6.006,", "seg413.ts"])),
        ("SCTE-35 out and in date ranges of one ID (RFC §8.10's shape, START-DATE on both)", playlist(["#EXT-X-VERSION:3",
            "#EXT-X-TARGETDURATION:6", "#EXT-X-PROGRAM-DATE-TIME:2014-03-05T11:14:48.000Z", "#EXTINF:6.000,", "a.ts", "#EXTINF:6.000,", "b.ts",
            "#EXT-X-DATERANGE:ID=\"splice-6FFFFFF0\",START-DATE=\"2014-03-05T11:15:00Z\",PLANNED-DURATION=59.993,SCTE35-OUT=0xFC002F0000000000FF000014056FFFFFF000E011622DCAFF000052636200000000000A0008029896F50000008700000000",
            "#EXT-X-DISCONTINUITY", "#EXTINF:6.000,", "ad.ts",
            "#EXT-X-DATERANGE:ID=\"splice-6FFFFFF0\",START-DATE=\"2014-03-05T11:15:00Z\",END-DATE=\"2014-03-05T11:15:59.993Z\",DURATION=59.993,SCTE35-IN=0xFC002A0000000000FF00000F056FFFFFF000401162802E6100000000000A0008029896F50000008700000000",
            "#EXT-X-DISCONTINUITY", "#EXTINF:6.000,", "c.ts", "#EXT-X-ENDLIST"])),
        ("Apple interstitials and END-ON-NEXT ranges", playlist(["#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:6",
            "#EXT-X-PROGRAM-DATE-TIME:2020-01-02T21:55:40.000+01:00",
            "#EXT-X-DATERANGE:ID=\"ad1\",CLASS=\"com.apple.hls.interstitial\",START-DATE=\"2020-01-02T21:55:44.000+01:00\",DURATION=15.000,X-ASSET-URI=\"http://example.com/ad1.m3u8\",X-RESUME-OFFSET=0,X-RESTRICT=\"SKIP,JUMP\"",
            "#EXT-X-DATERANGE:ID=\"ch1\",CLASS=\"com.example.chapter\",START-DATE=\"2020-01-02T20:55:40Z\",END-ON-NEXT=YES",
            "#EXT-X-DATERANGE:ID=\"ch2\",CLASS=\"com.example.chapter\",START-DATE=\"2020-01-02T20:55:46Z\",END-ON-NEXT=YES,X-COM-EXAMPLE-ID=0x1F",
            "#EXTINF:6.000,", "a.ts", "#EXT-X-GAP", "#EXTINF:6.000,", "b.ts", "#EXT-X-ENDLIST"])),
        ("EVENT playlist in progress, with a start point", playlist(["#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:6",
            "#EXT-X-PLAYLIST-TYPE:EVENT", "#EXT-X-START:TIME-OFFSET=-12.5,PRECISE=YES"] + segments(0..<3))),
    ]

    /// Multivariant playlists that break no rule.
    static let wellFormedMultivariant: [(name: String, text: String)] = [
        ("RFC 8216 §8.4", playlist(["#EXT-X-STREAM-INF:BANDWIDTH=1280000,AVERAGE-BANDWIDTH=1000000", "http://example.com/low.m3u8",
            "#EXT-X-STREAM-INF:BANDWIDTH=2560000,AVERAGE-BANDWIDTH=2000000", "http://example.com/mid.m3u8",
            "#EXT-X-STREAM-INF:BANDWIDTH=65000,CODECS=\"mp4a.40.5\"", "http://example.com/audio-only.m3u8"])),
        ("RFC 8216 §8.5 with I-frames", playlist(["#EXT-X-STREAM-INF:BANDWIDTH=1280000", "low/audio-video.m3u8",
            "#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=86000,URI=\"low/iframe.m3u8\"", "#EXT-X-STREAM-INF:BANDWIDTH=2560000",
            "mid/audio-video.m3u8", "#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=150000,URI=\"mid/iframe.m3u8\""])),
        ("RFC 8216 §8.6 alternative audio", playlist([
            "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aac\",NAME=\"English\",DEFAULT=YES,AUTOSELECT=YES,LANGUAGE=\"en\",URI=\"main/english-audio.m3u8\"",
            "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aac\",NAME=\"Deutsch\",DEFAULT=NO,AUTOSELECT=YES,LANGUAGE=\"de\",URI=\"main/german-audio.m3u8\"",
            "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aac\",NAME=\"Commentary\",DEFAULT=NO,AUTOSELECT=NO,LANGUAGE=\"en\",URI=\"commentary/audio-only.m3u8\"",
            "#EXT-X-STREAM-INF:BANDWIDTH=1280000,CODECS=\"avc1.4d401e,mp4a.40.2\",AUDIO=\"aac\"", "low/video-only.m3u8",
            "#EXT-X-STREAM-INF:BANDWIDTH=65000,CODECS=\"mp4a.40.5\",AUDIO=\"aac\"", "main/english-audio.m3u8"])),
        ("RFC 8216 §8.7 alternative video", playlist([
            "#EXT-X-MEDIA:TYPE=VIDEO,GROUP-ID=\"low\",NAME=\"Main\",DEFAULT=YES,URI=\"low/main/audio-video.m3u8\"",
            "#EXT-X-MEDIA:TYPE=VIDEO,GROUP-ID=\"low\",NAME=\"Centerfield\",DEFAULT=NO,URI=\"low/centerfield/audio-video.m3u8\"",
            "#EXT-X-STREAM-INF:BANDWIDTH=1280000,CODECS=\"avc1.4d401e,mp4a.40.2\",VIDEO=\"low\"", "low/main/audio-video.m3u8",
            "#EXT-X-MEDIA:TYPE=VIDEO,GROUP-ID=\"mid\",NAME=\"Main\",DEFAULT=YES,URI=\"mid/main/audio-video.m3u8\"",
            "#EXT-X-MEDIA:TYPE=VIDEO,GROUP-ID=\"mid\",NAME=\"Centerfield\",DEFAULT=NO,URI=\"mid/centerfield/audio-video.m3u8\"",
            "#EXT-X-STREAM-INF:BANDWIDTH=2560000,CODECS=\"avc1.4d401e,mp4a.40.2\",VIDEO=\"mid\"", "mid/main/audio-video.m3u8"])),
        ("RFC 8216 §8.8 session data", playlist(["#EXT-X-SESSION-DATA:DATA-ID=\"com.example.lyrics\",URI=\"lyrics.json\"",
            "#EXT-X-SESSION-DATA:DATA-ID=\"com.example.title\",LANGUAGE=\"en\",VALUE=\"This is an example\"",
            "#EXT-X-SESSION-DATA:DATA-ID=\"com.example.title\",LANGUAGE=\"es\",VALUE=\"Este es un ejemplo\"",
            "#EXT-X-STREAM-INF:BANDWIDTH=1280000", "low.m3u8"])),
        ("MediaTailor's origin multivariant", playlist(["#EXT-X-VERSION:3", "#EXT-X-INDEPENDENT-SEGMENTS",
            "#EXT-X-STREAM-INF:BANDWIDTH=2665726,AVERAGE-BANDWIDTH=2526299,RESOLUTION=960x540,FRAME-RATE=29.970,CODECS=\"avc1.640029,mp4a.40.2\",SUBTITLES=\"subtitles\"",
            "index_1.m3u8",
            "#EXT-X-STREAM-INF:BANDWIDTH=995315,AVERAGE-BANDWIDTH=951107,RESOLUTION=640x360,FRAME-RATE=29.970,CODECS=\"avc1.4D401E,mp4a.40.2\",SUBTITLES=\"subtitles\"",
            "index_3.m3u8",
            "#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"subtitles\",NAME=\"caption_1\",DEFAULT=YES,AUTOSELECT=YES,FORCED=NO,LANGUAGE=\"eng\",URI=\"index_4_0.m3u8\""])),
        ("Apple authoring: audio, subtitles, captions, session data and key, I-frames", playlist(["#EXT-X-VERSION:7",
            "#EXT-X-INDEPENDENT-SEGMENTS", "#EXT-X-SESSION-DATA:DATA-ID=\"com.example.title\",LANGUAGE=\"fr\",VALUE=\"Un exemple français\"",
            "#EXT-X-SESSION-KEY:METHOD=SAMPLE-AES,URI=\"skd://key1\",KEYFORMAT=\"com.apple.streamingkeydelivery\",KEYFORMATVERSIONS=\"1\"",
            "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aud1\",LANGUAGE=\"en\",NAME=\"English\",AUTOSELECT=YES,DEFAULT=YES,CHANNELS=\"2\",URI=\"a1/prog_index.m3u8\"",
            "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aud1\",LANGUAGE=\"fr\",NAME=\"Français\",AUTOSELECT=YES,DEFAULT=NO,CHANNELS=\"2\",URI=\"a2/prog_index.m3u8\"",
            "#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"sub1\",NAME=\"English\",LANGUAGE=\"en\",DEFAULT=YES,AUTOSELECT=YES,FORCED=NO,URI=\"s1/en/prog_index.m3u8\"",
            "#EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID=\"cc1\",NAME=\"English\",LANGUAGE=\"en\",DEFAULT=YES,AUTOSELECT=YES,INSTREAM-ID=\"CC1\"",
            "#EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID=\"cc1\",NAME=\"English 708\",LANGUAGE=\"en\",INSTREAM-ID=\"SERVICE1\"",
            "#EXT-X-STREAM-INF:AVERAGE-BANDWIDTH=2168183,BANDWIDTH=2177116,CODECS=\"avc1.640020,mp4a.40.2\",RESOLUTION=960x540,FRAME-RATE=60.000,HDCP-LEVEL=NONE,CLOSED-CAPTIONS=\"cc1\",AUDIO=\"aud1\",SUBTITLES=\"sub1\"",
            "v5/prog_index.m3u8",
            "#EXT-X-I-FRAME-STREAM-INF:AVERAGE-BANDWIDTH=183689,BANDWIDTH=187492,CODECS=\"avc1.64002a\",RESOLUTION=1920x1080,URI=\"v7/iframe_index.m3u8\""])),
        ("two encodings of one audio group", playlist([
            "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aac\",NAME=\"English\",LANGUAGE=\"en\",DEFAULT=YES,AUTOSELECT=YES,CHANNELS=\"2\",URI=\"aac/en.m3u8\"",
            "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"ec3\",NAME=\"English\",LANGUAGE=\"en\",DEFAULT=YES,AUTOSELECT=YES,CHANNELS=\"6\",URI=\"ec3/en.m3u8\"",
            "#EXT-X-STREAM-INF:BANDWIDTH=1280000,CODECS=\"avc1.4d401e,mp4a.40.2\",AUDIO=\"aac\"", "v1/aac.m3u8",
            "#EXT-X-STREAM-INF:BANDWIDTH=1680000,CODECS=\"avc1.4d401e,ec-3\",AUDIO=\"ec3\"", "v1/ec3.m3u8"])),
        ("captions NONE everywhere", playlist(["#EXT-X-STREAM-INF:BANDWIDTH=1280000,CLOSED-CAPTIONS=NONE", "low.m3u8",
            "#EXT-X-STREAM-INF:BANDWIDTH=2560000,CLOSED-CAPTIONS=NONE", "mid.m3u8"])),
    ]

    // MARK: - Broken, one playlist

    /// A playlist that breaks `rule` (and only the `also` rules besides).
    struct Broken: Sendable, CustomTestStringConvertible {
        let rule: RFC8216.Rule
        let note: String
        let kind: RFC8216.Kind
        let text: String
        var also: [RFC8216.Rule] = []
        var testDescription: String { "\(rule.rawValue): \(note)" }

        init(_ rule: RFC8216.Rule, _ note: String, _ text: String, kind: RFC8216.Kind = .media, also: [RFC8216.Rule] = []) {
            self.rule = rule; self.note = note; self.text = text; self.kind = kind; self.also = also
        }
    }

    static let S = segments(0..<2)
    static let brokenMedia: [Broken] = [
        Broken(.encoding, "a control character in a comment", vod(["# note\u{01}"] + S)),
        Broken(.encoding, "a byte order mark", "\u{FEFF}" + vod()),
        Broken(.encoding, "not NFC", vod(["#EXT-X-DATERANGE:ID=\"Cafe\u{0301}\",START-DATE=\"2024-05-01T12:00:00Z\"", pdt] + S)),
        Broken(.whitespace, "a space in a URI line", vod(["#EXTINF:6.000,", "s 0.ts"])),
        Broken(.whitespace, "a space in a tag outside quotes", vod(["#EXT-X-CUE-OUT: 30"] + S)),
        Broken(.whitespace, "a line of spaces", vod(["   "] + S)),
        Broken(.uri, "a character RFC 3986 does not allow", vod(["#EXTINF:6.000,", "s0|x.ts"])),
        Broken(.tagSyntax, "a lower-case tag name", vod(["#EXT-X-cue-in"] + S)),
        Broken(.tagSyntax, "a colon without a value", vod(["#EXT-X-CUE-OUT:"] + S)),
        Broken(.tagSyntax, "an unpaired quote in an unknown tag", vod(["#EXT-X-ASSET:CAID=\"12"] + S)),
        Broken(.kind, "a multivariant tag in a media playlist", vod(["#EXT-X-SESSION-DATA:DATA-ID=\"a\",VALUE=\"b\""] + S)),
        Broken(.attributeList, "a trailing comma", vod(["#EXT-X-KEY:METHOD=NONE,"] + S)),
        Broken(.attributeList, "a lower-case AttributeName", vod(["#EXT-X-KEY:method=NONE"] + S)),
        Broken(.duplicateAttribute, "METHOD twice", vod(["#EXT-X-KEY:METHOD=NONE,METHOD=NONE"] + S)),
        Broken(.extm3u, "no #EXTM3U", String(vod().dropFirst("#EXTM3U\n".count))),
        Broken(.extm3u, "a blank line before #EXTM3U", "\n" + vod()),
        Broken(.version, "two EXT-X-VERSION", vod(header: header + ["#EXT-X-VERSION:3"])),
        Broken(.version, "not a number", vod(header: ["#EXT-X-VERSION:three", "#EXT-X-TARGETDURATION:6"])),
        Broken(.versionCompatibility, "floating-point EXTINF at version 2", vod(header: ["#EXT-X-VERSION:2", "#EXT-X-TARGETDURATION:6"])),
        Broken(.versionCompatibility, "EXT-X-MAP at version 5 without I-frames", vod(["#EXT-X-MAP:URI=\"init.mp4\""] + S,
            header: ["#EXT-X-VERSION:5", "#EXT-X-TARGETDURATION:6"])),
        Broken(.versionCompatibility, "EXT-X-BYTERANGE at version 3", vod(["#EXTINF:6.000,", "#EXT-X-BYTERANGE:100@0", "a.ts"])),
        Broken(.versionCompatibility, "IV without EXT-X-VERSION", vod(["#EXT-X-KEY:METHOD=AES-128,URI=\"k\",IV=0x1", "#EXTINF:6,", "a.ts"],
            header: ["#EXT-X-TARGETDURATION:6"])),
        Broken(.onceInPlaylist, "EXT-X-INDEPENDENT-SEGMENTS twice", vod(header: header + ["#EXT-X-INDEPENDENT-SEGMENTS", "#EXT-X-INDEPENDENT-SEGMENTS"])),
        Broken(.independentSegments, "a value", vod(header: header + ["#EXT-X-INDEPENDENT-SEGMENTS:YES"])),
        Broken(.start, "no TIME-OFFSET", vod(header: header + ["#EXT-X-START:PRECISE=YES"])),
        Broken(.start, "TIME-OFFSET not a number", vod(header: header + ["#EXT-X-START:TIME-OFFSET=ten"])),
        Broken(.segment, "EXTINF without a URI after it", live(0, segments(0..<3) + ["#EXTINF:6.000,"])),
        Broken(.extinf, "no comma", vod(["#EXTINF:6.000", "a.ts"])),
        Broken(.extinf, "a negative duration", vod(["#EXTINF:-1,", "a.ts"])),
        Broken(.extinf, "two EXTINF before one URI", vod(["#EXTINF:6.000,", "#EXTINF:6.000,", "a.ts"])),
        Broken(.extinfRequired, "a URI without EXTINF", vod(S + ["s2.ts"])),
        Broken(.byteRange, "no offset on the first segment", vod(["#EXTINF:6.000,", "#EXT-X-BYTERANGE:1000", "a.ts"],
            header: ["#EXT-X-VERSION:4", "#EXT-X-TARGETDURATION:6"])),
        Broken(.byteRange, "no offset after another resource's range", vod(["#EXTINF:6.000,", "#EXT-X-BYTERANGE:1000@0", "a.ts",
            "#EXTINF:6.000,", "#EXT-X-BYTERANGE:1000", "b.ts"], header: ["#EXT-X-VERSION:4", "#EXT-X-TARGETDURATION:6"])),
        Broken(.discontinuity, "a value", vod(S + ["#EXT-X-DISCONTINUITY:1", "#EXTINF:6.000,", "s2.ts"])),
        Broken(.key, "AES-128 without URI", vod(["#EXT-X-KEY:METHOD=AES-128"] + S)),
        Broken(.key, "NONE with a URI", vod(["#EXT-X-KEY:METHOD=NONE,URI=\"k\""] + S)),
        Broken(.key, "a lower-case IV", vod(["#EXT-X-KEY:METHOD=AES-128,URI=\"k\",IV=0xabc"] + S)),
        Broken(.key, "an unknown METHOD", vod(["#EXT-X-KEY:METHOD=AES-256,URI=\"k\""] + S)),
        Broken(.key, "KEYFORMATVERSIONS not integers", vod(["#EXT-X-KEY:METHOD=AES-128,URI=\"k\",KEYFORMATVERSIONS=\"1/x\""] + S,
            header: ["#EXT-X-VERSION:5", "#EXT-X-TARGETDURATION:6"])),
        Broken(.map, "no URI", vod(["#EXT-X-MAP:BYTERANGE=\"100@0\""] + S, header: ["#EXT-X-VERSION:6", "#EXT-X-TARGETDURATION:6"])),
        Broken(.map, "an AES-128 key without IV applies to it", vod(["#EXT-X-KEY:METHOD=AES-128,URI=\"k\"", "#EXT-X-MAP:URI=\"init.mp4\""] + S,
            header: ["#EXT-X-VERSION:6", "#EXT-X-TARGETDURATION:6"])),
        Broken(.programDateTime, "30 February", vod(["#EXT-X-PROGRAM-DATE-TIME:2024-02-30T00:00:00Z"] + S)),
        Broken(.programDateTime, "no seconds", vod(["#EXT-X-PROGRAM-DATE-TIME:2024-02-03T10:00Z"] + S)),
        Broken(.timeZone, "a program date-time without a zone", vod(["#EXT-X-PROGRAM-DATE-TIME:2024-02-03T00:00:00.000"] + S)),
        Broken(.dateRange, "no START-DATE", vod([pdt, "#EXT-X-DATERANGE:ID=\"a\",DURATION=5"] + S)),
        Broken(.dateRange, "a negative DURATION", vod([pdt, "#EXT-X-DATERANGE:ID=\"a\",START-DATE=\"2024-05-01T12:00:00Z\",DURATION=-5"] + S)),
        Broken(.dateRange, "an X- attribute of no allowed type", vod([pdt, "#EXT-X-DATERANGE:ID=\"a\",START-DATE=\"2024-05-01T12:00:00Z\",X-AD=abc"] + S)),
        Broken(.dateRange, "an unquoted ID", vod([pdt, "#EXT-X-DATERANGE:ID=a,START-DATE=\"2024-05-01T12:00:00Z\""] + S)),
        Broken(.dateRangeEndDate, "END-DATE before START-DATE", vod([pdt,
            "#EXT-X-DATERANGE:ID=\"a\",START-DATE=\"2024-05-01T12:00:10Z\",END-DATE=\"2024-05-01T12:00:00Z\""] + S)),
        Broken(.dateRangeDuration, "DURATION 30 but END-DATE 20 s after", vod([pdt,
            "#EXT-X-DATERANGE:ID=\"a\",START-DATE=\"2024-05-01T12:00:00Z\",END-DATE=\"2024-05-01T12:00:20Z\",DURATION=30"] + S)),
        Broken(.dateRangeEndOnNext, "no CLASS", vod([pdt, "#EXT-X-DATERANGE:ID=\"a\",START-DATE=\"2024-05-01T12:00:00Z\",END-ON-NEXT=YES"] + S)),
        Broken(.dateRangeEndOnNext, "with DURATION", vod([pdt,
            "#EXT-X-DATERANGE:ID=\"a\",CLASS=\"c\",START-DATE=\"2024-05-01T12:00:00Z\",DURATION=5,END-ON-NEXT=YES"] + S)),
        Broken(.dateRangeClassOverlap, "a range of an END-ON-NEXT class overlapping the next", vod([pdt,
            "#EXT-X-DATERANGE:ID=\"a\",CLASS=\"c\",START-DATE=\"2024-05-01T12:00:00Z\",DURATION=30",
            "#EXT-X-DATERANGE:ID=\"b\",CLASS=\"c\",START-DATE=\"2024-05-01T12:00:10Z\",END-ON-NEXT=YES"] + S)),
        Broken(.dateRangeNeedsProgramDateTime, "no EXT-X-PROGRAM-DATE-TIME", vod(["#EXT-X-DATERANGE:ID=\"a\",START-DATE=\"2024-05-01T12:00:00Z\""] + S)),
        Broken(.dateRangeSameID, "one ID, two START-DATEs", vod([pdt, "#EXT-X-DATERANGE:ID=\"a\",START-DATE=\"2024-05-01T12:00:00Z\"",
            "#EXT-X-DATERANGE:ID=\"a\",START-DATE=\"2024-05-01T12:00:01Z\""] + S)),
        Broken(.scte35, "lower-case hex", vod([pdt, "#EXT-X-DATERANGE:ID=\"a\",START-DATE=\"2024-05-01T12:00:00Z\",SCTE35-OUT=0xfc30"] + S)),
        Broken(.scte35, "quoted", vod([pdt, "#EXT-X-DATERANGE:ID=\"a\",START-DATE=\"2024-05-01T12:00:00Z\",SCTE35-CMD=\"0xFC30\""] + S)),
        Broken(.gap, "a value", vod(["#EXT-X-GAP:YES"] + S)),
        Broken(.onceInMediaPlaylist, "two EXT-X-TARGETDURATION", vod(header: header + ["#EXT-X-TARGETDURATION:6"])),
        Broken(.onceInMediaPlaylist, "two EXT-X-ENDLIST", vod(S + ["#EXT-X-ENDLIST"])),
        Broken(.targetDuration, "none", vod(header: ["#EXT-X-VERSION:3"])),
        Broken(.targetDuration, "not an integer", vod(header: ["#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:6.5"])),
        Broken(.extinfExceedsTarget, "EXTINF 6.5 rounds to 7 over a target of 6", vod(["#EXTINF:6.000,", "a.ts", "#EXTINF:6.500,", "b.ts"])),
        Broken(.mediaSequenceTag, "after the first segment", live(0, ["#EXTINF:6.000,", "a.ts", "#EXT-X-MEDIA-SEQUENCE:1"] + S),
            also: [.onceInMediaPlaylist]),
        Broken(.mediaSequenceTag, "negative", vod(header: header + ["#EXT-X-MEDIA-SEQUENCE:-1"])),
        Broken(.discontinuitySequenceTag, "after an EXT-X-DISCONTINUITY", vod(["#EXT-X-DISCONTINUITY", "#EXT-X-DISCONTINUITY-SEQUENCE:2"] + S)),
        Broken(.discontinuitySequenceTag, "after the first segment", vod(S + ["#EXT-X-DISCONTINUITY-SEQUENCE:2", "#EXTINF:6.000,", "s2.ts"])),
        Broken(.endList, "a value", playlist(header + S + ["#EXT-X-ENDLIST:YES"])),
        Broken(.playlistType, "LIVE is no type", vod(header: header + ["#EXT-X-PLAYLIST-TYPE:LIVE"])),
        Broken(.iFramesOnly, "a value", vod(header: ["#EXT-X-VERSION:4", "#EXT-X-TARGETDURATION:6", "#EXT-X-I-FRAMES-ONLY:1"])),
        Broken(.vodEndList, "VOD without EXT-X-ENDLIST", live(0, S, extra: ["#EXT-X-PLAYLIST-TYPE:VOD"])),
    ]

    static let brokenMultivariant: [Broken] = [
        Broken(.kind, "a media playlist tag", multivariant(["#EXT-X-TARGETDURATION:6"]), kind: .multivariant),
        Broken(.kind, "a media segment tag", multivariant(["#EXTINF:6.000,"]), kind: .multivariant),
        Broken(.media, "CLOSED-CAPTIONS with a URI", multivariant(["#EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID=\"cc\",NAME=\"en\",INSTREAM-ID=\"CC1\",URI=\"cc.m3u8\""]), kind: .multivariant),
        Broken(.media, "CLOSED-CAPTIONS without INSTREAM-ID", multivariant(["#EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID=\"cc\",NAME=\"en\""]), kind: .multivariant),
        Broken(.media, "INSTREAM-ID CC5", multivariant(["#EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID=\"cc\",NAME=\"en\",INSTREAM-ID=\"CC5\""]), kind: .multivariant),
        Broken(.media, "SUBTITLES without URI", multivariant(["#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"s\",NAME=\"en\""]), kind: .multivariant),
        Broken(.media, "FORCED on AUDIO", multivariant(["#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"en\",FORCED=NO"]), kind: .multivariant),
        Broken(.media, "DEFAULT=YES with AUTOSELECT=NO", multivariant(["#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"en\",DEFAULT=YES,AUTOSELECT=NO"]), kind: .multivariant),
        Broken(.media, "no NAME", multivariant(["#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\""]), kind: .multivariant),
        Broken(.media, "INSTREAM-ID on AUDIO", multivariant(["#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"en\",INSTREAM-ID=\"CC1\""]), kind: .multivariant),
        Broken(.media, "an unknown TYPE", multivariant(["#EXT-X-MEDIA:TYPE=TEXT,GROUP-ID=\"a\",NAME=\"en\""]), kind: .multivariant),
        Broken(.renditionGroup, "one NAME twice in a group", multivariant(["#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"en\",URI=\"1.m3u8\"",
            "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"en\",URI=\"2.m3u8\""]), kind: .multivariant),
        Broken(.renditionGroup, "two DEFAULT=YES in a group", multivariant(["#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"en\",DEFAULT=YES,URI=\"1.m3u8\"",
            "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"fr\",DEFAULT=YES,URI=\"2.m3u8\""]), kind: .multivariant),
        Broken(.renditionGroup, "two AUDIO groups with other members", multivariant([
            "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aac\",NAME=\"en\",LANGUAGE=\"en\",URI=\"aac-en.m3u8\"",
            "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"ac3\",NAME=\"fr\",LANGUAGE=\"fr\",URI=\"ac3-fr.m3u8\""]), kind: .multivariant),
        Broken(.renditionGroup, "two AUDIO groups whose members differ in LANGUAGE", multivariant([
            "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aac\",NAME=\"main\",LANGUAGE=\"en\",CHANNELS=\"2\",URI=\"aac.m3u8\"",
            "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"ac3\",NAME=\"main\",LANGUAGE=\"fr\",CHANNELS=\"6\",URI=\"ac3.m3u8\""]), kind: .multivariant),
        Broken(.streamInf, "no BANDWIDTH", multivariant([], variant: "#EXT-X-STREAM-INF:AVERAGE-BANDWIDTH=1000"), kind: .multivariant),
        Broken(.streamInf, "RESOLUTION not WxH", multivariant([], variant: "#EXT-X-STREAM-INF:BANDWIDTH=1000,RESOLUTION=1280*720"), kind: .multivariant),
        Broken(.streamInf, "an empty codec in CODECS", multivariant([], variant: "#EXT-X-STREAM-INF:BANDWIDTH=1000,CODECS=\"avc1.4d401e,\""), kind: .multivariant),
        Broken(.streamInf, "a negative FRAME-RATE", multivariant([], variant: "#EXT-X-STREAM-INF:BANDWIDTH=1000,FRAME-RATE=-30"), kind: .multivariant),
        Broken(.streamInf, "HDCP-LEVEL TYPE-2", multivariant([], variant: "#EXT-X-STREAM-INF:BANDWIDTH=1000,HDCP-LEVEL=TYPE-2"), kind: .multivariant),
        Broken(.streamInfURI, "a tag after EXT-X-STREAM-INF", playlist(["#EXT-X-STREAM-INF:BANDWIDTH=1000", "#EXT-X-INDEPENDENT-SEGMENTS", "low.m3u8"]),
            kind: .multivariant),
        Broken(.streamInfURI, "EXT-X-STREAM-INF last", playlist(["#EXT-X-STREAM-INF:BANDWIDTH=1000", "low.m3u8", "#EXT-X-STREAM-INF:BANDWIDTH=2000"]),
            kind: .multivariant),
        Broken(.groupReference, "AUDIO names no group", multivariant([], variant: "#EXT-X-STREAM-INF:BANDWIDTH=1000,AUDIO=\"aud\""), kind: .multivariant),
        Broken(.groupReference, "AUDIO names a VIDEO group", multivariant(["#EXT-X-MEDIA:TYPE=VIDEO,GROUP-ID=\"aud\",NAME=\"main\""],
            variant: "#EXT-X-STREAM-INF:BANDWIDTH=1000,AUDIO=\"aud\""), kind: .multivariant),
        Broken(.groupReference, "an I-frame stream's VIDEO names no group", multivariant(["#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=100,VIDEO=\"v\",URI=\"i.m3u8\""]),
            kind: .multivariant),
        Broken(.closedCaptionsNone, "NONE on one variant only", playlist(["#EXT-X-STREAM-INF:BANDWIDTH=1000,CLOSED-CAPTIONS=NONE", "a.m3u8",
            "#EXT-X-STREAM-INF:BANDWIDTH=2000", "b.m3u8"]), kind: .multivariant),
        Broken(.iFrameStreamInf, "no URI", multivariant(["#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=100"]), kind: .multivariant),
        Broken(.sessionData, "VALUE and URI", multivariant(["#EXT-X-SESSION-DATA:DATA-ID=\"a\",VALUE=\"v\",URI=\"u.json\""]), kind: .multivariant),
        Broken(.sessionData, "one DATA-ID and LANGUAGE twice", multivariant(["#EXT-X-SESSION-DATA:DATA-ID=\"a\",VALUE=\"v\"",
            "#EXT-X-SESSION-DATA:DATA-ID=\"a\",VALUE=\"w\""]), kind: .multivariant),
        Broken(.sessionKey, "METHOD=NONE", multivariant(["#EXT-X-SESSION-KEY:METHOD=NONE"]), kind: .multivariant),
        Broken(.sessionKey, "the same key twice", multivariant(["#EXT-X-SESSION-KEY:METHOD=AES-128,URI=\"k\"",
            "#EXT-X-SESSION-KEY:METHOD=AES-128,URI=\"k\""]), kind: .multivariant),
        Broken(.versionCompatibility, "INSTREAM-ID SERVICE3 below version 7", multivariant(["#EXT-X-VERSION:6",
            "#EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID=\"cc\",NAME=\"en\",INSTREAM-ID=\"SERVICE3\""]), kind: .multivariant),
    ]

    // MARK: - Variants of one presentation

    /// Two renditions of one VOD presentation with an ad between discontinuities.
    static func variantPair(video: [String] = [], audio: [String] = []) -> [String] {
        let h = ["#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:6", "#EXT-X-PLAYLIST-TYPE:VOD", "#EXT-X-DISCONTINUITY-SEQUENCE:0", pdt]
        let ad = "#EXT-X-DATERANGE:ID=\"ad1\",CLASS=\"com.example.ad\",START-DATE=\"2024-05-01T12:00:06.000Z\",DURATION=6.000"
        func body(_ name: String, _ seconds: [String]) -> [String] {
            ["#EXTINF:\(seconds[0]),", "\(name)0.ts", ad, "#EXT-X-DISCONTINUITY", "#EXTINF:\(seconds[1]),", "\(name)-ad.ts",
             "#EXT-X-DISCONTINUITY", "#EXTINF:\(seconds[2]),", "\(name)1.ts", "#EXT-X-ENDLIST"]
        }
        return [playlist(h + video + body("v", ["6.000", "6.000", "6.000"])), playlist(h + audio + body("a", ["6.016", "5.995", "5.990"]))]
    }

    /// Variant sets that break `rule` (and only `also` besides).
    static let brokenVariants: [(rule: RFC8216.Rule, note: String, texts: [String], also: [RFC8216.Rule])] = [
        (.variantTargetDuration, "6 and 8", [variantPair()[0], variantPair()[1].replacingOccurrences(of: "TARGETDURATION:6", with: "TARGETDURATION:8")], []),
        (.variantPlaylistType, "VOD and none", [variantPair()[0], variantPair()[1].replacingOccurrences(of: "#EXT-X-PLAYLIST-TYPE:VOD\n", with: "")], []),
        (.variantDateRanges, "one ID, two DURATIONs", [variantPair()[0], variantPair()[1].replacingOccurrences(of: "DURATION=6.000", with: "DURATION=5.995")], []),
        (.variantDateRanges, "a date range in one variant only", [variantPair()[0],
            variantPair()[1].replacingOccurrences(of: "#EXT-X-DATERANGE:ID=\"ad1\",CLASS=\"com.example.ad\",START-DATE=\"2024-05-01T12:00:06.000Z\",DURATION=6.000\n", with: "")], []),
        (.variantDiscontinuities, "an ad without its closing discontinuity in one variant", [variantPair()[0],
            variantPair()[1].replacingOccurrences(of: "a-ad.ts\n#EXT-X-DISCONTINUITY\n", with: "a-ad.ts\n")], []),
    ]

    // MARK: - Refreshes

    /// A live sliding window with an ad between discontinuities, fetched every 6 s, that keeps
    /// every rule: the discontinuity before the ad stays while the ad's first segment is first,
    /// then leaves with it and EXT-X-DISCONTINUITY-SEQUENCE counts it.
    static func slidingLive(dropTagEarly: Bool = false) -> [String] {
        let h = ["#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:6"]
        /// Segment `n` named `name`, dated 6 s after the one before (every segment has its date).
        func seg(_ name: String, _ n: Int) -> [String] {
            let s = (n - 10) * 6
            return ["#EXT-X-PROGRAM-DATE-TIME:2024-05-01T12:00:\(s < 10 ? "0" : "")\(s).000Z", "#EXTINF:6.000,", "\(name)\(n).ts"]
        }
        func top(_ sequence: Int, _ discontinuities: Int) -> [String] {
            h + ["#EXT-X-MEDIA-SEQUENCE:\(sequence)", "#EXT-X-DISCONTINUITY-SEQUENCE:\(discontinuities)"]
        }
        let out = ["#EXT-X-DATERANGE:ID=\"brk1\",START-DATE=\"2024-05-01T12:00:12.000Z\",PLANNED-DURATION=12.000,SCTE35-OUT=0xFC301100",
                   "#EXT-X-CUE-OUT:12.000"]
        let back = ["#EXT-X-CUE-IN", "#EXT-X-DISCONTINUITY"]
        return [
            playlist(top(10, 3) + seg("c", 10) + seg("c", 11) + out + ["#EXT-X-DISCONTINUITY"] + seg("ad", 12) + seg("ad", 13)),
            playlist(top(11, 3) + seg("c", 11) + out + ["#EXT-X-DISCONTINUITY"] + seg("ad", 12) + seg("ad", 13) + back + seg("c", 14)),
            dropTagEarly
                ? playlist(top(12, 4) + out + seg("ad", 12) + seg("ad", 13) + back + seg("c", 14) + seg("c", 15))
                : playlist(top(12, 3) + out + ["#EXT-X-DISCONTINUITY"] + seg("ad", 12) + seg("ad", 13) + back + seg("c", 14) + seg("c", 15)),
            playlist(top(13, 4) + [out[0]] + seg("ad", 13) + back + seg("c", 14) + seg("c", 15) + seg("c", 16)),
            playlist(top(14, 5) + seg("c", 14) + seg("c", 15) + seg("c", 16) + seg("c", 17) + ["#EXT-X-ENDLIST"]),
        ]
    }

    /// A sequence of fetches (with optional fetch times) that breaks `rule` (and only `also` besides).
    struct BrokenRefresh: Sendable, CustomTestStringConvertible {
        let rule: RFC8216.Rule
        let note: String
        let fetches: [String]
        var times: [Double]?
        var also: [RFC8216.Rule] = []
        var testDescription: String { "\(rule.rawValue): \(note)" }

        init(_ rule: RFC8216.Rule, _ note: String, _ fetches: [String], times: [Double]? = nil, also: [RFC8216.Rule] = []) {
            self.rule = rule; self.note = note; self.fetches = fetches; self.times = times; self.also = also
        }
    }

    static let window0 = live(0, segments(0..<3))
    static let refreshes: [BrokenRefresh] = [
        BrokenRefresh(.segmentURI, "a kept segment under another URI", [window0, live(0, ["#EXTINF:6.000,", "s0.ts", "#EXTINF:6.000,", "x1.ts", "#EXTINF:6.000,", "s2.ts"])]),
        BrokenRefresh(.segmentDuration, "a published segment's EXTINF changed (defect 7)", [window0, live(0, ["#EXTINF:6.000,", "s0.ts", "#EXTINF:5.800,", "s1.ts", "#EXTINF:6.000,", "s2.ts"])]),
        BrokenRefresh(.segmentByteRange, "a kept segment's byte range changed", [
            live(0, ["#EXTINF:6.000,", "#EXT-X-BYTERANGE:100@0", "m.ts", "#EXTINF:6.000,", "#EXT-X-BYTERANGE:100", "m.ts", "#EXTINF:6.000,", "#EXT-X-BYTERANGE:100", "m.ts"],
                 header: ["#EXT-X-VERSION:4", "#EXT-X-TARGETDURATION:6"]),
            live(0, ["#EXTINF:6.000,", "#EXT-X-BYTERANGE:100@0", "m.ts", "#EXTINF:6.000,", "#EXT-X-BYTERANGE:120", "m.ts", "#EXTINF:6.000,", "#EXT-X-BYTERANGE:100", "m.ts"],
                 header: ["#EXT-X-VERSION:4", "#EXT-X-TARGETDURATION:6"])]),
        BrokenRefresh(.insertedTag, "a tag inserted before a kept segment", [window0, live(0, segments(0..<2) + ["#EXT-X-CUE-OUT:30", "#EXTINF:6.000,", "s2.ts"])]),
        BrokenRefresh(.insertedTag, "the new first segment gained a new date", [live(0, segments(0..<4)), live(1, ["#EXT-X-PROGRAM-DATE-TIME:2024-05-01T12:00:06.000Z"] + segments(1..<4))]),
        BrokenRefresh(.segmentTags, "the segment now first lost its EXT-X-PROGRAM-DATE-TIME", [
            live(0, (0..<4).flatMap { ["#EXT-X-PROGRAM-DATE-TIME:2024-05-01T12:00:\($0 * 6 + 10).000Z", "#EXTINF:6.000,", "s\($0).ts"] }),
            live(1, ["#EXTINF:6.000,", "s1.ts"] + (2..<5).flatMap { ["#EXT-X-PROGRAM-DATE-TIME:2024-05-01T12:00:\($0 * 6 + 10).000Z", "#EXTINF:6.000,", "s\($0).ts"] })]),
        BrokenRefresh(.segmentTags, "the EXT-X-KEY of kept segments left with the first one", [
            live(0, ["#EXT-X-KEY:METHOD=AES-128,URI=\"k1\""] + segments(0..<4)), live(1, segments(1..<5))]),
        BrokenRefresh(.segmentTags, "a tag after the last segment vanished", [live(0, segments(0..<3) + ["#EXT-X-CUE-IN"]), live(0, segments(0..<4))]),
        BrokenRefresh(.header, "EXT-X-VERSION changed", [window0, live(0, segments(0..<3), header: ["#EXT-X-VERSION:4", "#EXT-X-TARGETDURATION:6"])]),
        BrokenRefresh(.targetDurationChanged, "EXT-X-TARGETDURATION 6 then 8 (defect 6)", [window0, live(0, segments(0..<3), header: ["#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:8"])]),
        BrokenRefresh(.vodChanged, "a VOD playlist's URIs changed between fetches (defect 4)", [
            vod(segments(0..<3), header: header + ["#EXT-X-PLAYLIST-TYPE:VOD"]),
            vod(["#EXTINF:6.000,", "s0.ts?token=2", "#EXTINF:6.000,", "s1.ts?token=2", "#EXTINF:6.000,", "s2.ts?token=2"], header: header + ["#EXT-X-PLAYLIST-TYPE:VOD"])],
            also: [.segmentURI]),
        BrokenRefresh(.eventChanged, "an EVENT playlist lost its first segment", [live(0, segments(0..<4), extra: ["#EXT-X-PLAYLIST-TYPE:EVENT"]),
            live(1, segments(1..<5), extra: ["#EXT-X-PLAYLIST-TYPE:EVENT"])]),
        BrokenRefresh(.endListFinal, "a segment after EXT-X-ENDLIST", [live(0, segments(0..<3)) + "#EXT-X-ENDLIST\n", live(0, segments(0..<4)) + "#EXT-X-ENDLIST\n"]),
        BrokenRefresh(.endListFinal, "EXT-X-ENDLIST removed", [live(0, segments(0..<3)) + "#EXT-X-ENDLIST\n", live(0, segments(0..<3))]),
        BrokenRefresh(.dateRangeRemoved, "a date range of a kept segment removed", [
            live(0, [pdt, "#EXT-X-DATERANGE:ID=\"d\",START-DATE=\"2024-05-01T12:00:07.000Z\",DURATION=3.0"] + segments(0..<4)),
            live(1, ["#EXT-X-PROGRAM-DATE-TIME:2024-05-01T12:00:06.000Z"] + segments(1..<5))], also: [.insertedTag]),
        BrokenRefresh(.stale, "no new segment for 10 s with a target of 6", [window0, window0], times: [100, 110]),
        BrokenRefresh(.mediaSequence, "EXT-X-MEDIA-SEQUENCE decreased", [live(5, segments(5..<8)), live(4, segments(4..<7))]),
        BrokenRefresh(.mediaSequence, "a segment removed without EXT-X-MEDIA-SEQUENCE growing", [live(0, segments(0..<4)), live(0, segments(1..<5))]),
        BrokenRefresh(.mediaSequence, "a segment removed from a playlist without EXT-X-MEDIA-SEQUENCE", [
            playlist(header + segments(0..<4)), playlist(header + segments(1..<5))]),
        BrokenRefresh(.removalOrder, "the last segment vanished", [live(0, segments(0..<4)), live(0, segments(0..<3))]),
        BrokenRefresh(.discontinuitySequence, "EXT-X-DISCONTINUITY-SEQUENCE decreased", [
            live(0, segments(0..<3), extra: ["#EXT-X-DISCONTINUITY-SEQUENCE:2"]), live(0, segments(0..<3), extra: ["#EXT-X-DISCONTINUITY-SEQUENCE:1"])],
            also: [.discontinuityNumber]),
        BrokenRefresh(.discontinuitySequence, "segments removed from a playlist with EXT-X-DISCONTINUITY but no EXT-X-DISCONTINUITY-SEQUENCE", [
            live(0, segments(0..<2) + ["#EXT-X-DISCONTINUITY"] + segments(2..<4)),
            live(1, segments(1..<2) + ["#EXT-X-DISCONTINUITY"] + segments(2..<5))]),
        BrokenRefresh(.discontinuityNumber, "the first segment's EXT-X-DISCONTINUITY dropped without incrementing (defect 2)", [
            live(0, segments(0..<1) + ["#EXT-X-DISCONTINUITY"] + segments(1..<4), extra: ["#EXT-X-DISCONTINUITY-SEQUENCE:0"]),
            live(1, segments(1..<5), extra: ["#EXT-X-DISCONTINUITY-SEQUENCE:0"])]),
        BrokenRefresh(.discontinuityNumber, "EXT-X-DISCONTINUITY-SEQUENCE incremented twice for one removed tag (defect 3)", [
            live(0, segments(0..<1) + ["#EXT-X-DISCONTINUITY"] + segments(1..<4), extra: ["#EXT-X-DISCONTINUITY-SEQUENCE:0"]),
            live(1, segments(1..<5), extra: ["#EXT-X-DISCONTINUITY-SEQUENCE:2"])]),
        BrokenRefresh(.window, "a live playlist of 12 s with EXT-X-TARGETDURATION:6 after a removal (defect 1)", [
            live(0, segments(0..<3)), live(1, segments(1..<3))]),
        BrokenRefresh(.windowFirst, "the first fetch: 12 s at media sequence 7 with EXT-X-TARGETDURATION:6 (defect 1)", [live(7, segments(7..<9))]),
        BrokenRefresh(.dateRangeSameID, "a date range's PLANNED-DURATION changed between refreshes", [
            live(0, [pdt, "#EXT-X-DATERANGE:ID=\"d\",START-DATE=\"2024-05-01T12:00:12.000Z\",PLANNED-DURATION=30"] + segments(0..<3)),
            live(0, [pdt, "#EXT-X-DATERANGE:ID=\"d\",START-DATE=\"2024-05-01T12:00:12.000Z\",PLANNED-DURATION=20"] + segments(0..<3))],
            also: [.segmentTags]),
    ]
}
