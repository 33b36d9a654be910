import Foundation
import Testing
import TestSupport
import Ads
import Timing
@testable import Interlude

/// `--ad-break` with tags goes through a VMAP document of our own: its cues must stay exact.
@Suite struct AdRulesBuilderTests {
    @Test(arguments: ["20.5", "31.31", "10.00005", "0.123456789"])
    func cuesSurviveTheGeneratedVMAPExactly(_ text: String) async throws {
        let cue = try #require(MediaTime(decimal: text))
        let vmap = AdRulesBuilder.vmap([(id: "mid", position: .time(cue), ads: [.media(TestMedia.Sample.adMatching.url.path)])])
        let loader = AdTagResolver(options: AdTagOptions(), fetcher: HTTPAdFetcher())
        let schedule = try await loader.load(response: Data(vmap.utf8), baseURL: URL(fileURLWithPath: "/"))
        #expect(schedule.breaks.first?.cueTime == cue, "\(vmap)")
    }

    @Test func exactDecimalStrings() {
        #expect(MediaTime(value: 200001, timescale: 20000).exactDecimalString == "10.00005")
        #expect(MediaTime(value: 41, timescale: 2).exactDecimalString == "20.5")
        #expect(MediaTime(value: 1, timescale: 3).exactDecimalString == nil)
        #expect(MediaTime(value: 7, timescale: 1).exactDecimalString == "7")
    }
}
