import Foundation
import Media
import Testing
import TestSupport

/// Issue 34, item 1: a stored MPEG-TS segment as CMAF tracks (what the service's DASH and
/// HLS/CMAF answers are made of): packets copied, timestamps the segment's own.
@Suite struct CMAFTrackRemuxTests {
    /// `ffprobe`'s packets of the first stream of `url`: (pts, dts) in seconds.
    func packets(_ url: URL) throws -> [(pts: Double, dts: Double)] {
        let out = try Tools.ffprobe(["-v", "error", "-select_streams", "0", "-show_entries", "packet=pts_time,dts_time", "-of", "csv=p=0", url.path])
        return String(decoding: out.stdout, as: UTF8.self).split(separator: "\n").compactMap { line in
            let f = line.split(separator: ",").compactMap { Double($0) }
            return f.count == 2 ? (f[0], f[1]) : nil
        }
    }

    @Test func aSegmentsTracksKeepTheirPacketsAndTimes() throws {
        // 2 s of B-frame H.264 and AAC, at 10 s as the store's segments are
        let ts = try TestMedia.derived(from: TestMedia.Sample.adMatching.url, name: "cmaf-remux.ts",
                                       arguments: ["-t", "2", "-c:v", "libx264", "-bf", "2", "-g", "30", "-c:a", "aac", "-output_ts_offset", "10", "-f", "mpegts"])
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cmaf-remux-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for (kind, flag) in [(StreamInfo.Kind.video, "v"), (.audio, "a")] {
            let out = try CMAFTrackRemux.track(kind, of: ts, scratch: dir)
            let joined = dir.appendingPathComponent("\(flag).mp4")
            try (out.initialization + out.segment).write(to: joined)
            let source = try Tools.ffprobe(["-v", "error", "-select_streams", "\(flag):0", "-show_entries", "packet=pts_time,dts_time",
                                            "-of", "csv=p=0", ts.path])
            let want = String(decoding: source.stdout, as: UTF8.self).split(separator: "\n").compactMap { Double($0.split(separator: ",").first ?? "") }
            let got = try packets(joined)
            #expect(got.count == want.count, "\(kind): every packet copied")
            // the fragment's decode and presentation times are the TS's (tfdt kept, no edit list)
            #expect(abs((got.map(\.pts).min() ?? 0) - (want.min() ?? -1)) < 0.001, "\(kind) first pts \(got.map(\.pts).min() ?? 0) vs \(want.min() ?? -1)")
            // nothing before the media segment but its initialization
            #expect(!out.initialization.isEmpty && out.segment.count > out.initialization.count / 4)
            #expect(out.segment.range(of: Data("moof".utf8)) != nil && out.segment.range(of: Data("moov".utf8)) == nil)
            #expect(out.initialization.range(of: Data("moov".utf8)) != nil && out.initialization.range(of: Data("mdat".utf8)) == nil)
            if kind == .video { #expect(out.initialization.range(of: Data("avc3".utf8)) != nil, "parameter sets in band allowed") }
            try Tools.ffmpeg(["-v", "error", "-xerror", "-i", joined.path, "-f", "null", "-"])
        }
        #expect(throws: MediaError.self) { _ = try CMAFTrackRemux.track(.video, of: dir.appendingPathComponent("missing.ts"), scratch: dir) }
    }
}
