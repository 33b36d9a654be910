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
            return try DecodedPictures.decode(out)
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
        let p = try DecodedPictures.decode(played)
        #expect(p.frames.count == 100 && p.frames == ui.frames, "play -o and stitch give the same pictures")
    }

    @Test func aLayoutFileDrawsTheAppsUI() async throws {
        let f = try Self.fixture()
        let layout = f.dir.appendingPathComponent("ui.json")
        try Data(##"{"elements":[{"box":[0,0,0.25,0.25],"color":"#FFFFFF"},{"text":"Ad ({remaining}s)","x":0.5,"y":0.5}]}"##.utf8).write(to: layout)
        let out = f.dir.appendingPathComponent("l.nut")
        let r = try await CLI.run(["stitch", f.content, "--ads", f.tag, "--ad-ui", layout.path, "-o", out.path, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        let p = try DecodedPictures.decode(out)
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
