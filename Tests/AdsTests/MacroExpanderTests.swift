// Macro expansion: encoding, formats, unknown/withheld values, legacy spellings.
import Ads
import Foundation
import Testing
import Timing

@Suite struct MacroExpanderTests {
    // 2016-01-17T13:15:07.127Z
    let fixed = Date(timeIntervalSince1970: 1_453_036_507.127)

    func ctx(_ f: (inout MacroContext) -> Void = { _ in }) -> MacroContext {
        var c = MacroContext(timestamp: fixed, cacheBusting: 4321)
        f(&c)
        return c
    }

    @Test func errorCodeAndCacheBusting() {
        let c = ctx { $0.errorCode = .noAdsAfterWrapper }
        #expect(MacroExpander.expand("http://e.com/err?c=[ERRORCODE]&cb=[CACHEBUSTING]", context: c) == "http://e.com/err?c=303&cb=00004321")
        #expect(MacroExpander.expand("x=%%CACHEBUSTING%%&r=[RANDOM]&l=[random]&t=[timestamp]", context: c) == "x=00004321&r=00004321&l=00004321&t=00004321")
        #expect(MacroExpander.expand("vmap=[ERROR_CODE]", context: c) == "vmap=303")
    }

    @Test func timestampIsISO8601WithMillisecondsAndOffset() {
        #expect(MacroExpander.timestamp(fixed, offsetSeconds: -5 * 3600) == "2016-01-17T08:15:07.127-05:00")
        #expect(MacroExpander.timestamp(fixed, offsetSeconds: 0) == "2016-01-17T13:15:07.127+00:00")
        #expect(MacroExpander.expand("[TIMESTAMP]", context: ctx()) == "2016-01-17T13%3A15%3A07.127%2B00%3A00")
    }

    @Test func playheadsAreTimecodes() {
        let c = ctx { $0.contentPlayhead = MediaTime(value: 321123, timescale: 1000); $0.adPlayhead = MediaTime(seconds: 5) }
        #expect(MacroExpander.expand("[CONTENTPLAYHEAD]|[MEDIAPLAYHEAD]|[ADPLAYHEAD]", context: c)
                == "00%3A05%3A21.123|00%3A05%3A21.123|00%3A00%3A05.000")
    }

    @Test func valuesArePercentEncodedPerRFC3986() {
        let c = ctx { $0.assetURI = "http://e.com/a.mp4?foo=1&bar=_-[{bar" }
        #expect(MacroExpander.expand("[ASSETURI]", context: c) == "http%3A%2F%2Fe.com%2Fa.mp4%3Ffoo%3D1%26bar%3D_-%5B%7Bbar")
        let ids = ctx { $0.universalAdIds = [UniversalAdId(registry: "Ad-ID", value: "8465"), UniversalAdId(registry: "x", value: "a/b")] }
        #expect(MacroExpander.expand("[UNIVERSALADID]", context: ids) == "Ad-ID%208465,x%20a%2Fb")
        let list = ctx { $0.values["BLOCKEDADCATEGORIES"] = .list(["IAB1-1", "a,b"]) }
        #expect(MacroExpander.expand("[BLOCKEDADCATEGORIES]", context: list) == "IAB1-1,a%2Cb")
    }

    @Test func adAndBreakMacros() {
        let c = ctx {
            $0.breakCue = .midroll(MediaTime(seconds: 30)); $0.adCount = 2; $0.podSequence = 3; $0.adServingId = "srv-1"; $0.reason = 2
            $0.limitAdTracking = true; $0.serverSide = .serverOnBehalfOfClient
        }
        #expect(MacroExpander.expand("[BREAKPOSITION]/[ADCOUNT]/[PODSEQUENCE]/[ADSERVINGID]/[REASON]/[LIMITADTRACKING]/[SERVERSIDE]", context: c)
                == "2/2/3/srv-1/2/1/1")
    }

    @Test func unknownWithheldAndForeignMacros() {
        let c = ctx { $0.withheld = ["DEVICEIP"] }
        #expect(MacroExpander.expand("ip=[DEVICEIP]&ua=[DEVICEUA]&g=[GOOGLE_VIEWABILITY]&m=[AD_MT]&x=[not a macro]&e=[]", context: c)
                == "ip=-2&ua=-1&g=[GOOGLE_VIEWABILITY]&m=[AD_MT]&x=[not a macro]&e=[]")
        let custom = ctx { $0.values["AD_MT"] = .string("7 s") }
        #expect(MacroExpander.expand("m=[AD_MT]", context: custom) == "m=7%20s")
    }

    @Test func expansionIsPure() {
        let c = ctx { $0.errorCode = .undefined }
        let t: URLTemplate = "https://e.com/[ERRORCODE]/[CACHEBUSTING]/[TIMESTAMP]"
        #expect(MacroExpander.expand(t, context: c) == MacroExpander.expand(t, context: c))
        #expect(MacroContext().cacheBusting >= 0 && MacroContext().cacheBusting < 100_000_000)
    }
}
