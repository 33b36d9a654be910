import Draw
import Foundation
import Testing
import Timing
@testable import Interlude

/// The ad UI's decisions as pure functions: countdown and skip state from exact frame times,
/// IMA's default texts and `uiElements`, the JSON layout's templates, conditions and errors.
@Suite struct AdUIRendererTests {
    static func ad(position: Int = 1, total: Int = 1, skip: Double = -1, uiDisabled: Bool = false) -> Ad {
        Ad(adId: "id", adTitle: "Title", adDescription: "", adSystem: "Sys", duration: 3, skipTimeOffset: skip, isUiDisabled: uiDisabled,
           isLinear: true, adPodInfo: AdPodInfo(adPosition: position, totalAds: total, podIndex: 0, timeOffset: 0, maxDuration: -1, isBumper: false),
           creativeID: "", creativeAdID: "", universalAdIDs: [], wrapperAdIDs: [], wrapperSystems: [], wrapperCreativeIDs: [],
           vastMediaWidth: 0, vastMediaHeight: 0, vastMediaBitrate: 0, contentType: "", traffickingParameters: "", advertiserName: "Acme")
    }

    static func context(frame k: Int64, fps: Int64 = 25, seconds: Int64 = 3, skipFrames: Int64? = nil, position: Int = 1, total: Int = 1,
                        click: String? = nil) -> AdUIContext {
        let shown = ShownAd(ad: ad(position: position, total: total, skip: skipFrames.map { Double($0) / Double(fps) } ?? -1),
                            duration: MediaTime(value: seconds, timescale: 1), skipOffset: skipFrames.map { MediaTime(value: $0, timescale: fps) },
                            clickThrough: click, podDuration: MediaTime(value: seconds, timescale: 1))
        return AdUIContext(shown: shown, adTime: MediaTime(value: k, timescale: fps), width: 640, height: 360)
    }

    @Test func countdownRoundsUpAndChangesOnTheSecond() {
        #expect(Self.context(frame: 0).remainingSeconds == 3)
        #expect(Self.context(frame: 1).remainingSeconds == 3)
        #expect(Self.context(frame: 25).remainingSeconds == 2)
        #expect(Self.context(frame: 74).remainingSeconds == 1)
        // NTSC rates: exact rationals, no drift (2 s of 30000/1001 frames)
        let shown = ShownAd(ad: Self.ad(), duration: MediaTime(value: 2, timescale: 1), skipOffset: nil, clickThrough: nil, podDuration: .zero)
        #expect(AdUIContext(shown: shown, adTime: MediaTime(value: 30 * 1001, timescale: 30000), width: 2, height: 2).remainingSeconds == 1)
        #expect(AdUIContext(shown: shown, adTime: MediaTime(value: 29 * 1001, timescale: 30000), width: 2, height: 2).remainingSeconds == 2)
    }

    @Test func skipStateSwitchesAtExactlyTheOffset() {
        #expect(Self.context(frame: 34, skipFrames: 35).skip == .waiting(seconds: 1))
        #expect(Self.context(frame: 35, skipFrames: 35).skip == .available)
        #expect(Self.context(frame: 0, skipFrames: 35).skip == .waiting(seconds: 2))
        #expect(Self.context(frame: 10, skipFrames: 35).skip == .waiting(seconds: 1))
        #expect(Self.context(frame: 10).skip == .notSkippable)
        #expect(Self.context(frame: 0, skipFrames: 0).skip == .available)
    }

    @Test func defaultTextsFollowIMA() {
        let ui = DefaultAdUI()
        #expect(ui.attributionText(Self.context(frame: 0)) == "Ad · 0:03")
        #expect(ui.attributionText(Self.context(frame: 30, position: 1, total: 2)) == "Ad 1 of 2 · 0:02")
        #expect(DefaultAdUI(uiElements: [.adAttribution]).attributionText(Self.context(frame: 0, position: 2, total: 2)) == "Ad 2 of 2")
        #expect(DefaultAdUI(uiElements: [.elements_COUNTDOWN]).attributionText(Self.context(frame: 0)) == "0:03")
        #expect(DefaultAdUI(uiElements: []).attributionText(Self.context(frame: 0)) == nil)
        #expect(DefaultAdUI.skipText(Self.context(frame: 0, skipFrames: 125)) == "Skip in 5")
        #expect(DefaultAdUI.skipText(Self.context(frame: 125, skipFrames: 125)) == "Skip ad")
        #expect(DefaultAdUI.skipText(Self.context(frame: 0)) == nil)
    }

    @Test func defaultElementsScaleWithHeightAndShowLearnMoreOnlyWithAClickThrough() {
        func texts(_ c: AdUIContext) -> [(String, Int, AdUIAction?)] {
            DefaultAdUI().elements(for: c).compactMap { if case let .text(s, _, _, _, style, action) = $0 { return (s, style.pixelHeight, action) } else { return nil } }
        }
        #expect(texts(Self.context(frame: 0)).map(\.0) == ["Ad · 0:03"])
        let full = texts(Self.context(frame: 40, skipFrames: 35, click: "https://x.example/"))
        #expect(full.map(\.0) == ["Ad · 0:02", "Learn more", "Skip ad ▶"])
        #expect(full.map(\.2) == [nil, .learnMore, .skip])
        #expect(full.allSatisfy { $0.1 == 18 })   // 360 / 20
        var big = Self.context(frame: 0); big.height = 1080; big.width = 1920
        #expect(texts(big).first?.1 == 54)
        #expect(texts(Self.context(frame: 0, click: "  ")).count == 1)
    }

    @Test func layoutTemplatesBindTheGuidesFields() throws {
        let c = Self.context(frame: 10, skipFrames: 125, position: 1, total: 2)
        #expect(AdUILayout.fill("Ad {adPosition} of {totalAds} ({remaining}s)", c) == "Ad 1 of 2 (3s)")
        #expect(AdUILayout.fill("Skip this ad in {timeTillSkip}...", c) == "Skip this ad in 5...")
        #expect(AdUILayout.fill("{adTitle}/{advertiserName}/{duration}/{currentTime}", c) == "Title/Acme/3/0")
        let layout = try AdUILayout(json: Data(AdUIStitchTests.layoutJSON.utf8), directory: nil)
        func strings(_ c: AdUIContext) -> [String] { layout.elements(for: c).compactMap { if case let .text(s, _, _, _, _, _) = $0 { return s } else { return nil } } }
        #expect(strings(c) == ["Ad 1 of 2 (3s)", "Skip this ad in 5..."])
        #expect(strings(Self.context(frame: 125, skipFrames: 125, position: 1, total: 2)) == ["Ad 1 of 2 (0s)", "Skip ad"])
        #expect(strings(Self.context(frame: 0)) == [])   // a lone ad that cannot be skipped: "pod" and skip items hidden
    }

    @Test func badLayoutsAreOneClearLine() {
        func message(_ json: String) -> String? {
            do { _ = try AdUILayout(json: Data(json.utf8), directory: nil); return nil } catch { return "\(error)" }
        }
        #expect(message("[]") == "not a JSON object with an \"elements\" array")
        #expect(message(#"{"elements":[{"text":"{nope}"}]}"#)?.hasPrefix("element 1: unknown placeholder {nope}") == true)
        #expect(message(##"{"elements":[{"text":"a","colour":"#fff"}]}"##) == "element 1: unknown key \"colour\"")
        #expect(message(#"{"elements":[{"text":"a","x":2}]}"#) == "element 1: x must be a number from 0 to 1")
        #expect(message(#"{"elements":[{"text":"a","color":"red"}]}"#) == "element 1: color must be \"#RRGGBB\" or \"#RRGGBBAA\"")
        #expect(message(#"{"elements":[{"text":"a","show":"sometimes"}]}"#)?.hasPrefix("element 1: show must be one of always") == true)
        #expect(message(#"{"elements":[{"image":"x.png","rect":[0,0,1,1]}]}"#) == "element 1: images need a layout file")
        #expect(message(#"{"elements":[{"text":"a","box":[0,0,1,1]}]}"#) == "element 1: needs exactly one of \"text\", \"box\", \"image\"")
        #expect(message(#"{"elements":[{"text":"Ad {remaining"}]}"#)?.contains("unclosed {") == true)
    }
}
