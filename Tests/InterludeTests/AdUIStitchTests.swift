import Draw
import Foundation
import Testing
import Timing
import TestSupport
import Playback
@testable import Interlude

/// The ad UI in tag stitches, checked on the decoded output (ffmpeg CLI, NUT: lossless): a mid-roll
/// pod of two ads — ad 1 skippable at 1.4 s with a click-through and `UiHideable` 0, ad 2 not
/// skippable, hideable — stitched without UI, with IMA's default UI, under `disableUi` and with a
/// custom JSON layout. The ads' media are static in the UI regions (grey bands), so a crop changes
/// only when the UI's drawing does.
@MainActor @Suite(.serialized) struct AdUIStitchTests {
    // 320x180 @ 25 fps: content 0..<25, ad 1 25..<100 (3 s), ad 2 100..<150 (2 s), content 150..<175.
    static let ad1 = 25..<100, ad2 = 100..<150
    static let content = Array(0..<25) + Array(150..<175)
    // Where the default UI draws at 320x180 (text 10 px, margin 6): see DefaultAdUI.elements.
    static let attribution = Draw.PixelRect(x: 0, y: 158, width: 160, height: 22)
    static let learnMore = Draw.PixelRect(x: 0, y: 126, width: 110, height: 30)
    static let skip = Draw.PixelRect(x: 180, y: 130, width: 140, height: 32)
    static let untouched = Draw.PixelRect(x: 120, y: 44, width: 160, height: 70)

    static func adMedia(_ id: Int, seconds: Double) throws -> URL {
        // ffv1 in Matroska: lossless, so the grey bands are the same on every frame.
        try TestMedia.derived(from: TestMedia.clip(sourceID: id, width: 320, height: 180, fps: 25, seconds: seconds),
                              name: "adui-s\(id)-\(seconds)s.mkv",
                              arguments: ["-vf", "drawbox=x=0:y=0:w=iw:h=40:color=0x808080:t=fill,drawbox=x=0:y=ih-60:w=iw:h=60:color=0x606060:t=fill",
                                          "-c:v", "ffv1", "-c:a", "copy"])
    }

    static func vmap() throws -> String {
        let a1 = try adMedia(7, seconds: 3), a2 = try adMedia(9, seconds: 2)
        func ad(_ id: String, _ seq: Int, _ media: URL, _ seconds: Int, skip: String?, click: Bool, hideable: Int) -> String {
            """
            <Ad id="\(id)" sequence="\(seq)"><InLine><AdSystem>T</AdSystem><AdTitle>\(id)</AdTitle><Impression><![CDATA[http://127.0.0.1:9/i]]></Impression>
            <Creatives><Creative><Linear\(skip.map { " skipoffset=\"\($0)\"" } ?? "")><Duration>00:00:0\(seconds)</Duration>
            \(click ? "<VideoClicks><ClickThrough><![CDATA[https://example.com/learn]]></ClickThrough></VideoClicks>" : "")
            <MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="320" height="180"><![CDATA[\(media.path)]]></MediaFile></MediaFiles>
            </Linear></Creative></Creatives>
            <Extensions><Extension type="uiSettings"><UiHideable>\(hideable)</UiHideable></Extension></Extensions></InLine></Ad>
            """
        }
        return """
            <vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">
            <vmap:AdBreak timeOffset="00:00:01.000" breakType="linear" breakId="mid">
            <vmap:AdSource id="pod" allowMultipleAds="true" followRedirects="true"><vmap:VASTAdData>
            <VAST version="3.0">\(ad("one", 1, a1, 3, skip: "00:00:01.400", click: true, hideable: 0))\(ad("two", 2, a2, 2, skip: nil, click: false, hideable: 1))</VAST>
            </vmap:VASTAdData></vmap:AdSource></vmap:AdBreak></vmap:VMAP>
            """
    }

    enum UI: String { case none, standard, disabled, layout }
    static var runs: [UI: DecodedPictures] = [:]

    nonisolated static let layoutJSON = """
        {"elements": [
          {"text": "Ad {adPosition} of {totalAds} ({remaining}s)", "show": "pod", "x": 0.02, "y": 0.97, "anchor": "bottomLeft",
           "size": 0.08, "color": "#FFFF00", "background": "#000000C0"},
          {"text": "Skip this ad in {timeTillSkip}...", "show": "beforeSkip", "x": 0.98, "y": 0.85, "anchor": "bottomRight", "size": 0.06},
          {"text": "Skip ad", "show": "canSkip", "x": 0.98, "y": 0.85, "anchor": "bottomRight", "size": 0.06, "action": "skip"}
        ]}
        """

    static func stitch(_ ui: UI) async throws -> DecodedPictures {
        if let known = runs[ui] { return known }
        let content = try await TestMedia.clip(sourceID: 1, width: 320, height: 180, fps: 25, seconds: 2)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-adui-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("\(ui.rawValue).nut")
        let stitcher = TagStitcher(output: StitchRequest(content: content.path, breaks: [], output: out.path, container: .nut),
                                   adsResponse: try vmap())
        stitcher.cache = AdMediaCache(directory: dir.appendingPathComponent("cache"))
        switch ui {
        case .none: stitcher.drawsDefaultAdUI = false
        case .standard: break
        case .disabled: stitcher.renderingSettings.disableUi = true
        case .layout:
            stitcher.renderingSettings.disableUi = true
            stitcher.customAdUI = try AdUILayout(json: Data(layoutJSON.utf8), directory: nil)
        }
        let result = try await stitcher.run()
        #expect(result.errors.isEmpty, "\(result.errors.map(\.message))")
        try #require(result.videoFrames == 175)
        let pictures = try await DecodedPictures.decode(out)
        try #require(pictures.frames.count == 175, "the tests index these frames")
        runs[ui] = pictures
        return pictures
    }

    static func crop(_ p: DecodedPictures, _ n: Int, _ r: Draw.PixelRect) -> [UInt8] {
        var out: [UInt8] = []
        for row in r.y..<(r.y + r.height) { out += p.frames[n][(row * p.width + r.x)..<(row * p.width + r.x + r.width)] }
        return out
    }

    /// Frames (from `range`) whose crop differs from the frame before.
    static func changes(_ p: DecodedPictures, _ range: Range<Int>, _ r: Draw.PixelRect) -> [Int] {
        range.dropFirst().filter { crop(p, $0, r) != crop(p, $0 - 1, r) }
    }

    @Test func defaultUIDrawsOnAdFramesOnlyAndContentStaysBitIdentical() async throws {
        let plain = try await Self.stitch(.none), ui = try await Self.stitch(.standard)
        for n in Self.content { #expect(plain.frames[n] == ui.frames[n], "content frame \(n) identical") }
        for n in Self.ad1.lowerBound..<Self.ad2.upperBound {
            #expect(Self.crop(plain, n, Self.attribution) != Self.crop(ui, n, Self.attribution), "attribution on ad frame \(n)")
            #expect(Self.crop(plain, n, Self.untouched) == Self.crop(ui, n, Self.untouched), "no UI in the middle of frame \(n)")
            // "Learn more" only for the ad with a click-through, the skip button only on the skippable one
            let first = Self.ad1.contains(n)
            #expect((Self.crop(plain, n, Self.learnMore) != Self.crop(ui, n, Self.learnMore)) == first, "learn more on frame \(n)")
            #expect((Self.crop(plain, n, Self.skip) != Self.crop(ui, n, Self.skip)) == first, "skip button on frame \(n)")
        }
    }

    @Test func countdownChangesOncePerSecondOnTheFrame() async throws {
        let ui = try await Self.stitch(.standard)
        // ad 1 lasts 75 frames: 0:03 on frames 0-24 (2.96 s left rounds up to 3), 0:02 from frame 25, 0:01 from 50
        #expect(Self.changes(ui, Self.ad1, Self.attribution) == [50, 75])
        // ad 2 ("Ad 2 of 2") starts a new text; 0:02 then 0:01 from its frame 25
        #expect(Self.changes(ui, Self.ad1.lowerBound..<Self.ad2.upperBound, Self.attribution) == [50, 75, 100, 125])
    }

    @Test func skipLabelSwitchesAtExactlyTheSkipOffset() async throws {
        let ui = try await Self.stitch(.standard)
        // skipoffset 1.4 s = ad frame 35: "Skip in 2" (frames 0-9), "Skip in 1" from 0.4 s (frame 10), "Skip ad" from 35
        #expect(Self.changes(ui, Self.ad1, Self.skip) == [25 + 10, 25 + 35])
    }

    @Test func uiHideableZeroKeepsTheDefaultUIUnderDisableUi() async throws {
        let plain = try await Self.stitch(.none), ui = try await Self.stitch(.standard), disabled = try await Self.stitch(.disabled)
        for n in Self.ad1 { #expect(disabled.frames[n] == ui.frames[n], "UiHideable=0 ad keeps IMA's UI on frame \(n)") }
        for n in Self.ad2 { #expect(disabled.frames[n] == plain.frames[n], "hideable ad under disableUi, no custom UI: nothing drawn on frame \(n)") }
        for n in Self.content { #expect(disabled.frames[n] == plain.frames[n]) }
    }

    @Test func aJSONLayoutDrawsTheAppsUIOnHideableAds() async throws {
        let plain = try await Self.stitch(.none), ui = try await Self.stitch(.standard), custom = try await Self.stitch(.layout)
        for n in Self.ad1 { #expect(custom.frames[n] == ui.frames[n], "UiHideable=0: IMA's UI, not the layout, on frame \(n)") }
        for n in Self.content { #expect(custom.frames[n] == plain.frames[n]) }
        let label = Draw.PixelRect(x: 0, y: 140, width: 200, height: 40)
        for n in Self.ad2 {
            #expect(Self.crop(plain, n, label) != Self.crop(custom, n, label), "custom countdown on frame \(n)")
            #expect(Self.crop(plain, n, Self.skip) == Self.crop(custom, n, Self.skip), "no skip label on a non-skippable ad, frame \(n)")
            #expect(Self.crop(custom, n, label) != Self.crop(ui, n, label), "the layout, not IMA's UI, on frame \(n)")
        }
        // "Ad 2 of 2 (2s)" then "(1s)" from the ad's frame 25
        #expect(Self.changes(custom, Self.ad2, label) == [Self.ad2.lowerBound + 25])
        // yellow text: some pixels of the label are bright in luma (Y of #FFFF00 is 210)
        #expect((0..<50).allSatisfy { k in Self.crop(custom, Self.ad2.lowerBound + k, label).contains { $0 > 190 } })
    }
}
