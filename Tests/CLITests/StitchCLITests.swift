import Foundation
import Testing
import TestSupport

@Suite struct StitchCLITests {
    let content = TestMedia.Sample.content.url.path
    let ad = TestMedia.Sample.adMatching.url.path

    @Test func helpIsPrintedForEachCommand() async throws {
        for args in [["--help"], ["stitch", "--help"], ["inspect", "--help"]] {
            let r = try await CLI.run(args)
            #expect(r.status == 0, "\(args)")
            #expect(String(decoding: r.stdout, as: UTF8.self).contains("usage: interlude"), "\(args)")
        }
        let text = String(decoding: try await CLI.run(["stitch", "--help"]).stdout, as: UTF8.self)
        for option in ["--ad-break", "--report", "--format", "--hls-time", "--hls-segments", "--loudness", "--preset", "--crf", "--size", "--fps", "--stall-timeout", "-y", "--quiet"] {
            #expect(text.contains(option), "stitch --help documents \(option)")
        }
    }

    @Test(arguments: [
        (["stitch"], "missing CONTENT"),
        (["stitch", "c.mp4"], "missing -o"),
        (["stitch", "c.mp4", "-o", "x.mp4", "--ad-break", "twenty=a.mp4"], "malformed TIME"),
        (["stitch", "c.mp4", "-o", "x.mp4", "--crf", "99"], "--crf"),
        (["stitch", "c.mp4", "-o", "x.mp4", "--size", "wide"], "--size"),
        (["stitch", "c.mp4", "-o", "x.mp4", "--bogus"], "unknown option"),
        (["stitch", "c.mp4", "-o", "x.mp4", "--preset", "bogus"], "--preset must be one of"),
        (["stitch", "c.mp4", "-o", "x.mp4", "--size", "17x17"], "even"),
        (["stitch", "c.mp4", "-o", "dir/", "--format", "hls", "--hls-time", "0.5"], "--hls-time"),
        (["stitch", "c.mp4", "-o", "-", "--format", "hls"], "standard output"),
        (["stitch", "c.mp4", "-o", "dir/", "--format", "hls", "--hls-segments", "fmp4"], "--hls-segments must be ts or cmaf"),
        (["stitch", "c.mp4", "-o", "x.mp4", "--hls-segments", "cmaf"], "--hls-segments needs --format hls"),
        (["stitch", "c.mp4", "-o", "dir/", "--format", "dash", "--segments", "ts"], "--format dash writes CMAF segments"),
        (["stitch", "c.mp4", "-o", "x.mp4", "--format", "mpd"], "--format must be mp4, hls, dash, y4m or nut"),
        (["stitch", "c.mp4", "-o", "x.mp4", "--loudness", "loud"], "--loudness"),
        (["stitch", "c.mp4", "-o", "x.mp4", "--stall-timeout", "0"], "--stall-timeout must be seconds from 0.1 to 86400, or off"),
        (["stitch", "c.mp4", "-o", "x.mp4", "--stall-timeout", "never"], "--stall-timeout must be seconds"),
        (["stitch", "c.mp4", "-o", "-"], "standard output"),
        (["frobnicate"], "unknown command"),
    ])
    func badArgumentsExitTwoWithOneLine(args: [String], message: String) async throws {
        let r = try await CLI.run(args)
        #expect(r.status == 2)
        #expect(r.stderr.contains(message), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
    }

    @Test func missingContentIsOneLineAndNoFile() async throws {
        let dir = CLI.tempDir()
        let out = dir.appendingPathComponent("o.mp4").path
        let r = try await CLI.run(["stitch", "/nonexistent/content.mp4", "-o", out])
        #expect(r.status == 1)
        #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains("/nonexistent/content.mp4"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    @Test func existingOutputNeedsDashY() async throws {
        let dir = CLI.tempDir()
        let out = dir.appendingPathComponent("o.mp4")
        try Data("x".utf8).write(to: out)
        let r = try await CLI.run(["stitch", content, "-o", out.path, "-q"])
        #expect(r.status == 1 && r.stderr.contains("-y"))
        #expect(try Data(contentsOf: out) == Data("x".utf8))
    }

    @Test func stitchWritesOutputAndReport() async throws {
        let dir = CLI.tempDir()
        let out = dir.appendingPathComponent("o.mp4"), report = dir.appendingPathComponent("r.json")
        let r = try await CLI.run(["stitch", content, "-o", out.path, "--ad-break", "00:00:10.250=\(ad),/nonexistent.mp4",
                             "--ad-break", "end=\(ad)", "--report", report.path, "-q", "--crf", "30", "--preset", "ultrafast"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(String(decoding: r.stdout, as: UTF8.self).contains("wrote \(out.path)"))
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as! [String: Any]
        let c = json["content"] as! [String: Any], o = json["output"] as! [String: Any]
        for key in ["uri", "duration", "width", "height", "frameRate"] {
            #expect(c[key] != nil && o[key] != nil, "content/output.\(key)")
        }
        #expect(c["duration"] as? Double == 40 && o["duration"] as? Double == 52)
        let breaks = json["breaks"] as! [[String: Any]]
        #expect(breaks.count == 2)
        #expect(breaks[0]["contentTime"] as? Double == 10.25 && breaks[0]["streamTime"] as? Double == 10.266666666666667)
        #expect(breaks[0]["id"] as? String == "midroll-1" && breaks[1]["id"] as? String == "postroll")
        let ads = breaks[0]["ads"] as! [[String: Any]]
        #expect(ads.count == 1)
        for key in ["mediaFile", "streamTime", "duration", "podPosition", "totalAds"] { #expect(ads[0][key] != nil, "ad.\(key)") }
        let errors = json["errors"] as! [[String: Any]]
        #expect(errors.count == 1 && errors[0]["code"] as? Int == 401 && errors[0]["mediaFile"] as? String == "/nonexistent.mp4")
        #expect(try await MediaVerifier.ffmpegErrors(out) == "")
    }

    /// `--format dash`: the package of CMAF tracks whose MPD is the point (issue 34, item 7).
    @Test func formatDashWritesACMAFPackageWithItsMPD() async throws {
        let dir = CLI.tempDir()
        let out = dir.appendingPathComponent("pkg")
        let r = try await CLI.run(["stitch", content, "-o", out.path, "--format", "dash", "--ad-break", "00:00:10.250=\(ad)", "-q",
                                   "--crf", "30", "--preset", "ultrafast"])
        #expect(r.status == 0, "\(r.stderr)")
        let mpd = out.appendingPathComponent("index.mpd")
        #expect(try await DASHSchema.problems(mpd) == [])
        let files = try FileManager.default.contentsOfDirectory(atPath: out.path)
        #expect(files.contains("init-video.mp4") && files.contains { $0.hasSuffix(".m4s") } && !files.contains { $0.hasSuffix(".ts") })
        let v = try await offPool { try FieldCheck.check(mpd, with: .ffmpeg) }
        #expect(v.clean, "\(v.report)")
    }

    @Test func frameStreamToStandardOutput() async throws {
        let r = try await CLI.run(["stitch", content, "-o", "-", "--format", "nut", "--ad-break", "5=\(ad)", "--size", "320x180"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.starts(with: Data("nut/multimedia container".utf8)))
        #expect(r.stderr.contains("wrote -"), "summary goes to stderr when stdout carries the stream")
        let file = CLI.tempDir().appendingPathComponent("s.nut")
        try r.stdout.write(to: file)
        let probe = try await MediaVerifier.probe(file)
        #expect(probe.video?.width == 320 && probe.video?.height == 180)
        let frames = try await MediaVerifier.videoFrames(file)
        #expect(frames.count == 1200 + 180)
        #expect(MediaVerifier.segments(frames).map(\.sourceID) == [1, 2, 1])
    }
}

@Suite struct TagStitchCLITests {
    @Test func adsTagDrivesTheStitchAndTheReportHasEventsAndBeacons() async throws {
        let dir = CLI.tempDir()
        let out = dir.appendingPathComponent("o.mp4"), report = dir.appendingPathComponent("r.json")
        let r = try await CLI.run(["stitch", TestMedia.Sample.content.url.path, "--ads", TestMedia.url("demo-vmap.xml").path,
                             "-o", out.path, "--report", report.path, "-q", "--preset", "ultrafast", "--crf", "35",
                             "--cache-dir", dir.appendingPathComponent("cache").path])
        #expect(r.status == 0, "\(r.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as! [String: Any]
        #expect(json["cuePoints"] as? [Double] == [0, 20.5, 31.31, -1])
        let breaks = json["breaks"] as! [[String: Any]]
        #expect(breaks.map { $0["breakId"] as? String } == ["preroll", "midroll-1", "midroll-2", "postroll"])
        let events = (json["events"] as! [[String: Any]]).compactMap { $0["type"] as? String }
        #expect(events.first == "CUEPOINTS_CHANGED" && events.last == "ALL_ADS_COMPLETED")
        #expect(events.filter { $0 == "COMPLETE" }.count == 5)
        let pre = (breaks[0]["ads"] as! [[String: Any]])[0]
        #expect(pre["adId"] as? String == "demo-pre-1" && pre["skipOffset"] as? Double == 5)
        let tracking = pre["tracking"] as! [[String: Any]]
        #expect(tracking.first { $0["event"] as? String == "midpoint" }?["streamTime"] as? Double == 3)
        let frames = try await MediaVerifier.videoFrames(out)
        #expect(MediaVerifier.segments(frames).map(\.sourceID) == [2, 1, 3, 4, 1, 5, 1, 6])
    }

    @Test func adBreakAcceptsATagOrMedia() async throws {
        let dir = CLI.tempDir()
        let tag = dir.appendingPathComponent("one.xml")
        try """
        <VAST version="3.0"><Ad id="t1"><InLine><AdSystem>x</AdSystem><AdTitle>t1</AdTitle><Impression>http://i.invalid/t1</Impression>
        <Creatives><Creative><Linear><Duration>00:00:04</Duration><MediaFiles><MediaFile delivery="progressive" type="video/mp4">\(TestMedia.Sample.adSilent.url.path)</MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>
        """.write(to: tag, atomically: true, encoding: .utf8)
        let out = dir.appendingPathComponent("o.nut")
        let r = try await CLI.run(["stitch", TestMedia.Sample.content.url.path, "--ad-break", "10=\(tag.path),\(TestMedia.Sample.adMismatched.url.path)",
                             "-o", out.path, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(String(decoding: r.stdout, as: UTF8.self).contains("ad events"))
        let frames = try await MediaVerifier.videoFrames(out)
        #expect(MediaVerifier.segments(frames).map(\.sourceID) == [1, 4, 3, 1])
    }

    @Test func anUnreachableTagStillStitchesTheContent() async throws {
        let dir = CLI.tempDir()
        let out = dir.appendingPathComponent("o.nut"), report = dir.appendingPathComponent("r.json")
        let r = try await CLI.run(["stitch", TestMedia.Sample.content.url.path, "--ads", "http://127.0.0.1:9/none.xml", "--vast-timeout", "500",
                             "-o", out.path, "--report", report.path, "-q"])
        #expect(r.status == 0, "a failing ad never loses the content: \(r.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as! [String: Any]
        let errors = json["errors"] as! [[String: Any]]
        #expect(errors.count == 1 && (errors[0]["code"] as? Int ?? 0) > 0)
        #expect(try await MediaVerifier.videoFrames(out).count == 1200)
    }

    @Test func adsAndAdBreakAreExclusive() async throws {
        let r = try await CLI.run(["stitch", "c.mp4", "-o", "x.mp4", "--ads", "t.xml", "--ad-break", "1=a.mp4"])
        #expect(r.status == 2 && r.stderr.contains("not both"))
    }
}
