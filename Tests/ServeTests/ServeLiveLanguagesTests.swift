import Foundation
@testable import Serve
import TestSupport
import Testing
import Timing

/// Issue 34 item 5, live: a live origin with two audio languages (English, the default; German,
/// the same sound 12 dB quieter: `LiveOrigin(secondLanguage:)`), as HLS of demuxed CMAF (an
/// `AUDIO` group of two renditions) and as DASH (two audio AdaptationSets, `lang` en and de). The
/// channel carries the second language as a language rung (`a1`: the lowest variant's video
/// with that sound); a viewer's master names both in group `audio` (the main language the top
/// rung's sound, the other its rung's, as packed audio), each audio playlist keeps RFC 8216's
/// refresh rules and lists the video's segments (the same numbers, durations and
/// discontinuities), and decoded, each language's content is its own sound and each ad's the
/// ad's sound in both; the session's live MPD has an audio AdaptationSet per language, whose
/// segments decode the same way; the origin served each video segment once.
@Suite(.serialized) struct ServeLiveLanguagesTests {
    typealias Rig = ServeLiveSessionTests.Rig

    /// The loudest sample of an audio file, dBFS (ffmpeg's `volumedetect`).
    static func peak(_ file: URL) async throws -> Double {
        let r = try await runOffPool(try Tools.ffmpegPath(), ["-v", "info", "-nostdin", "-i", file.path, "-af", "volumedetect", "-f", "null", "-"])
        guard let line = r.stderr.split(separator: "\n").first(where: { $0.contains("max_volume:") }),
              let value = Double(line.components(separatedBy: "max_volume:").last?.trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "")
        else { throw StoreFixtureError.unknown("no level for \(file.lastPathComponent): \(r.stderr.suffix(300))") }
        return value
    }

    @Test(arguments: ["/demuxed/master.m3u8", "/live.mpd"])
    func aSecondLanguageIsARenditionOfItsOwnWithTheAdsSoundInItsBreaks(source: String) async throws {
        let rig = try await Rig.start(breaks: [
            LiveOriginBreak(start: .frame(377), duration: MediaTime(seconds: 6), signal: .dateRange(.spliceInsert)),
        ], seconds: 40, dash: true, sourcePath: source, secondLanguage: true)
        defer { rig.stop() }
        _ = try await rig.warm()
        #expect(await rig.channel.languages.map(\.rendition.language) == ["de"])
        // the HLS origin's NAMEs; a DASH AdaptationSet without a Label is named by its lang
        let (english, german) = source.hasSuffix(".mpd") ? ("en", "de") : ("English", "Deutsch")
        let created = try await curl(rig.url("/v1/session/ch"), method: "POST", body: "{}")
        let manifest = try #require(created.json?["manifestUrl"] as? String, "\(created.text)")
        let master = try await curl(rig.url(manifest)).text
        #expect(master.contains("TYPE=AUDIO,GROUP-ID=\"audio\",NAME=\"\(english)\",LANGUAGE=\"en\",DEFAULT=YES,AUTOSELECT=YES")
                && master.contains("TYPE=AUDIO,GROUP-ID=\"audio\",NAME=\"\(german)\",LANGUAGE=\"de\",DEFAULT=NO,AUTOSELECT=YES")
                && master.contains(#"AUDIO="audio""#), "\(master)")
        let id = manifest.split(separator: "/")[2]
        let variant = try #require(master.split(separator: "\n").first { $0.hasPrefix("/v1/sessions/") }.map(String.init))
        let main = "/v1/sessions/\(id)/audio.m3u8", germanURI = "/v1/sessions/\(id)/audio-1.m3u8"
        #expect(master.contains("URI=\"\(main)\"") && master.contains("URI=\"\(germanURI)\""), "\(master)")
        // the CMAF master names both languages too, as CMAF audio
        let cmaf = try await curl(rig.url(manifest + "?segments=cmaf")).text
        #expect(cmaf.contains("URI=\"\(germanURI)?segments=cmaf\"") && cmaf.contains("NAME=\"\(german)\""), "\(cmaf)")

        var checkers = [RFC8216.RefreshChecker(), RFC8216.RefreshChecker(), RFC8216.RefreshChecker()]
        var problems: [String] = []
        var listed: [[Int: (duration: String, discontinuity: Bool, uri: String)]] = [[:], [:], [:]]
        var dash: (mpds: [URL], segments: [(key: String, file: URL)])?
        for step in 0..<16 {
            let texts = [try await curl(rig.url(variant)).text, try await curl(rig.url(main)).text, try await curl(rig.url(germanURI)).text]
            for k in 0..<3 { problems += checkers[k].add(texts[k]).filter { !$0.isAllowed }.map { "\(k): \($0)" } }
            let e = texts.map(ServeLiveSubtitlesTests.entries)
            // each audio playlist lists the video's segments: the same numbers, durations and
            // discontinuities (fetched one after another, a playlist may already list a segment
            // more at its end, or one less at its start: the channel polls on its own too)
            for k in 1..<3 {
                let video = Dictionary(uniqueKeysWithValues: e[0].map { ($0.sequence, $0) })
                let common = e[k].filter { video[$0.sequence] != nil }
                #expect(common.count >= e[0].count - 1 && common.count >= e[k].count - 1
                        && common.allSatisfy { video[$0.sequence]!.duration == $0.duration && video[$0.sequence]!.discontinuity == $0.discontinuity },
                        "video \(e[0].map { "\($0.sequence) \($0.duration)\($0.discontinuity ? " d" : "")" }) vs audio \(k) \(e[k].map { "\($0.sequence) \($0.duration)\($0.discontinuity ? " d" : "")" })")
                #expect(e[k].allSatisfy { $0.uri.contains(".a.aac") }, "\(texts[k])")
            }
            for k in 0..<3 { for x in e[k] { listed[k][x.sequence] = listed[k][x.sequence] ?? (x.duration, x.discontinuity, x.uri) } }
            // halfway (the break in the window): the session's live MPDs and each language's DASH
            // segments, fetched (only: read after the loop, so that the origin's clock does not
            // stand still for long — a segment waits at most 6 of the channel's own polls for its sound)
            if step == 8 {
                dash = try await Self.dashLanguages(rig, session: String(id), video: e[0], folder: rig.root)
            }
            rig.origin.advance()
            try await rig.channel.poll()
        }
        #expect(problems.isEmpty, "\(problems.prefix(10))")

        // decoded: each language's content at its own level, each ad segment at the ad's, slate
        // (the break's time the two 1 s ads leave) silent in both
        let folder = rig.root.appendingPathComponent("languages")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var levels: [String: [Double]] = [:]
        var local = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:8", "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:VOD"]
        for (n, v) in listed[0].sorted(by: { $0.key < $1.key }) {
            let kind = v.uri.contains("/ads/") ? "ad" : v.uri.contains("/slate/") ? "slate" : "content"
            for k in 1..<3 {
                let a = try #require(listed[k][n], "audio \(k) lists segment \(n)")
                let file = folder.appendingPathComponent("\(k)-\(n).aac")
                let r = try await curl(rig.url(a.uri))
                #expect(r.status == 200, "\(a.uri): \(r.status)")
                try r.body.write(to: file)
                let level = try await Self.peak(file)
                levels["\(k == 1 ? "en" : "de") \(kind)", default: []].append(level)
                if k == 2 {
                    if a.discontinuity { local.append("#EXT-X-DISCONTINUITY") }
                    local += ["#EXTINF:\(a.duration),", file.lastPathComponent]
                }
            }
        }
        local.append("#EXT-X-ENDLIST")
        // the ad's tone and the English content peak near -6 dBFS (AAC: -2 to -6 measured), the
        // German content 12 dB under (-16.5 to -17.7 measured), slate silent
        func within(_ key: String, _ range: ClosedRange<Double>) -> Bool { !(levels[key] ?? []).isEmpty && levels[key]!.allSatisfy { range.contains($0) } }
        #expect(within("en content", -8 ... -1) && within("en ad", -8 ... -1) && within("de ad", -8 ... -1) && within("de content", -20 ... -13)
                && ["en slate", "de slate"].allSatisfy { (levels[$0] ?? []).allSatisfy { $0 < -60 } }, "\(levels)")
        // the German rendition plays as one stream: every packed-audio segment read and decoded clean
        let playlist = folder.appendingPathComponent("de.m3u8")
        try (local.joined(separator: "\n") + "\n").write(to: playlist, atomically: true, encoding: .utf8)
        let decoded = try await runOffPool(try Tools.ffmpegPath(), ["-v", "error", "-xerror", "-nostdin", "-i", playlist.path, "-f", "null", "-"])
        #expect(decoded.status == 0 && decoded.stderr.isEmpty, "\(decoded.stderr.suffix(500))")
        #expect(rig.loggedFaults.isEmpty, "\(rig.log.all.filter { $0.contains("live_origin_fault") })")
        // each video segment came from the origin once: the language rung took its variant's bytes
        let videoFetches = rig.origin.requests.map(\.path).filter { $0.hasPrefix("/dash/v") && $0.hasSuffix(".m4s") }
        #expect(!videoFetches.isEmpty && Set(videoFetches).count == videoFetches.count,
                "fetched twice: \(Dictionary(grouping: videoFetches, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted().prefix(5))")
        // the MPDs valid and naming both languages; each DASH segment's level as for HLS
        let (mpds, dashSegments) = try #require(dash)
        for mpd in mpds {
            #expect(try await offPool { try DASHSchema.problems(mpd) } == [], "\(mpd.lastPathComponent)")
            let text = try String(contentsOf: mpd, encoding: .utf8)
            #expect(text.contains(#"contentType="audio" mimeType="audio/mp4" lang="en""#) && text.contains(#"contentType="audio" mimeType="audio/mp4" lang="de""#)
                    && text.contains(#"<Representation id="audio-1""#), "\(text)")
        }
        var dashLevels: [String: [Double]] = [:]
        for (key, file) in dashSegments { dashLevels[key, default: []].append(try await Self.peak(file)) }
        #expect(dashLevels["en content"]?.allSatisfy { (-8 ... -1).contains($0) } == true && dashLevels["de content"]?.allSatisfy { (-20 ... -13).contains($0) } == true
                && dashLevels["de ad"]?.allSatisfy { (-8 ... -1).contains($0) } == true, "DASH: \(dashLevels)")
    }

    /// The session's live MPD and its one-Period form (files), and each segment of the main
    /// (`audio`, "en") and the German (`audio-1`, "de") audio Representations that `video` (the
    /// HLS variant's entries now, whose numbers the MPD's `$Number$` are) lists, fetched with its
    /// initialization segment: a file each, keyed by language and kind.
    static func dashLanguages(_ rig: Rig, session id: String, video: [(sequence: Int, duration: String, discontinuity: Bool, uri: String)],
                              folder: URL) async throws -> (mpds: [URL], segments: [(key: String, file: URL)]) {
        let text = try await curl(rig.url("/v1/sessions/\(id)/index.mpd")).text
        let single = try await curl(rig.url("/v1/sessions/\(id)/index.mpd?periods=single")).text
        let mpds = [folder.appendingPathComponent("languages.mpd"), folder.appendingPathComponent("languages-single.mpd")]
        try text.write(to: mpds[0], atomically: true, encoding: .utf8)
        try single.write(to: mpds[1], atomically: true, encoding: .utf8)
        // each Representation's initialization segment (the same in every Period)
        func initialization(_ rep: String) -> String? {
            guard let r = text.range(of: "<Representation id=\"\(rep)\"") else { return nil }
            return text[r.upperBound...].components(separatedBy: "initialization=\"").dropFirst().first?.split(separator: "\"").first
                .map { String($0).replacingOccurrences(of: "&amp;", with: "&") }
        }
        var segments: [(key: String, file: URL)] = []
        for (rep, language) in [("audio", "en"), ("audio-1", "de")] {
            let initURI = try #require(initialization(rep), "\(rep) in \(text)")
            let head = try await curl(rig.url(initURI)).body
            for e in video {
                let r = try await curl(rig.url("/v1/sessions/\(id)/dash/\(rep)/\(e.sequence).m4s"))
                #expect(r.status == 200, "\(rep) \(e.sequence): \(r.status)")
                let file = folder.appendingPathComponent("dash-\(rep)-\(e.sequence).mp4")
                try (head + r.body).write(to: file)
                let kind = e.uri.contains("/ads/") ? "ad" : e.uri.contains("/slate/") ? "slate" : "content"
                segments.append(("\(language) \(kind)", file))
            }
        }
        return ([mpds[0], mpds[1]], segments)
    }
}
