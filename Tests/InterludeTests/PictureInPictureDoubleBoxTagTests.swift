import Foundation
import Playback
import Testing
import TestSupport
@testable import Interlude

/// Double-box breaks asked for by a VMAP extension (`interlude:doublebox`) in a tag-driven stitch:
/// the AdsManager plays the pod beside content that goes on (no content pause), with IMA's events
/// and beacons at the ad frames' stream times, the presentation in STARTED and the report, and a
/// break that overlaps content on the timeline; checked by decoding the output.
@MainActor @Suite(.serialized) struct PictureInPictureDoubleBoxTagTests {
    static let full = TestSupport.PixelRect(x: 0, y: 0, width: 320, height: 180)

    /// Content: source 1, 3 s (1 kHz bursts in the first 1/30 s of each second). Ad: source 5, 1 s
    /// with a 300 Hz tone (the same file the engine's double-box tests make).
    static func media() throws -> (content: URL, ad: URL) {
        let content = try TestMedia.clip(sourceID: 1, width: 320, height: 180, fps: 30, seconds: 3)
        let picture = try TestMedia.clip(sourceID: 5, width: 320, height: 180, fps: 30, seconds: 1, audio: false)
        let ad = try TestMedia.derived(from: picture, name: "doublebox-ad-s5-300hz.mp4", arguments: [
            "-f", "lavfi", "-i", "aevalsrc=0.25*sin(2*PI*300*t):s=48000:d=1", "-map", "0:v", "-map", "1:a",
            "-c:v", "copy", "-c:a", "aac", "-b:a", "128k", "-ac", "2", "-shortest"])
        return (content, ad)
    }

    /// Plays `vmap` through a `PlaySession`, as `interlude play` runs it (no ad UI), on a player of
    /// the content on `clock` recording a NUT frame stream to `NAME.nut`: the player, the session,
    /// its event log and the output.
    static func playSession(_ name: String, clock: PlaybackClock, script: SessionScript = SessionScript(actions: []),
                            wallTime: Bool = false, vmap: String) async throws -> (Player, PlaySession, SessionEventLog, URL) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-boxtag-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let tag = dir.appendingPathComponent("\(name).xml")
        try Data(vmap.utf8).write(to: tag)
        let player = try Player.open(url: Self.media().content, clock: clock)
        let out = dir.appendingPathComponent("\(name).nut")
        try? FileManager.default.removeItem(at: out)
        player.surface.attach(try EncodedOutput(url: out.path, container: .nut, format: player.surface.format, settings: EncoderSettings()))
        let log = SessionEventLog(handle: nil, wallTime: wallTime)
        let session = PlaySession(player: player, adTag: tag.path, script: script, log: log)
        session.drawsDefaultAdUI = false
        try await session.run()
        return (player, session, log, out)
    }

    static func vmap(_ ad: URL, extensionXML: String, extra: String = "", offset: String = "00:00:00.500") -> String {
        let b = "http://beacons.invalid/t"
        let vast = """
            <VAST version="4.0"><Ad id="box-ad"><InLine><AdSystem>Local</AdSystem><AdTitle>box</AdTitle>
            <Impression><![CDATA[\(b)?e=impression]]></Impression>
            <Creatives><Creative><Linear><Duration>00:00:01</Duration><TrackingEvents>
            <Tracking event="start"><![CDATA[\(b)?e=start]]></Tracking>
            <Tracking event="firstQuartile"><![CDATA[\(b)?e=firstQuartile]]></Tracking>
            <Tracking event="midpoint"><![CDATA[\(b)?e=midpoint]]></Tracking>
            <Tracking event="complete"><![CDATA[\(b)?e=complete]]></Tracking>
            </TrackingEvents><MediaFiles>
            <MediaFile delivery="progressive" type="video/mp4" width="320" height="180"><![CDATA[\(ad.absoluteString)]]></MediaFile>
            </MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>
            """
        return """
            <vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">
            <vmap:AdBreak timeOffset="\(offset)" breakType="linear" breakId="box">
            <vmap:AdSource><vmap:VASTAdData>\(vast)</vmap:VASTAdData></vmap:AdSource>
            <vmap:Extensions>\(extensionXML)</vmap:Extensions></vmap:AdBreak>
            \(extra.replacingOccurrences(of: "VAST_AD", with: vast))
            </vmap:VMAP>
            """
    }

    static func stitch(_ vmap: String, container: OutputContainer = .nut, name: String) async throws -> (TagStitcher, StitchResult, URL) {
        let (content, _) = try media()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-boxtag-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let tag = dir.appendingPathComponent(name + ".xml")
        try Data(vmap.utf8).write(to: tag)
        let out = dir.appendingPathComponent(name + "." + container.rawValue)
        var req = StitchRequest(content: content.path, breaks: [], output: out.path, container: container)
        req.overwrite = true
        let stitcher = TagStitcher(output: req, adTag: tag.path)
        stitcher.cache = AdMediaCache(directory: dir.appendingPathComponent("cache"))
        return (stitcher, try await stitcher.run(), out)
    }

    static func level(_ x: [Float], hz: Double, from: Int, count n: Int) -> Double {
        let w = 2 * Double.pi * hz / 48000
        var s1 = 0.0, s2 = 0.0, wsum = 0.0
        for i in 0..<n {
            let hann = 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n - 1))
            wsum += hann
            let s = Double(x[from + i]) * hann + 2 * cos(w) * s1 - s2
            s2 = s1; s1 = s
        }
        return 2 * sqrt(max(0, s1 * s1 + s2 * s2 - 2 * cos(w) * s1 * s2)) / wsum
    }

    static func audio(_ url: URL) throws -> [Float] {
        let out = try Tools.ffmpeg(["-v", "error", "-i", url.path, "-map", "0:a:0", "-ac", "1", "-ar", "48000", "-f", "f32le", "-"])
        return out.stdout.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    @Test func aVMAPDoubleBoxPlaysBesideContentWithItsEventsAndBeacons() async throws {
        let (_, ad) = try Self.media()
        let (stitcher, result, out) = try await Self.stitch(Self.vmap(ad, extensionXML: """
            <vmap:Extension type="interlude:doublebox" mode="doublebox" contentLevel="-12dB"/>
            """), name: "box")
        // content never paused (the one resume request is IMA's at the start, with no pre-roll)
        #expect(!stitcher.delegateLog.contains("contentPause") && stitcher.delegateLog.filter { $0 == "contentResume" }.count == 1
                && stitcher.delegateLog.first { $0.hasPrefix("contentResume") || $0.hasPrefix("event:AD_BREAK_STARTED") } == "contentResume",
                "\(stitcher.delegateLog)")
        let p = try await DecodedPictures.decode(out)
        #expect(p.frames.count == 90)
        let w = PictureInPictureLayer().windowRect(width: 320, height: 180)
        let window = TestSupport.PixelRect(x: w.x, y: w.y, width: w.width, height: w.height)
        func id(_ r: TestSupport.PixelRect, _ n: Int) -> Int {
            IdentityReader(candidates: [r]).read(p.frames[n], width: 320, height: 180).identity.map { $0.sourceID * 1000 + $0.frameIndex } ?? -1
        }
        for n in 0..<90 {
            if (15..<45).contains(n) {
                #expect(id(Self.full, n) == 5000 + n - 15 && id(window, n) == 1000 + n, "frame \(n): ad full size, content \(n) in the window")
            } else {
                #expect(id(Self.full, n) == 1000 + n, "frame \(n): content")
            }
        }
        // IMA's events and beacons at the ad's frames, content time going on under it
        let started = try #require(result.events.first { $0.type == .started })
        #expect(started.data?["presentation"] == "doubleBox" && started.streamTime == MediaTime(value: 1, timescale: 2))
        let names = result.events.map(\.typeString)
        #expect(names.contains("FIRST_QUARTILE") && names.contains("COMPLETE") && names.contains("AD_BREAK_ENDED"))
        let beacon = { (e: String) in result.beacons.first { $0.url.hasSuffix("e=\(e)") } }
        #expect(beacon("start")?.streamTime == MediaTime(value: 1, timescale: 2))
        // the first ad frame at or past a quarter of the ad (frame 8: 0.267 s) is stream frame 23
        #expect(beacon("firstQuartile")?.streamTime == MediaTime(value: 23, timescale: 30))
        let midpoint = try #require(beacon("midpoint"))
        #expect(midpoint.streamTime == MediaTime(value: 1, timescale: 1) && midpoint.contentTime > MediaTime(value: 9, timescale: 10),
                "content time advances under the break: \(midpoint.contentTime.seconds)")
        #expect(beacon("complete") != nil)
        let played = try #require(result.playedBreaks.first?.ads.first)
        #expect(played.presentation == .doubleBox && played.placement.frames == 30)
        #expect(result.playedBreaks.first?.duration == MediaTime(value: 1, timescale: 1))
        // content runs on under the break: the mapping is the identity through it
        let tl = result.timeline
        #expect(tl.breaks.first?.overlapsContent == true && tl.breaks.first?.streamStart == MediaTime(value: 1, timescale: 2)
                && tl.breaks.first?.streamEnd == MediaTime(value: 3, timescale: 2))
        for n in 0..<90 {
            let t = MediaTime(value: Int64(n), timescale: 30)
            #expect(tl.streamTime(forContentTime: t) == t && tl.contentTime(forStreamTime: t) == t, "frame \(n)")
        }
        #expect(StitchReport(result).breaks.first?.ads.first?.presentation == "doubleBox")
        // one report type: the break's mode as for `--ad-break …@doublebox`, and the manager's account
        let report = StitchReport(result)
        #expect(report.breaks.first?.mode == "doublebox" && report.breaks.first?.contentGainDB == -12)
        #expect(report.events?.isEmpty == false && report.cuePoints != nil && report.companions != nil)
        #expect(result.breaks.first?.doubleBox != nil && result.breaks.first?.ads.first?.frames == 30, "the placed break, as for app breaks")
        // the content 12 dB down under the ad
        let (content, _) = try Self.media()
        let o = try Self.audio(out), c = try Self.audio(content)
        let ducked = 20 * log10(Self.level(o, hz: 1000, from: 48000, count: 1600) / Self.level(c, hz: 1000, from: 48000, count: 1600))
        #expect(abs(ducked - -12) < 0.5, "content ducked by \(ducked) dB")
    }

    /// The live player (`PlaySession`, as `interlude play` runs it, and so the AdsManager on a
    /// Player): content plays on in the window while the ad plays full size, nothing paused.
    @Test(arguments: [PlaybackClock.asFastAsPossible, .realTime])
    func theLivePlayerPlaysADoubleBoxBesideContent(clock: PlaybackClock) async throws {
        let (content, ad) = try Self.media()
        let (player, session, log, out) = try await Self.playSession("player-\(clock == .realTime ? "rt" : "fast")", clock: clock,
                                                                     vmap: Self.vmap(ad, extensionXML: #"<vmap:Extension type="interlude:doublebox" contentLevel="-12dB"/>"#))
        let lines = log.written
        #expect(!lines.contains { $0.contains("\"contentPause\"") }, "content never paused")
        #expect(!lines.contains { $0.contains("\"LOG\"") }, "\(lines.filter { $0.contains("LOG") })")

        let p = try await DecodedPictures.decode(out)
        #expect(p.frames.count == 90, "no frame added: the break overlaps content")
        let w = PictureInPictureLayer().windowRect(width: 320, height: 180)
        let window = TestSupport.PixelRect(x: w.x, y: w.y, width: w.width, height: w.height)
        func id(_ r: TestSupport.PixelRect, _ n: Int) -> Int {
            IdentityReader(candidates: [r]).read(p.frames[n], width: 320, height: 180).identity.map { $0.sourceID * 1000 + $0.frameIndex } ?? -1
        }
        var wrong: [Int] = []
        for n in 0..<min(90, p.frames.count) {
            let ok = (15..<45).contains(n) ? id(Self.full, n) == 5000 + n - 15 && id(window, n) == 1000 + n : id(Self.full, n) == 1000 + n
            if !ok { wrong.append(n) }
        }
        #expect(wrong.isEmpty, "frames 15-44: the ad full size and content frame n in the window; else content n: wrong at \(wrong)")

        // IMA's events at the ad's frames, with the mode
        let events = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let started = try #require(events.first { $0["event"] as? String == "STARTED" })
        #expect(started["presentation"] as? String == "doubleBox" && started["streamTime"] as? Double == 0.5, "\(started)")
        let firstQuartile = try #require(events.first { $0["event"] as? String == "FIRST_QUARTILE" })
        #expect(abs((firstQuartile["streamTime"] as? Double ?? 0) - 23.0 / 30) < 1e-6, "\(firstQuartile)")
        let complete = try #require(events.first { $0["event"] as? String == "COMPLETE" })
        #expect(abs((complete["contentTime"] as? Double ?? 0) - 44.0 / 30) < 0.05, "content time went on: \(complete)")
        #expect(events.contains { $0["event"] as? String == "ALL_ADS_COMPLETED" })
        let played = try #require(session.adsManager?.playedBreaks.first?.ads.first)
        #expect(played.presentation == .doubleBox && played.placement.frames == 30
                && played.placement.streamTime == MediaTime(value: 1, timescale: 2))
        // the player's timeline: a break that overlaps content, the mapping the identity through it
        let tl = player.timeline
        #expect(tl.breaks.count == 1 && tl.breaks.first?.overlapsContent == true
                && tl.breaks.first?.streamStart == MediaTime(value: 1, timescale: 2) && tl.breaks.first?.streamEnd == MediaTime(value: 3, timescale: 2),
                "\(tl.breaks)")
        for n in stride(from: 0, to: 90, by: 7) {
            let t = MediaTime(value: Int64(n), timescale: 30)
            #expect(tl.streamTime(forContentTime: t) == t && tl.contentTime(forStreamTime: t) == t, "frame \(n)")
        }
        // the content 12 dB down under the ad, the ad's tone at its level, full level after
        let o = try Self.audio(out), c = try Self.audio(content), a = try Self.audio(ad)
        let ducked = 20 * log10(Self.level(o, hz: 1000, from: 48000, count: 1600) / Self.level(c, hz: 1000, from: 48000, count: 1600))
        #expect(abs(ducked - -12) < 0.5, "content ducked by \(ducked) dB")
        let tone = 20 * log10(Self.level(o, hz: 300, from: 36000, count: 9600) / Self.level(a, hz: 300, from: 12000, count: 9600))
        #expect(abs(tone) < 0.5, "the ad at full level: \(tone) dB")
        let after = 20 * log10(Self.level(o, hz: 1000, from: 96000, count: 1600) / Self.level(c, hz: 1000, from: 96000, count: 1600))
        #expect(abs(after) < 0.5, "content at full level after the break: \(after) dB")
    }

    /// A pre-roll double box on the live player: content starts with the ad full size over it.
    @Test func aPrerollDoubleBoxStartsContentUnderIt() async throws {
        let (_, ad) = try Self.media()
        let (_, session, log, out) = try await Self.playSession("pre", clock: .asFastAsPossible,
            vmap: Self.vmap(ad, extensionXML: #"<vmap:Extension type="interlude:doublebox" mode="doublebox-reverse"/>"#, offset: "start"))
        let p = try await DecodedPictures.decode(out)
        let w = PictureInPictureLayer().windowRect(width: 320, height: 180)
        let window = TestSupport.PixelRect(x: w.x, y: w.y, width: w.width, height: w.height)
        func id(_ r: TestSupport.PixelRect, _ n: Int) -> Int {
            IdentityReader(candidates: [r]).read(p.frames[n], width: 320, height: 180).identity.map { $0.sourceID * 1000 + $0.frameIndex } ?? -1
        }
        #expect(p.frames.count == 90)
        let wrong = (0..<min(90, p.frames.count)).filter { n in
            // reversed: content full size throughout (its frame n), the ad in the window for frames 0-29
            n < 30 ? id(window, n) != 5000 + n : id(Self.full, n) != 1000 + n
        }
        #expect(wrong.isEmpty, "wrong frames: \(wrong)")
        #expect(session.adsManager?.playedBreaks.first?.ads.first?.presentation == .doubleBoxReverse)
        #expect(log.written.contains { $0.contains("\"ALL_ADS_COMPLETED\"") })
    }

    /// On the live player a pause during the double box holds content and ad together (the ad is
    /// drawn on content frames) until the resume; a seek inside it is refused. Real time: an
    /// ineffective pause would let ~15 frames through during its 0.5 s.
    @Test func pausingTheLiveDoubleBoxHoldsContentAndASeekIsRefused() async throws {
        let (_, ad) = try Self.media()
        let script = try SessionScript.parse(Data("""
            {"actions": [{"at": 1.0, "clock": "stream", "do": "pause", "for": 0.5},
                         {"at": 1.2, "clock": "stream", "do": "seek", "to": 2.5}]}
            """.utf8))
        let (_, _, log, out) = try await Self.playSession("pause", clock: .realTime, script: script, wallTime: true,
                                                                     vmap: Self.vmap(ad, extensionXML: #"<vmap:Extension type="interlude:doublebox"/>"#))
        let events = log.written.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let pause = try #require(events.first { $0["event"] as? String == "action" && $0["do"] as? String == "pause" })
        let resume = try #require(events.first { $0["event"] as? String == "action" && $0["do"] as? String == "resume" })
        let held = (resume["streamTime"] as? Double ?? 0) - (pause["streamTime"] as? Double ?? 0)
        let wall = (resume["wallTime"] as? Double ?? 0) - (pause["wallTime"] as? Double ?? 0)
        #expect(wall >= 0.45 && held < 1.0 / 30 + 1e-6, "held \(held) s of stream over \(wall) s of wall time")
        #expect(events.contains { $0["event"] as? String == "PAUSE" } && events.contains { $0["event"] as? String == "RESUME" })
        #expect(events.contains { $0["event"] as? String == "seeked" && $0["ok"] as? Bool == false }, "seek refused in the double box")
        let p = try await DecodedPictures.decode(out)
        let ids = p.frames.map { IdentityReader(candidates: [Self.full]).read($0, width: 320, height: 180).identity.map { $0.sourceID * 1000 + $0.frameIndex } ?? -1 }
        #expect(ids == (0..<15).map { 1000 + $0 } + (0..<30).map { 5000 + $0 } + (45..<90).map { 1000 + $0 }, "\(ids)")
    }

    /// MP4 and HLS under `--smart auto`: the content would be copied, but the double box draws on
    /// it, so the whole stitch is re-encoded with the reason in the report, and the break is a double box.
    @Test(arguments: [OutputContainer.mp4, .hls])
    func smartRenderingGivesWayToAVMAPDoubleBox(container: OutputContainer) async throws {
        let (_, ad) = try Self.media()
        // without a double box this content is copied
        let (_, plain, _) = try await Self.stitch(Self.vmap(ad, extensionXML: ""), container: container, name: "smart-plain")
        #expect(plain.smartRendering?.used == true, "\(String(describing: plain.smartRendering))")

        let (stitcher, result, out) = try await Self.stitch(Self.vmap(ad, extensionXML: """
            <vmap:Extension type="interlude:doublebox" mode="doublebox" contentLevel="-12dB"/>
            """), container: container, name: "smart-box")
        #expect(result.smartRendering?.used == false && result.smartRendering?.reason == DoubleBoxLayer.smartRenderingRefusal,
                "\(String(describing: result.smartRendering))")
        #expect(StitchReport(result).smartRendering?.reason == DoubleBoxLayer.smartRenderingRefusal)
        #expect(!stitcher.delegateLog.contains("contentPause") && !result.events.contains { $0.type == .log })
        #expect(result.playedBreaks.first?.ads.first?.presentation == .doubleBox && result.videoFrames == 90)
        let p = try await DecodedPictures.decode(container == .hls ? out.appendingPathComponent("index.m3u8") : out)
        #expect(p.frames.count == 90)
        let w = PictureInPictureLayer().windowRect(width: 320, height: 180)
        let window = TestSupport.PixelRect(x: w.x, y: w.y, width: w.width, height: w.height)
        func id(_ r: TestSupport.PixelRect, _ n: Int) -> Int {
            IdentityReader(candidates: [r]).read(p.frames[n], width: 320, height: 180).identity.map { $0.sourceID * 1000 + $0.frameIndex } ?? -1
        }
        let wrong = (0..<min(90, p.frames.count)).filter { n in
            (15..<45).contains(n) ? !(id(Self.full, n) == 5000 + n - 15 && id(window, n) == 1000 + n) : id(Self.full, n) != 1000 + n
        }
        #expect(wrong.isEmpty, "wrong frames: \(wrong)")
        // the markers: a chapter for the ad (content cut around it), or a date range with the ad's duration
        if container == .mp4 {
            let chapters = try await MediaVerifier.probe(out).chapters
            #expect(chapters.map { $0.title ?? "" } == ["Content 1", "Ad box 1/1 (double box): \(ad.lastPathComponent)", "Content 2 (continued)"]
                    && chapters.map { [($0.start * 1000).rounded(), ($0.end * 1000).rounded()] } == [[0, 500], [500, 1500], [1500, 3000]],
                    "\(chapters)")
        } else {
            let playlist = try String(contentsOf: out.appendingPathComponent("index.m3u8"), encoding: .utf8)
            let box = playlist.split(separator: "\n").filter { $0.contains("CLASS=\"com.interlude.doublebox\"") }
            #expect(box.count == 1 && box[0].contains("ID=\"box-ad-1\"") && box[0].contains("DURATION=1.000")
                    && box[0].contains("X-AD-ID=\"box-ad\"") && !playlist.contains("CUE-OUT") && !playlist.contains("DISCONTINUITY"), "\(playlist)")
        }
    }

    @Test func aBreakInsideADoubleBoxIsSkippedAndAMalformedExtensionPlaysStandard() async throws {
        let (_, ad) = try Self.media()
        let inside = """
            <vmap:AdBreak timeOffset="00:00:01.000" breakType="linear" breakId="inside">
            <vmap:AdSource><vmap:VASTAdData>VAST_AD</vmap:VASTAdData></vmap:AdSource></vmap:AdBreak>
            """
        let (_, result, _) = try await Self.stitch(Self.vmap(ad, extensionXML: """
            <vmap:Extension type="interlude:doublebox" mode="doublebox-reverse"/>
            """, extra: inside), name: "inside")
        #expect(result.videoFrames == 90, "nothing was added to the content's length")
        #expect(result.playedBreaks.map(\.id) == ["box"])
        #expect(result.events.contains { $0.type == .log && $0.data?["errorMessage"]?.contains("inside a double-box") == true })
        #expect(result.playedBreaks.first?.ads.first?.presentation == .doubleBoxReverse)

        let (stitcher, standard, _) = try await Self.stitch(Self.vmap(ad, extensionXML: """
            <vmap:Extension type="interlude:doublebox" contentLevel="+6dB"/>
            """), name: "malformed")
        #expect(standard.videoFrames == 120 && stitcher.delegateLog.contains("contentPause"), "played as a standard break")
        #expect(standard.playedBreaks.first?.ads.first?.presentation == .normal)
        #expect(standard.events.contains { $0.type == .log && $0.data?["errorMessage"]?.contains("malformed") == true })
    }
}
