import Foundation
@testable import Manifest
import Testing

/// `WebVTTMP4`'s samples: a media segment's span covered by samples that never overlap, cut at
/// every cue boundary, each the cues showing throughout it or empty (ISO/IEC 14496-30 §5.2);
/// its boxes sized right. What a player reads of them is checked end to end in
/// `ServeLiveDASHSubtitlesTests` (GStreamer's qtdemux).
struct WebVTTMP4Tests {
    /// The top-level boxes of `data`: (type, size), sizes summing to its length.
    static func boxes(_ data: Data) -> [(String, Int)] {
        var out: [(String, Int)] = [], at = data.startIndex
        while at + 8 <= data.endIndex {
            let size = data[at..<(at + 4)].reduce(0) { $0 << 8 | Int($1) }
            guard size >= 8, at + size <= data.endIndex else { break }
            out.append((String(decoding: data[(at + 4)..<(at + 8)], as: UTF8.self), size))
            at += size
        }
        return out
    }

    @Test func overlappingCuesAreCutIntoSamplesThatNeverOverlap() {
        let cues = [WebVTT.Cue(id: "a", start: -900, end: 9_000, settings: "line:0", text: "one"),
                    WebVTT.Cue(start: 4_500, end: 18_000, text: "two"),
                    WebVTT.Cue(start: 27_000, end: 99_000, text: "three")]
        let samples = WebVTTMP4.samples(duration: 36_000, cues: cues)
        // [0, 4500) one · [4500, 9000) one+two · [9000, 18000) two · [18000, 27000) none · [27000, 36000) three
        #expect(samples.map(\.duration) == [4_500, 4_500, 9_000, 9_000, 9_000])
        #expect(samples.reduce(0) { $0 + Int64($1.duration) } == 36_000)
        func types(_ bytes: [UInt8]) -> [String] { Self.boxes(Data(bytes)).map(\.0) }
        #expect(samples.map { types($0.bytes) } == [["vttc"], ["vttc", "vttc"], ["vttc"], ["vtte"], ["vttc"]])
        let first = String(decoding: samples[0].bytes, as: UTF8.self)
        #expect(first.contains("idena") && first.contains("sttgline:0") && first.contains("paylone"), "\(first)")
        #expect(WebVTTMP4.samples(duration: 36_000, cues: []).map(\.duration) == [36_000])
        #expect(WebVTTMP4.samples(duration: 0, cues: cues).isEmpty)
    }

    @Test func segmentsAndTheInitializationAreWholeBoxes() {
        let initialization = WebVTTMP4.initialization()
        #expect(Self.boxes(initialization).map(\.0) == ["ftyp", "moov"] && Self.boxes(initialization).reduce(0) { $0 + $1.1 } == initialization.count)
        let segment = WebVTTMP4.segment(sequence: 7, start: 1 << 33, duration: 90_000, cues: [WebVTT.Cue(start: 0, end: 45_000, text: "hi")])
        let top = Self.boxes(segment)
        #expect(top.map(\.0) == ["styp", "moof", "mdat"] && top.reduce(0) { $0 + $1.1 } == segment.count)
        // trun's data offset points at the mdat's payload, counted from the moof
        let moofStart = top[0].1, mdatPayload = top[0].1 + top[1].1 + 8
        let trun = segment.range(of: Data("trun".utf8))!.lowerBound
        let offset = segment[(trun + 12)..<(trun + 16)].reduce(0) { $0 << 8 | Int($1) }
        #expect(moofStart + offset == mdatPayload)
        // tfdt version 1: 64-bit decode time
        let tfdt = segment.range(of: Data("tfdt".utf8))!.lowerBound
        #expect(segment[tfdt + 4] == 1 && segment[(tfdt + 8)..<(tfdt + 16)].reduce(UInt64(0)) { $0 << 8 | UInt64($1) } == 1 << 33)
    }
}

/// `FragmentedTextTrack` reads what `WebVTTMP4` writes back to the same cues, and hostile bytes
/// (every truncation, every single byte changed to 0xFF, a data offset before the segment) are a
/// one-line `Failure` or fewer cues, never a crash.
struct FragmentedTextTrackTests {
    let cues = [WebVTT.Cue(id: "a", start: 900, end: 9_000, settings: "line:0", text: "one"),
                WebVTT.Cue(start: 4_500, end: 18_000, text: "two\n\nlines --> here")]

    @Test func whatWebVTTMP4WritesReadsBackAsTheSameCues() throws {
        let header = try FragmentedTextTrack.header(WebVTTMP4.initialization())
        #expect(header == FragmentedTextTrack.Header(timescale: 90_000, format: .webVTT, trackID: 1))
        let segment = WebVTTMP4.segment(sequence: 3, start: 1_000_000, duration: 27_000, cues: cues)
        let samples = try FragmentedTextTrack.samples(segment, header)
        #expect(samples.map(\.start) == [1_000_000, 1_000_900, 1_004_500, 1_009_000, 1_018_000])
        let read = try FragmentedTextTrack.webVTTCues(samples)
        // cut into samples and merged back: the same cues, moved to the segment's time (text made a WebVTT file's)
        #expect(read == [WebVTT.Cue(id: "a", start: 1_000_900, end: 1_009_000, settings: "line:0", text: "one"),
                         WebVTT.Cue(start: 1_004_500, end: 1_018_000, text: "two\nlines --&gt; here")], "\(read)")
    }

    @Test func hostileBytesAreAFailureNeverACrash() throws {
        let initialization = WebVTTMP4.initialization()
        let header = try FragmentedTextTrack.header(initialization)
        let segment = WebVTTMP4.segment(sequence: 1, start: 0, duration: 27_000, cues: cues)
        for cut in 0..<segment.count {
            _ = try? FragmentedTextTrack.webVTTCues(try FragmentedTextTrack.samples(segment.prefix(cut), header))
        }
        for i in 0..<segment.count {
            var d = segment; d[i] = 0xFF
            _ = try? FragmentedTextTrack.webVTTCues(try FragmentedTextTrack.samples(d, header))
        }
        for cut in 0..<initialization.count { _ = try? FragmentedTextTrack.header(initialization.prefix(cut)) }
        for i in 0..<initialization.count {
            var d = initialization; d[i] = 0xFF
            _ = try? FragmentedTextTrack.header(d)
        }
        // a data offset pointing before the segment
        var before = segment
        let trun = before.range(of: Data("trun".utf8))!.lowerBound
        before.replaceSubrange((trun + 12)..<(trun + 16), with: [0xFF, 0xFF, 0x00, 0x00])
        #expect(throws: FragmentedTextTrack.Failure.self) { try FragmentedTextTrack.samples(before, header) }
        #expect(throws: FragmentedTextTrack.Failure.self) { try FragmentedTextTrack.header(Data("not an mp4 file".utf8)) }
    }
}
