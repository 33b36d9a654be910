import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 18, item 5: every input is protected from every output, with or without `-y`; one-character
/// and NAME_MAX names work; `--` ends options; an option given twice is an error; `-y` replaces a
/// previous HLS package; temporaries of a killed run are cleaned up by the next run.
@Suite struct InputProtectionTests {
    var short: String { get throws { try TestMedia.clip(sourceID: 1, seconds: 2).path } }

    func entries(_ dir: URL) throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() }

    @Test func oneCharacterNamesWork() async throws {
        let dir = CLI.tempDir()
        let content = try short
        var r = try await CLI.run(["stitch", content, "-o", "x", "--report", "r", "-q", "--preset", "ultrafast"], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try entries(dir) == ["r", "x"])
        #expect(try await MediaVerifier.ffmpegErrors(dir.appendingPathComponent("x")) == "")
        r = try await CLI.run(["play", content, "--fast", "-o", "z", "--events", "e", "-q"], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try entries(dir) == ["e", "r", "x", "z"])
        #expect(try await MediaVerifier.ffmpegErrors(dir.appendingPathComponent("z")) == "")
    }

    @Test func nameMaxFileAndFolderNamesWork() async throws {
        let dir = CLI.tempDir()
        let folder = String(repeating: "f", count: 255)   // NAME_MAX: a legal folder name
        let r = try await CLI.run(["stitch", try short, "--format", "hls", "-o", dir.appendingPathComponent(folder).path, "-q",
                                   "--preset", "ultrafast", "--report", dir.appendingPathComponent(String(repeating: "r", count: 255)).path])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try entries(dir) == [folder, String(repeating: "r", count: 255)])
        #expect(try entries(dir.appendingPathComponent(folder)).contains("index.m3u8"))
        let tooLong = String(repeating: "f", count: 256)
        let r2 = try await CLI.run(["stitch", try short, "--format", "hls", "-o", dir.appendingPathComponent(tooLong).path, "-q"])
        #expect(r2.status == 1 && r2.stderr.split(separator: "\n").count == 1 && r2.stderr.contains("255"), "\(r2.stderr)")
    }

    /// Every output option naming every kind of input, with `-y`: exit 2, one line, the input as it was.
    @Test func noOutputMayBeAnInput() async throws {
        let f = try AdUICLITests.fixture()
        let dir = f.dir
        func file(_ name: String, _ text: String) throws -> String {
            let u = dir.appendingPathComponent(name)
            try Data(text.utf8).write(to: u)
            return u.path
        }
        let layout = try file("ui.json", ##"{"elements":[{"box":[0,0,0.25,0.25],"color":"#FFFFFF"}]}"##)
        let session = try file("session.json", ##"{"actions":[{"at":0.5,"do":"skip"}]}"##)
        let format = try file("format.json", ##"{"formatID":"f","assets":{"headline":1},"template":{"elements":[]}}"##)
        let response = try file("native.json", ##"{"native":{"assets":[]}}"##)
        let out = dir.appendingPathComponent("o.mp4").path
        let hardLink = dir.appendingPathComponent("tag-link.xml").path
        try #require(link(f.tag, hardLink) == 0)
        let cases: [[String]] = [
            ["stitch", f.content, "--ads", f.tag, "--ad-ui", layout, "-o", out, "--report", layout],
            ["stitch", f.content, "--ads", f.tag, "--ad-ui", layout, "-o", layout],
            ["stitch", f.content, "--ads", f.tag, "-o", out, "--report", f.tag],
            ["stitch", f.content, "--ads", f.tag, "-o", out, "--report", hardLink],
            ["stitch", f.content, "--ads", f.tag, "-o", out, "--report", dir.path + "/./sub/../tag.xml"],
            ["stitch", f.content, "--native-format", format, "--native-break", "1=\(response)", "-o", out, "--report", format],
            ["stitch", f.content, "--native-format", format, "--native-break", "1=\(response)", "-o", response],
            ["stitch", f.content, "-o", out, "--report", out],
            ["play", f.content, "--fast", "--null", "--session", session, "--events", session],
            ["play", f.content, "--fast", "--null", "--ads", f.tag, "--events", f.tag],
            ["play", f.content, "--fast", "--null", "--ads", f.tag, "--ad-ui", layout, "--events", layout],
            ["play", f.content, "--fast", "--session", session, "-o", session],
            ["play", f.content, "--fast", "--null", "--events", f.content],
            ["play", f.content, "--fast", "-o", out, "--events", out],
        ]
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("sub"), withIntermediateDirectories: true)
        let inputs = [f.content, f.tag, layout, session, format, response]
        let before = try inputs.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        for args in cases {
            let r = try await CLI.run(args + ["-y", "-q"])
            #expect(r.status == 2 && r.stderr.split(separator: "\n").count == 1 && r.stderr.contains("refused"), "\(args.suffix(4)): \(r.status) \(r.stderr)")
        }
        #expect(try inputs.map { try Data(contentsOf: URL(fileURLWithPath: $0)) } == before, "every input as it was")
        #expect(!FileManager.default.fileExists(atPath: out))
        // the same options naming files that are no input still work
        let r = try await CLI.run(["play", f.content, "--fast", "--null", "--session", session, "--ads", f.tag,
                                   "--events", dir.appendingPathComponent("events.jsonl").path, "-q"])
        #expect(r.status == 0, "\(r.stderr)")
    }

    @Test func anHLSPackageMayNotHoldAnInputOrTheReport() async throws {
        let dir = CLI.tempDir()
        let pkg = dir.appendingPathComponent("pkg")
        try FileManager.default.createDirectory(at: pkg, withIntermediateDirectories: true)
        let ad = pkg.appendingPathComponent("ad.mp4")
        try FileManager.default.copyItem(atPath: TestMedia.Sample.adMatching.url.path, toPath: ad.path)
        var r = try await CLI.run(["stitch", try short, "--format", "hls", "-o", pkg.path, "-y", "-q", "--ad-break", "1=\(ad.path)"])
        #expect(r.status == 2 && r.stderr.contains("refused"), "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: ad.path))
        r = try await CLI.run(["stitch", try short, "--format", "hls", "-o", dir.appendingPathComponent("p2").path, "-q",
                               "--report", dir.appendingPathComponent("p2/r.json").path])
        #expect(r.status == 2 && r.stderr.contains("inside"), "\(r.stderr)")
    }

    @Test func dashDashEndsOptionsAndAnOptionTwiceIsAnError() async throws {
        let dir = CLI.tempDir()
        try FileManager.default.copyItem(atPath: try short, toPath: dir.appendingPathComponent("-c.mp4").path)
        var r = try await CLI.run(["stitch", "-o", "out.mp4", "-q", "--preset", "ultrafast", "--", "-c.mp4"], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try entries(dir) == ["-c.mp4", "out.mp4"])
        for args in [["stitch", "-c.mp4", "-o", "a.mp4", "-o", "b.mp4"], ["stitch", "-c.mp4", "-o", "a.mp4", "--output=b.mp4"],
                     ["stitch", "-c.mp4", "-o", "a.mp4", "--crf", "20", "--crf", "30"], ["play", "-c.mp4", "-o", "a.mp4", "-o", "b.mp4"],
                     ["inspect", "t.xml", "--json", "--json"]] {
            r = try await CLI.run(args.map { $0 == "-c.mp4" ? "./-c.mp4" : $0 }, in: dir)
            #expect(r.status == 2 && r.stderr.contains("twice") && r.stderr.split(separator: "\n").count == 1, "\(args): \(r.stderr)")
        }
        // a repeatable option repeats
        r = try await CLI.run(["stitch", "./-c.mp4", "-o", "two.mp4", "-q", "--preset", "ultrafast",
                               "--ad-break", "0.5=\(TestMedia.Sample.adMatching.url.path)", "--ad-break", "1=\(TestMedia.Sample.adMatching.url.path)"], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try entries(dir) == ["-c.mp4", "out.mp4", "two.mp4"])
    }

    @Test func dashYReplacesAPreviousHLSPackageAndNothingElse() async throws {
        let dir = CLI.tempDir()
        let pkg = dir.appendingPathComponent("pkg")
        var r = try await CLI.run(["stitch", try short, "--format", "hls", "-o", pkg.path, "-q", "--preset", "ultrafast"])
        #expect(r.status == 0, "\(r.stderr)")
        let first = try entries(pkg)
        r = try await CLI.run(["stitch", try short, "--format", "hls", "-o", pkg.path, "-q"])
        #expect(r.status == 1 && r.stderr.contains("exists"), "without -y: \(r.stderr)")
        let ad = TestMedia.Sample.adMatching.url.path
        r = try await CLI.run(["stitch", try short, "--format", "hls", "-o", pkg.path + "/", "-y", "-q", "--preset", "ultrafast", "--ad-break", "1=\(ad)"])
        #expect(r.status == 0, "with -y the package is replaced: \(r.stderr)")
        let playlist = try String(contentsOf: pkg.appendingPathComponent("index.m3u8"), encoding: .utf8)
        #expect(playlist.contains("DISCONTINUITY") || playlist.contains("CUE"), "the new package (with its ad break)")
        let left = try entries(dir)
        #expect(left == ["pkg"], "no staging or old folder left: \(left)")
        #expect(!first.isEmpty)
        #expect(try await MediaVerifier.ffmpegErrors(pkg.appendingPathComponent("index.m3u8")).isEmpty)
        // a folder holding anything but a package is never replaced, -y or not
        let other = dir.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: other.appendingPathComponent("a.jpg"))
        r = try await CLI.run(["stitch", try short, "--format", "hls", "-o", other.path, "-y", "-q"])
        #expect(r.status == 1 && r.stderr.contains("other than an HLS package"), "\(r.stderr)")
        #expect(try entries(other) == ["a.jpg"])
    }

    @Test func temporariesOfAKilledRunAreRemovedByTheNextRun() async throws {
        let dir = CLI.tempDir()
        let out = dir.appendingPathComponent("o.mp4").path
        let run = try SpawnedCLI(["stitch", TestMedia.Sample.content.url.path, "-o", out, "-q", "--preset", "slow"])
        let pid = run.process.processIdentifier
        try await run.waitForTemporaryFile(in: dir) { kill(pid, SIGKILL) }
        _ = try await run.wait()
        let left = try entries(dir)
        #expect(left == [".o.mp4.\(pid).interlude-tmp"], "SIGKILL cannot be handled: \(left)")
        // look-alikes that are not a dead run's temporary stay: a live pid (this test's), no
        // leading dot, not a number, a symlink, another user's pattern
        let keep = [".o.mp4.\(getpid()).interlude-tmp", "o.mp4.\(pid).interlude-tmp", ".o.mp4.x\(pid).interlude-tmp",
                    ".o.mp4.\(pid).interlude-tmpx", ".o.mp4.\(pid).interlude-tmp.bak"]
        for name in keep { try Data("mine".utf8).write(to: dir.appendingPathComponent(name)) }
        try #require(symlink("/etc/hostname", dir.appendingPathComponent(".l.\(pid).interlude-tmp").path) == 0)
        let r = try await CLI.run(["stitch", try short, "-o", dir.appendingPathComponent("next.mp4").path, "-q", "--preset", "ultrafast"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try entries(dir) == (keep + [".l.\(pid).interlude-tmp", "next.mp4"]).sorted(), "only the dead run's file went")
    }
}
