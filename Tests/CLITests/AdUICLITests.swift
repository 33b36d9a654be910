import Foundation
import Testing
import TestSupport

/// `--ad-ui none|default|FILE.json` of `interlude stitch` and `interlude play`, decoded by the
/// ffmpeg CLI: the UI only on ad frames, the same on both paths, bad layouts one line and exit 2.
@Suite struct AdUICLITests {
    /// Content 2 s and a mid-roll at 1 s of one 2 s skippable ad, 320x180 @ 25 fps, as a VAST tag file.
    static func fixture() throws -> (dir: URL, content: String, tag: String) {
        let dir = CLI.tempDir()
        let content = try TestMedia.clip(sourceID: 1, width: 320, height: 180, fps: 25, seconds: 2)
        let ad = try TestMedia.clip(sourceID: 7, width: 320, height: 180, fps: 25, seconds: 2)
        let vmap = """
            <vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">
            <vmap:AdBreak timeOffset="00:00:01.000" breakType="linear" breakId="mid"><vmap:AdSource><vmap:VASTAdData>
            <VAST version="3.0"><Ad id="a"><InLine><AdSystem>T</AdSystem><AdTitle>a</AdTitle><Impression><![CDATA[http://127.0.0.1:9/i]]></Impression>
            <Creatives><Creative><Linear skipoffset="00:00:01"><Duration>00:00:02</Duration>
            <VideoClicks><ClickThrough><![CDATA[https://example.com/]]></ClickThrough></VideoClicks>
            <MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="320" height="180"><![CDATA[\(ad.path)]]></MediaFile></MediaFiles>
            </Linear></Creative></Creatives></InLine></Ad></VAST>
            </vmap:VASTAdData></vmap:AdSource></vmap:AdBreak></vmap:VMAP>
            """
        let tag = dir.appendingPathComponent("tag.xml")
        try Data(vmap.utf8).write(to: tag)
        return (dir, content.path, tag.path)
    }

    static let adFrames = 25..<75, contentFrames = Array(0..<25) + Array(75..<100)

    @Test func stitchAndPlayDrawTheSameDefaultUIOnAdFramesOnly() async throws {
        let f = try Self.fixture()
        func stitch(_ ui: String) async throws -> DecodedPictures {
            let out = f.dir.appendingPathComponent("s-\(ui).nut")
            let r = try await CLI.run(["stitch", f.content, "--ads", f.tag, "--ad-ui", ui, "-o", out.path, "-q"])
            #expect(r.status == 0, "\(r.stderr)")
            return try await DecodedPictures.decode(out)
        }
        let none = try await stitch("none"), ui = try await stitch("default")
        #expect(none.frames.count == 100 && ui.frames.count == 100)
        for n in Self.contentFrames { #expect(none.frames[n] == ui.frames[n], "content frame \(n)") }
        for n in Self.adFrames {
            #expect(none.frames[n] != ui.frames[n], "UI on ad frame \(n)")
        }
        // the player draws the same UI on the same frames
        let played = f.dir.appendingPathComponent("p.nut")
        let r = try await CLI.run(["play", f.content, "--ads", f.tag, "--fast", "-o", played.path, "--format", "nut", "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let p = try await DecodedPictures.decode(played)
        #expect(p.frames.count == 100 && p.frames == ui.frames, "play -o and stitch give the same pictures")
    }

    @Test func aLayoutFileDrawsTheAppsUI() async throws {
        let f = try Self.fixture()
        let layout = f.dir.appendingPathComponent("ui.json")
        try Data(##"{"elements":[{"box":[0,0,0.25,0.25],"color":"#FFFFFF"},{"text":"Ad ({remaining}s)","x":0.5,"y":0.5}]}"##.utf8).write(to: layout)
        let out = f.dir.appendingPathComponent("l.nut")
        let r = try await CLI.run(["stitch", f.content, "--ads", f.tag, "--ad-ui", layout.path, "-o", out.path, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let p = try await DecodedPictures.decode(out)
        for n in Self.adFrames { #expect(p.mean(frame: n, x: 0, y: 0, width: 80, height: 45) > 250, "white box on ad frame \(n)") }
        for n in Self.contentFrames { #expect(p.mean(frame: n, x: 0, y: 0, width: 80, height: 45) < 250, "identity cells, not the box, on content frame \(n)") }
    }

    @Test func badValuesAreOneLineAndExit2() async throws {
        let f = try Self.fixture()
        let out = f.dir.appendingPathComponent("x.mp4")
        let bad = f.dir.appendingPathComponent("bad.json")
        try Data(#"{"elements":[{"text":"{secondsLeft}"}]}"#.utf8).write(to: bad)
        for (args, needle) in [(["--ads", f.tag, "--ad-ui", bad.path], "unknown placeholder {secondsLeft}"),
                               (["--ads", f.tag, "--ad-ui", "fancy"], "--ad-ui must be none, default or a FILE.json"),
                               (["--ads", f.tag, "--ad-ui", f.dir.appendingPathComponent("missing.json").path], "cannot read ad UI layout"),
                               (["--ad-break", "1=\(f.content)", "--ad-ui", "default"], "--ad-ui needs VAST ads")] {
            let r = try await CLI.run(["stitch", f.content, "-o", out.path, "-q"] + args)
            #expect(r.status == 2 && r.stderr.split(separator: "\n").count == 1 && r.stderr.contains(needle), "\(args): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
    }
}

/// `--companions DIR`: the companion of each slot's size written as a file, listed in the report
/// with its ad's stream-time range.
@Suite struct AdUICompanionCLITests {
    @Test func companionsAreWrittenPerSlotWithTheirTimes() async throws {
        let dir = CLI.tempDir()
        let content = try await TestMedia.clip(sourceID: 1, width: 320, height: 180, fps: 25, seconds: 2)
        let ad = try await TestMedia.clip(sourceID: 7, width: 320, height: 180, fps: 25, seconds: 2)
        let png = dir.appendingPathComponent("c300.png")
        _ = try await Tools.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=red:s=300x250", "-frames:v", "1", png.path])
        let vmap = """
            <vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">
            <vmap:AdBreak timeOffset="00:00:01.000" breakType="linear" breakId="mid"><vmap:AdSource><vmap:VASTAdData>
            <VAST version="3.0"><Ad id="ad/1"><InLine><AdSystem>T</AdSystem><AdTitle>a</AdTitle><Impression><![CDATA[http://127.0.0.1:9/i]]></Impression>
            <Creatives><Creative><Linear><Duration>00:00:02</Duration>
            <MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="320" height="180"><![CDATA[\(ad.path)]]></MediaFile></MediaFiles>
            </Linear></Creative><Creative><CompanionAds>
            <Companion id="big" width="300" height="250"><StaticResource creativeType="image/png"><![CDATA[\(png.path)]]></StaticResource>
            <TrackingEvents><Tracking event="creativeView"><![CDATA[http://127.0.0.1:9/cv]]></Tracking></TrackingEvents></Companion>
            <Companion id="html" width="728" height="90"><HTMLResource><![CDATA[<b>x</b>]]></HTMLResource></Companion>
            <Companion id="other" width="160" height="600"><StaticResource creativeType="image/png"><![CDATA[\(png.path)]]></StaticResource></Companion>
            </CompanionAds></Creative></Creatives></InLine></Ad></VAST>
            </vmap:VASTAdData></vmap:AdSource></vmap:AdBreak></vmap:VMAP>
            """
        let tag = dir.appendingPathComponent("tag.xml")
        try Data(vmap.utf8).write(to: tag)
        let out = dir.appendingPathComponent("o.nut"), report = dir.appendingPathComponent("r.json"), companions = dir.appendingPathComponent("comp")
        let r = try await CLI.run(["stitch", content.path, "--ads", tag.path, "--companions", companions.path, "-o", out.path,
                                   "--report", report.path, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as! [String: Any]
        let list = json["companions"] as! [[String: Any]]
        #expect(list.count == 1, "only the 300x250 slot has a static image of its size: \(list)")
        let c = try #require(list.first)
        #expect(c["slot"] as? String == "300x250" && c["adId"] as? String == "ad/1" && c["companionId"] as? String == "big")
        #expect(c["streamStart"] as? Double == 1 && c["streamEnd"] as? Double == 3)
        let file = try #require(c["file"] as? String)
        #expect(file == companions.appendingPathComponent("companion-300x250-1-ad1.png").path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Data(contentsOf: png))
        #expect(try FileManager.default.contentsOfDirectory(atPath: companions.path) == ["companion-300x250-1-ad1.png"])
        let beacons = json["beacons"] as! [[String: Any]]
        #expect(beacons.contains { $0["event"] as? String == "creativeView" && $0["url"] as? String == "http://127.0.0.1:9/cv" && $0["streamTime"] as? Double == 1 })
        // again without -y: the companion file is there, so nothing is committed — one line, exit 1,
        // no output, no report, the companion as it was, no temporary left
        let again = try await CLI.run(["stitch", content.path, "--ads", tag.path, "--companions", companions.path,
                                       "-o", dir.appendingPathComponent("o2.nut").path, "--report", dir.appendingPathComponent("r2.json").path, "-q"])
        #expect(again.status == 1 && again.stderr.contains("use -y") && again.stderr.split(separator: "\n").count == 1, "\(again.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("o2.nut").path))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("r2.json").path))
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Data(contentsOf: png))
        #expect(try FileManager.default.contentsOfDirectory(atPath: companions.path) == ["companion-300x250-1-ad1.png"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".") }.isEmpty)
        // with -y it is replaced, together with the output and the report
        let replaced = try await CLI.run(["stitch", content.path, "--ads", tag.path, "--companions", companions.path,
                                          "-o", dir.appendingPathComponent("o2.nut").path, "--report", dir.appendingPathComponent("r2.json").path, "-q", "-y"])
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("o2.nut").path)
                && FileManager.default.fileExists(atPath: dir.appendingPathComponent("r2.json").path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: companions.path) == ["companion-300x250-1-ad1.png"])
    }
}

/// A VMAP non-linear break drawn the same by `play -o` and `stitch`.
@Suite struct AdUIOverlayCLITests {
    @Test func playAndStitchDrawTheSameOverlay() async throws {
        let dir = CLI.tempDir()
        let content = try await TestMedia.clip(sourceID: 1, width: 320, height: 180, fps: 25, seconds: 2)
        let png = dir.appendingPathComponent("banner.png")
        _ = try await Tools.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=yellow:s=120x30", "-frames:v", "1", png.path])
        let vmap = """
            <vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">
            <vmap:AdBreak timeOffset="00:00:00.500" breakType="nonlinear" breakId="ov"><vmap:AdSource><vmap:VASTAdData>
            <VAST version="3.0"><Ad id="o"><InLine><AdSystem>T</AdSystem><AdTitle>o</AdTitle><Impression><![CDATA[http://127.0.0.1:9/i]]></Impression>
            <Creatives><Creative><NonLinearAds><NonLinear width="120" height="30" minSuggestedDuration="00:00:01">
            <StaticResource creativeType="image/png"><![CDATA[\(png.path)]]></StaticResource></NonLinear></NonLinearAds></Creative></Creatives>
            </InLine></Ad></VAST></vmap:VASTAdData></vmap:AdSource></vmap:AdBreak></vmap:VMAP>
            """
        let tag = dir.appendingPathComponent("tag.xml")
        try Data(vmap.utf8).write(to: tag)
        let s = dir.appendingPathComponent("s.nut"), p = dir.appendingPathComponent("p.nut")
        let r1 = try await CLI.run(["stitch", content.path, "--ads", tag.path, "-o", s.path, "-q"])
        let r2 = try await CLI.run(["play", content.path, "--ads", tag.path, "--fast", "-o", p.path, "--format", "nut", "-q"])
        #expect(r1.status == 0 && r2.status == 0, "\(r1.stderr) \(r2.stderr)")
        let a = try await DecodedPictures.decode(s), b = try await DecodedPictures.decode(p)
        #expect(a.frames.count == 50 && a.frames == b.frames)
        // yellow (luma 210 → 225 in full range) at the bottom centre on the frames whose time lies in
        // [0.5 s, 1.5 s): 13 (0.52 s) to 37 (1.48 s); not elsewhere
        for n in 0..<50 {
            let m = a.mean(frame: n, x: 110, y: 140, width: 100, height: 20)
            #expect((m > 215 && m < 235) == (13..<38).contains(n), "frame \(n): \(m)")
        }
        // to standard output: one stream (one NUT main header), the same pictures
        let piped = try await CLI.run(["stitch", content.path, "--ads", tag.path, "-o", "-", "--format", "nut", "-q"])
        #expect(piped.status == 0)
        #expect(piped.stdout.ranges(of: Data("nut/multimedia container".utf8)).count == 1)
        // MP4: the overlay turns smart rendering off and says why; the default UI alone does not
        let mp4 = dir.appendingPathComponent("o.mp4"), report = dir.appendingPathComponent("r.json")
        let r3 = try await CLI.run(["stitch", content.path, "--ads", tag.path, "-o", mp4.path, "--report", report.path, "-q"])
        #expect(r3.status == 0, "\(r3.stderr)")
        let smart = (try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as! [String: Any])["smartRendering"] as? [String: Any]
        #expect(smart?["used"] as? Bool == false && (smart?["reason"] as? String)?.contains("overlays") == true, "\(String(describing: smart))")
    }

    @Test func theDefaultUIKeepsSmartRendering() async throws {
        let f = try AdUICLITests.fixture()
        let mp4 = f.dir.appendingPathComponent("o.mp4"), report = f.dir.appendingPathComponent("r.json")
        let r = try await CLI.run(["stitch", f.content, "--ads", f.tag, "-o", mp4.path, "--report", report.path, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let smart = (try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as! [String: Any])["smartRendering"] as? [String: Any]
        #expect(smart?["used"] as? Bool == true, "\(String(describing: smart))")
    }
}
