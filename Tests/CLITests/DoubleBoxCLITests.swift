import Foundation
import Testing
import TestSupport

/// `interlude stitch --ad-break TIME=AD@doublebox…`: the break overlaps content in the output and
/// the report says its mode; malformed modes exit 2 with one line and write nothing.
@Suite struct DoubleBoxCLITests {
    @Test func aDoubleBoxBreakOverlapsContentAndTheReportSaysSo() async throws {
        let content = try await TestMedia.clip(sourceID: 1, width: 320, height: 180, fps: 30, seconds: 3)
        let ad = try await TestMedia.clip(sourceID: 5, width: 320, height: 180, fps: 30, seconds: 1)
        let dir = CLI.tempDir()
        let out = dir.appendingPathComponent("box.nut"), report = dir.appendingPathComponent("box.json")
        let r = try await CLI.run(["stitch", content.path, "-o", out.path, "--ad-break", "0.5=\(ad.path)@doublebox-reverse:-9dB",
                                   "--report", report.path, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let frames = try await MediaVerifier.videoFrames(out, reader: IdentityReader(candidates: [PixelRect(x: 0, y: 0, width: 320, height: 180)]))
        #expect(frames.map { $0.identity?.frameIndex ?? -1 } == Array(0..<90), "content full size throughout, frames once and in order")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        let b = try #require((json["breaks"] as? [[String: Any]])?.first)
        #expect(b["mode"] as? String == "doublebox-reverse" && b["contentGainDB"] as? Double == -9)
        #expect(b["streamTime"] as? Double == 0.5 && b["duration"] as? Double == 1 && b["contentTime"] as? Double == 0.5)
        #expect((json["contentSegments"] as? [Any])?.count == 1, "content is one segment under the break")
    }

    /// Markers: an MP4 gets a chapter for the double-box ad, the content chapter cut around it (MP4
    /// chapters are one flat list); HLS gets a `com.interlude.doublebox` date range with the ad's
    /// duration and no cue-out/in, SCTE-35 or discontinuity (no content was replaced).
    @Test func doubleBoxMarkersInMP4ChaptersAndHLSDateRanges() async throws {
        let content = try await TestMedia.clip(sourceID: 1, width: 320, height: 180, fps: 30, seconds: 3)
        let ad = try await TestMedia.clip(sourceID: 5, width: 320, height: 180, fps: 30, seconds: 1)
        let dir = CLI.tempDir()
        let mp4 = dir.appendingPathComponent("box.mp4"), hls = dir.appendingPathComponent("box-hls")
        let report = dir.appendingPathComponent("box.json")
        let r = try await CLI.run(["stitch", content.path, "-o", mp4.path, "--ad-break", "0.5=\(ad.path)@doublebox:-6dB", "--report", report.path, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as? [String: Any])
        let smart = json["smartRendering"] as? [String: Any]
        #expect(smart?["used"] as? Bool == false && (smart?["reason"] as? String)?.hasPrefix("a double-box break draws on content frames") == true,
                "\(String(describing: smart))")
        let chapters = try await MediaVerifier.probe(mp4).chapters
        let name = ad.lastPathComponent
        let titles = chapters.map { $0.title ?? "" }
        #expect(titles.count == 3 && titles.first == "Content 1" && titles.last == "Content 1 (continued)"
                && titles[1].hasPrefix("Ad ") && titles[1].hasSuffix(" 1/1 (double box): \(name)"), "\(titles)")
        let spans = chapters.map { [($0.start * 1000).rounded(), ($0.end * 1000).rounded()] }
        #expect(spans == [[0, 500], [500, 1500], [1500, 3000]], "\(chapters)")

        let r2 = try await CLI.run(["stitch", content.path, "-o", hls.path, "--format", "hls", "--ad-break", "0.5=\(ad.path)@doublebox", "-q"])
        #expect(r2.status == 0, "\(r2.stderr)")
        let playlist = try String(contentsOf: hls.appendingPathComponent("index.m3u8"), encoding: .utf8)
        let lines = playlist.split(separator: "\n").map(String.init)
        let box = lines.filter { $0.hasPrefix("#EXT-X-DATERANGE:") && $0.contains("CLASS=\"com.interlude.doublebox\"") }
        #expect(box.count == 1 && box[0].contains("DURATION=1.000") && box[0].contains("X-MODE=\"doublebox:-12dB\""), "\(playlist)")
        #expect(!playlist.contains("CUE-OUT") && !playlist.contains("CUE-IN") && !playlist.contains("SCTE35")
                && !playlist.contains("DISCONTINUITY") && !playlist.contains("com.interlude.ad\""), "\(playlist)")
        // START-DATE is the program date of the first segment plus 0.5 s
        func date(_ line: String, _ key: String) -> Date? {
            guard let r = line.range(of: key) else { return nil }
            let v = String(line[r.upperBound...].prefix { $0 != "\"" })
            let f = ISO8601DateFormatter(); f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            return f.date(from: v)
        }
        let program = try #require(lines.first { $0.hasPrefix("#EXT-X-PROGRAM-DATE-TIME:") }.flatMap { date($0, "#EXT-X-PROGRAM-DATE-TIME:") })
        let start = try #require(date(box[0], "START-DATE=\""))
        #expect(abs(start.timeIntervalSince(program) - 0.5) < 0.002)
        // the segments still play every content frame once, with the ad drawn over them
        let p = try await DecodedPictures.decode(hls.appendingPathComponent("index.m3u8"))
        #expect(p.frames.count == 90)
    }

    /// `interlude play --fast -o out.nut` with a VMAP double box: every content frame once and in
    /// order (in the window during the break), the ad full size, the content 12 dB down, STARTED
    /// with the mode in the event log.
    @Test func playMakesAVMAPDoubleBoxLive() async throws {
        let content = try await TestMedia.clip(sourceID: 1, width: 320, height: 180, fps: 30, seconds: 3)
        let ad = try await TestMedia.clip(sourceID: 5, width: 320, height: 180, fps: 30, seconds: 1)
        let dir = CLI.tempDir()
        let vmap = """
            <vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">
            <vmap:AdBreak timeOffset="00:00:00.500" breakType="linear" breakId="box"><vmap:AdSource><vmap:VASTAdData>
            <VAST version="4.0"><Ad id="a"><InLine><AdSystem>Local</AdSystem><AdTitle>box</AdTitle><Impression>http://b.invalid/i</Impression>
            <Creatives><Creative><Linear><Duration>00:00:01</Duration><MediaFiles>
            <MediaFile delivery="progressive" type="video/mp4" width="320" height="180">\(ad.absoluteString)</MediaFile>
            </MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>
            </vmap:VASTAdData></vmap:AdSource>
            <vmap:Extensions><vmap:Extension type="interlude:doublebox" contentLevel="-12dB"/></vmap:Extensions></vmap:AdBreak>
            </vmap:VMAP>
            """
        let tag = dir.appendingPathComponent("box.xml"), out = dir.appendingPathComponent("play.nut")
        let events = dir.appendingPathComponent("events.jsonl")
        try Data(vmap.utf8).write(to: tag)
        let r = try await CLI.run(["play", content.path, "--ads", tag.path, "--ad-ui", "none", "--fast", "-o", out.path,
                                   "--format", "nut", "--events", events.path, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let full = PixelRect(x: 0, y: 0, width: 320, height: 180)
        // the window as the README gives it: 40 % of the width, bottom right, a 3 % margin (even pixels)
        let window = PixelRect(x: 182, y: 98, width: 128, height: 72)
        let p = try await DecodedPictures.decode(out)
        #expect(p.frames.count == 90)
        func id(_ rect: PixelRect, _ n: Int) -> Int {
            IdentityReader(candidates: [rect]).read(p.frames[n], width: 320, height: 180).identity.map { $0.sourceID * 1000 + $0.frameIndex } ?? -1
        }
        let wrong = (0..<min(90, p.frames.count)).filter { n in
            (15..<45).contains(n) ? !(id(full, n) == 5000 + n - 15 && id(window, n) == 1000 + n) : id(full, n) != 1000 + n
        }
        #expect(wrong.isEmpty, "wrong frames: \(wrong)")
        func level(_ url: URL, at sample: Int) throws -> Double {
            let pcm = try Tools.ffmpeg(["-v", "error", "-i", url.path, "-map", "0:a:0", "-ac", "1", "-ar", "48000", "-f", "f32le", "-"]).stdout
            let x = pcm.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            let n = 1600, w = 2 * Double.pi * 1000 / 48000
            var s1 = 0.0, s2 = 0.0
            for i in 0..<n { let s = Double(x[sample + i]) + 2 * cos(w) * s1 - s2; s2 = s1; s1 = s }
            return sqrt(max(0, s1 * s1 + s2 * s2 - 2 * cos(w) * s1 * s2))
        }
        // at 1.0 s: the content's burst under the ad (whose own burst came at 0.5 s)
        let ducked = 20 * log10(try level(out, at: 48000) / level(content, at: 48000))
        #expect(abs(ducked - -12) < 0.5, "content under the ad: \(ducked) dB")
        let adLevel = 20 * log10(try level(out, at: 24000) / level(ad, at: 0))
        #expect(abs(adLevel) < 0.5, "the ad's own burst at full level: \(adLevel) dB")
        let lines = try String(contentsOf: events, encoding: .utf8).split(separator: "\n")
        #expect(lines.contains { $0.contains("\"STARTED\"") && $0.contains("\"presentation\":\"doubleBox\"") })
        #expect(!lines.contains { $0.contains("contentPause") })
    }

    @Test(arguments: [
        ("0.5=a.mp4@doublebox:+3dB", "dB from -60 to 0"),
        ("0.5=a.mp4@doublebox-sideways", "doublebox or doublebox-reverse"),
        ("end=a.mp4@doublebox", "cannot be at the end"),
        ("0.5=tag.xml@doublebox", "media files, not VAST tags"),
    ])
    func badModesExitTwoWithOneLine(value: String, message: String) async throws {
        let dir = CLI.tempDir()
        let out = dir.appendingPathComponent("x.nut")
        let r = try await CLI.run(["stitch", "c.mp4", "-o", out.path, "--ad-break", value])
        #expect(r.status == 2)
        #expect(r.stderr.contains(message) && r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }
}
