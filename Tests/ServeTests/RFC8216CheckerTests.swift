import Foundation
import TestSupport
import Testing

/// The RFC 8216 checker the service's tests use on every playlist and refresh: it passes
/// well-formed playlists (the RFC's examples, Apple's, MediaTailor's and Elemental's shapes, and
/// what the ffmpeg CLI's hls muxer writes, VOD and live), and reports every rule broken, one
/// playlist or refresh sequence per rule at least, among them the service's known defects.
@Suite struct ServeRFC8216CheckerTests {
    typealias Cases = RFC8216Cases

    /// The rules that fail (not allowed), as a set.
    func failing(_ violations: [RFC8216.Violation]) -> Set<String> { Set(violations.failures.map(\.rule)) }

    /// Every violation of adding `fetches` in order to one refresh checker.
    func refresh(_ fetches: [String], times: [Double]? = nil, allowing: [RFC8216.Allowance] = []) -> [RFC8216.Violation] {
        var checker = RFC8216.RefreshChecker(allowing: allowing)
        return fetches.enumerated().flatMap { i, text in checker.add(text, at: times?[i]) }
    }

    // MARK: - Well formed

    @Test func wellFormedMediaPlaylistsPass() {
        for (name, text) in Cases.wellFormedMedia {
            let v = RFC8216.check(media: text)
            #expect(v.isEmpty, "\(name):\n\(v.report)")
            #expect(RFC8216.kind(of: text) == .media, "\(name)")
        }
    }

    @Test func wellFormedMultivariantPlaylistsPass() {
        for (name, text) in Cases.wellFormedMultivariant {
            let v = RFC8216.check(multivariant: text)
            #expect(v.isEmpty, "\(name):\n\(v.report)")
            #expect(RFC8216.kind(of: text) == .multivariant, "\(name)")
            #expect(RFC8216.check(playlist: text).isEmpty, "\(name)")
        }
    }

    @Test func aSlidingLivePlaylistWithAnAdPassesEveryRefresh() {
        for dropTagEarly in [false, true] {
            let fetches = Cases.slidingLive(dropTagEarly: dropTagEarly)
            let v = refresh(fetches, times: [0, 6, 12, 18, 24])
            #expect(v.isEmpty, "dropping the discontinuity early: \(dropTagEarly)\n\(v.report)")
        }
    }

    @Test func anEventPlaylistGrowingToItsEndAndAVODFetchedTwicePass() {
        let event = (3...5).map { Cases.live(0, Cases.segments(0..<$0), extra: ["#EXT-X-PLAYLIST-TYPE:EVENT"]) }
        let ended = Cases.live(0, Cases.segments(0..<5), extra: ["#EXT-X-PLAYLIST-TYPE:EVENT"]) + "#EXT-X-ENDLIST\n"
        #expect(refresh(event + [ended, ended], times: [0, 6, 12, 18, 100]).isEmpty)
        let vod = Cases.vod(Cases.segments(0..<3), header: Cases.header + ["#EXT-X-PLAYLIST-TYPE:VOD"])
        #expect(refresh([vod, vod, vod], times: [0, 50, 100]).isEmpty)
    }

    // MARK: - Every rule, broken

    @Test(arguments: Cases.brokenMedia + Cases.brokenMultivariant)
    func aBrokenPlaylistIsReported(_ c: RFC8216Cases.Broken) {
        let v = c.kind == .media ? RFC8216.check(media: c.text) : RFC8216.check(multivariant: c.text)
        #expect(failing(v) == Set([c.rule.rawValue] + c.also.map(\.rawValue)), "\(c.note):\n\(v.report)")
        #expect(failing(RFC8216.check(playlist: c.text)).contains(c.rule.rawValue) || c.rule == .kind, "\(c.note): check(playlist:)")
    }

    @Test(arguments: Cases.refreshes)
    func aBrokenRefreshIsReported(_ c: RFC8216Cases.BrokenRefresh) {
        let v = refresh(c.fetches, times: c.times)
        #expect(failing(v) == Set([c.rule.rawValue] + c.also.map(\.rawValue)), "\(c.note):\n\(v.report)")
    }

    @Test func theVariantsOfOnePresentationAgree() {
        let v = RFC8216.check(variants: Cases.variantPair())
        #expect(v.isEmpty, "\(v.report)")
        for c in Cases.brokenVariants {
            let v = RFC8216.check(variants: c.texts)
            #expect(failing(v) == Set([c.rule.rawValue] + c.also.map(\.rawValue)), "\(c.note):\n\(v.report)")
        }
    }

    @Test func everyRuleHasABreakingCase() {
        let covered = Set((Cases.brokenMedia + Cases.brokenMultivariant).map(\.rule) + Cases.refreshes.map(\.rule)
                          + Cases.brokenVariants.map(\.rule) + [.unknownAllowance])
        let missing = RFC8216.Rule.allCases.filter { !covered.contains($0) }
        #expect(missing.isEmpty, "rules without a breaking case: \(missing.map(\.rawValue))")
    }

    // MARK: - The service's defects, one by one

    @Test func defect1ALiveWindowOfTwelveSecondsWithATargetOfSix() {
        let v = refresh([Cases.live(0, Cases.segments(0..<3)), Cases.live(1, Cases.segments(1..<3))])
        let window = v.filter { $0.rule == "6.2.2-window" }
        #expect(window.count == 1 && window[0].section == "6.2.2" && window[0].message.contains("12.0 s"), "\(v.report)")
        #expect(failing(refresh([Cases.live(7, Cases.segments(7..<9))])) == ["6.2.2-window-first"])
        // Exactly three target durations is enough.
        #expect(refresh([Cases.live(0, Cases.segments(0..<4)), Cases.live(1, Cases.segments(1..<4))]).isEmpty)
    }

    @Test func defects2And3ADiscontinuityTagDroppedWithoutOrCountedTwice() {
        let before = Cases.live(0, Cases.segments(0..<1) + ["#EXT-X-DISCONTINUITY"] + Cases.segments(1..<4), extra: ["#EXT-X-DISCONTINUITY-SEQUENCE:0"])
        for (sequence, verdict) in [(0, "removed without"), (2, "grew by more")] {
            let after = Cases.live(1, Cases.segments(1..<5), extra: ["#EXT-X-DISCONTINUITY-SEQUENCE:\(sequence)"])
            let v = refresh([before, after])
            #expect(v.map(\.rule) == ["6.2.2-discontinuity-number"] && v[0].line == 7 && v[0].text == "s1.ts"
                    && v[0].message.contains("had discontinuity sequence number 1, now \(sequence)") && v[0].message.contains(verdict), "\(v.report)")
        }
        let right = Cases.live(1, Cases.segments(1..<5), extra: ["#EXT-X-DISCONTINUITY-SEQUENCE:1"])
        #expect(refresh([before, right]).isEmpty)
    }

    @Test func defect4AVODPlaylistWhoseURIsChanged() {
        let a = Cases.vod(Cases.segments(0..<3), header: Cases.header + ["#EXT-X-PLAYLIST-TYPE:VOD"])
        let b = a.replacingOccurrences(of: "s1.ts", with: "s1.ts?s=2")
        let v = refresh([a, b])
        #expect(failing(v) == ["6.2.1-vod", "6.2.1-segment-uri"], "\(v.report)")
        #expect(v.first { $0.rule == "6.2.1-vod" }?.text == "s1.ts?s=2")
    }

    @Test func defect5ATargetDurationBelowARoundedEXTINF() {
        let v = RFC8216.check(media: Cases.vod(["#EXTINF:6.500,", "a.ts"]))
        #expect(v.map(\.rule) == ["4.3.3.1-extinf-exceeds-target"] && v[0].line == 4 && v[0].text == "#EXTINF:6.500,", "\(v.report)")
        #expect(RFC8216.check(media: Cases.vod(["#EXTINF:6.49999,", "a.ts"])).isEmpty)
    }

    @Test func defects6And7ATargetDurationOrAPublishedDurationChanging() {
        let v6 = refresh([Cases.window0, Cases.live(0, Cases.segments(0..<3), header: ["#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:7"])])
        #expect(v6.map(\.rule) == ["6.2.1-target-duration"] && v6[0].message.contains("was 6, now 7"), "\(v6.report)")
        let v7 = refresh([Cases.window0, Cases.live(1, ["#EXTINF:6.000,", "s1.ts", "#EXTINF:6.006,", "s2.ts", "#EXTINF:6.000,", "s3.ts"])])
        #expect(v7.map(\.rule) == ["6.2.1-segment-duration"] && v7[0].text == "#EXTINF:6.006," && v7[0].message.contains("segment 2"), "\(v7.report)")
    }

    // MARK: - Allowances, timing, availability

    @Test func anAllowedRuleIsReportedAsAllowedAndAnUnknownAllowanceFails() {
        let text = Cases.vod(["#EXT-X-PROGRAM-DATE-TIME:2024-02-03T00:00:00.000"] + Cases.S)
        let v = RFC8216.check(media: text, allowing: [.init(.timeZone, why: "the origin writes local times")])
        #expect(v.count == 1 && v[0].isAllowed && v[0].allowedBecause == "the origin writes local times" && v.failures.isEmpty)
        #expect(v[0].description.hasSuffix("(allowed: the origin writes local times)"), "\(v[0])")
        let unknown = RFC8216.check(media: Cases.vod(), allowing: [.init(rule: "6.2.2-windows", why: "typo")])
        #expect(unknown.failures.map(\.rule) == ["allowance-unknown-rule"])
        var checker = RFC8216.RefreshChecker(allowing: [.init(.window, why: "a test origin with a short window")])
        _ = checker.add(Cases.live(0, Cases.segments(0..<3)))
        let allowed = checker.add(Cases.live(1, Cases.segments(1..<3)))
        #expect(allowed.map(\.rule) == ["6.2.2-window"] && allowed.failures.isEmpty)
    }

    @Test func aPlaylistThatKeepsGrowingOnTimeIsNotStaleAndSegmentsStayRequiredAfterRemoval() {
        var checker = RFC8216.RefreshChecker()
        #expect(checker.add(Cases.live(0, Cases.segments(0..<3)), at: 0).isEmpty)
        #expect(checker.add(Cases.live(0, Cases.segments(0..<3)), at: 9).isEmpty)   // 1.5 × 6 + 0.5 not yet passed
        #expect(checker.add(Cases.live(1, Cases.segments(1..<4)), at: 9.4).isEmpty)
        #expect(checker.mustBeAvailable(at: 10) == ["s1.ts", "s2.ts", "s3.ts", "s0.ts"])
        // s0 was last seen at 9, lasts 6 s, in playlists of at most 18 s: required until 33.
        #expect(checker.mustBeAvailable(at: 32.9).contains("s0.ts"))
        #expect(!checker.mustBeAvailable(at: 33.1).contains("s0.ts"))
        #expect(checker.refreshes == 3)
    }

    @Test func kindAndTheViolationsLineAreReadable() {
        #expect(RFC8216.kind(of: Cases.multivariant([])) == .multivariant)
        #expect(RFC8216.kind(of: Cases.vod()) == .media)
        let v = RFC8216.check(media: Cases.vod(["#EXTINF:7.000,", "a.ts"]))
        #expect(v.map(\.description) == ["§4.3.3.1 [4.3.3.1-extinf-exceeds-target] line 4 `#EXTINF:7.000,`: EXTINF rounds to 7 s, more than EXT-X-TARGETDURATION 6 (line 3)"])
    }

    // MARK: - The ffmpeg CLI's hls muxer

    /// A fresh folder under the temporary directory.
    func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("rfc8216-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static let sources = ["-f", "lavfi", "-i", "testsrc=d=8:s=160x120:r=10", "-f", "lavfi", "-i", "sine=d=8"]
    static let codecs = ["-c:v", "libx264", "-g", "20", "-c:a", "aac", "-f", "hls", "-hls_time", "2"]

    @Test func ffmpegsVODPlaylistsPass() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Tools.ffmpeg(["-loglevel", "error"] + Self.sources + Self.codecs + ["-hls_playlist_type", "vod", dir.appendingPathComponent("ts.m3u8").path])
        try Tools.ffmpeg(["-loglevel", "error"] + Self.sources + Self.codecs + ["-hls_playlist_type", "vod", "-hls_segment_type", "fmp4",
            "-hls_fmp4_init_filename", "init.mp4", "-hls_segment_filename", dir.appendingPathComponent("f%d.m4s").path, dir.appendingPathComponent("fmp4.m3u8").path])
        try Tools.ffmpeg(["-loglevel", "error"] + Self.sources + ["-map", "0", "-map", "1"] + Self.codecs + ["-hls_playlist_type", "vod",
            "-master_pl_name", "master.m3u8", "-var_stream_map", "v:0,agroup:aud a:0,agroup:aud,default:yes,language:en",
            "-hls_segment_filename", dir.appendingPathComponent("v%v_%d.ts").path, dir.appendingPathComponent("v%v.m3u8").path])
        var kinds: [RFC8216.Kind] = []
        for name in ["ts.m3u8", "fmp4.m3u8", "master.m3u8", "v0.m3u8", "v1.m3u8"] {
            let text = try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
            kinds.append(RFC8216.kind(of: text))
            let v = RFC8216.check(playlist: text)
            #expect(v.isEmpty, "\(name):\n\(text)\n\(v.report)")
        }
        #expect(kinds == [.media, .media, .multivariant, .media, .media])
        let renditions = try ["v0.m3u8", "v1.m3u8"].map { try String(contentsOf: dir.appendingPathComponent($0), encoding: .utf8) }
        #expect(RFC8216.check(variants: renditions).isEmpty)
    }

    /// Runs ffmpeg's hls muxer live (a three-segment window, at twice real time, so that 8 s of
    /// media slides it in about 4 s) and reads its playlist every 20 ms: every version it wrote.
    func captureLive(flags: String) throws -> [String] {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let playlist = dir.appendingPathComponent("live.m3u8").path
        let ffmpeg = Process()
        ffmpeg.executableURL = URL(fileURLWithPath: try Tools.ffmpegPath())
        ffmpeg.arguments = ["-nostdin", "-loglevel", "error", "-readrate", "2"] + Self.sources[0..<4] + ["-readrate", "2"] + Self.sources[4...]
            + Self.codecs + ["-hls_list_size", "3", "-hls_flags", flags, playlist]
        try ffmpeg.run()
        var fetches: [String] = []
        let deadline = Date().addingTimeInterval(60)
        while true {
            let running = ffmpeg.isRunning
            // ffmpeg writes a live playlist to a temporary file and renames it: each read is whole.
            if let data = FileManager.default.contents(atPath: playlist), let text = String(data: data, encoding: .utf8), text != fetches.last {
                fetches.append(text)
            }
            if !running || Date() > deadline { break }
            Thread.sleep(forTimeInterval: 0.02)
        }
        if ffmpeg.isRunning { ffmpeg.terminate() }
        ffmpeg.waitUntilExit()
        #expect(ffmpeg.terminationStatus == 0)
        #expect(fetches.count >= 3, "\(fetches)")
        #expect(fetches.contains { $0.contains("#EXT-X-MEDIA-SEQUENCE:1") }, "the window never slid:\n\(fetches.joined(separator: "\n--\n"))")
        #expect(fetches.last?.contains("#EXT-X-ENDLIST") == true)
        return fetches
    }

    @Test func ffmpegsLivePlaylistPassesEveryRefresh() throws {
        var checker = RFC8216.RefreshChecker()
        for (i, text) in try captureLive(flags: "delete_segments+program_date_time").enumerated() {
            let v = checker.add(text)
            #expect(v.isEmpty, "refresh \(i):\n\(text)\n\(v.report)")
        }
    }

    /// With `discont_start`, ffmpeg 5.1 puts EXT-X-DISCONTINUITY before its first segment and,
    /// when that segment leaves the window, drops the tag without ever writing
    /// EXT-X-DISCONTINUITY-SEQUENCE: the next segment's discontinuity sequence number falls from
    /// 1 to 0. RFC 8216 §6.2.2 forbids both; the checker says so, and nothing else.
    @Test func ffmpegsLivePlaylistWithDiscontStartBreaksSection622() throws {
        var checker = RFC8216.RefreshChecker()
        let v = try captureLive(flags: "delete_segments+discont_start").flatMap { checker.add($0) }
        #expect(Set(v.map(\.rule)) == ["6.2.2-discontinuity-sequence", "6.2.2-discontinuity-number"], "\(v.report)")
        #expect(v.contains { $0.message.contains("had discontinuity sequence number 1, now 0") }, "\(v.report)")
    }
}
