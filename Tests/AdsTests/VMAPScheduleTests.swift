// VMAP parsing and scheduling: offsets, ordering into IMA cue points, sources, tracking.
import Ads
import Foundation
import Testing
import TestSupport
import Timing

private func vmap(_ breaks: String) -> String {
    #"<vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">"# + breaks + "</vmap:VMAP>"
}

private func adBreak(_ offset: String, id: String, source: String = "", tracking: String = "", extra: String = "") -> String {
    """
    <vmap:AdBreak timeOffset="\(offset)" breakType="linear" breakId="\(id)" \(extra)>
      \(source)
      <vmap:TrackingEvents>\(tracking)
        <vmap:Tracking event="breakStart"><![CDATA[https://t.example.com/\(id)/start]]></vmap:Tracking>
        <vmap:Tracking event="error"><![CDATA[https://t.example.com/\(id)/error?c=[ERRORCODE]]]></vmap:Tracking>
      </vmap:TrackingEvents>
    </vmap:AdBreak>
    """
}

private func embedded(_ vast: String, attributes: String = "") -> String {
    "<vmap:AdSource id=\"s\" \(attributes)><vmap:VASTAdData>\(vast)</vmap:VASTAdData></vmap:AdSource>"
}

@Suite struct VMAPScheduleTests {
    @Test func offsetsParse() {
        #expect(VMAPTimeOffset(parsing: "start") == .start && VMAPTimeOffset(parsing: "END") == .end)
        #expect(VMAPTimeOffset(parsing: "00:10:23.125") == .time(MediaTime(value: 623125, timescale: 1000)))
        #expect(VMAPTimeOffset(parsing: "70%") == .percent(Rational(70, 1)))
        #expect(VMAPTimeOffset(parsing: "#2") == .position(2))
        for bad in ["#0", "101%", "soon", "", "00:61:00", "-5"] { #expect(VMAPTimeOffset(parsing: bad) == nil, "\(bad)") }
    }

    @Test func breaksAreSortedIntoIMACuePoints() async throws {
        let doc = vmap(
            adBreak("end", id: "post", source: embedded(inlineVAST(id: "ad-post")))
            + adBreak("00:00:30", id: "mid30", source: embedded(inlineVAST(id: "ad-30")))
            + adBreak("50%", id: "half", source: embedded(inlineVAST(id: "ad-50")))
            + adBreak("#2", id: "pos")
            + adBreak("start", id: "pre", source: embedded(inlineVAST(id: "ad-pre"))))
        let s = try await loadResponse(doc, options: AdTagOptions(contentDuration: MediaTime(seconds: 100)))
        #expect(s.kind == .vmap)
        #expect(s.cuePoints == [0, 30, 50, -1])
        #expect(s.breaks.map(\.id) == ["pre", "mid30", "half", "post", "pos"])
        #expect(s.breaks.map(\.podIndex) == [0, 1, 2, -1, nil])
        #expect(s.breaks.map { $0.ads.first?.id } == ["ad-pre", "ad-30", "ad-50", "ad-post", nil])
        #expect(s.breaks[1].cue == .midroll(MediaTime(seconds: 30)) && s.breaks[3].cue == .postroll)
        #expect(s.warnings.contains { $0.message.contains("#2") })
        let json = ScheduleReport.json(s)
        #expect(json["cuePoints"] == .array([.number(0), .number(30), .number(50), .number(-1)]))
    }

    @Test func percentNeedsContentDuration() async throws {
        let s = try await loadResponse(vmap(adBreak("25%", id: "q")))
        #expect(s.cuePoints.isEmpty && s.breaks.first?.cueSeconds == nil)
        #expect(s.warnings.contains { $0.message.contains("content duration") })
        let placed = try await loadResponse(vmap(adBreak("25%", id: "q")), options: AdTagOptions(contentDuration: MediaTime(seconds: 61)))
        #expect(placed.breaks.first?.cueTime == MediaTime(value: 61, timescale: 4))
    }

    @Test func repeatAfterExpandsUpToTheContentDuration() async throws {
        let doc = vmap(adBreak("00:00:10", id: "r", source: embedded(inlineVAST()), extra: #"repeatAfter="00:00:20""#)
                       + adBreak("00:00:30", id: "fixed"))
        let s = try await loadResponse(doc, options: AdTagOptions(contentDuration: MediaTime(seconds: 75)))
        // 10, 30 (taken by "fixed": the earlier-scheduled break wins), 50, 70.
        #expect(s.cuePoints == [10, 30, 50, 70])
        #expect(s.breaks.map(\.id) == ["r", "fixed", "r-repeat-2", "r-repeat-3"])
    }

    @Test func adTagURIsAreFetched() async throws {
        let server = try HTTPTestServer()
        server.route("/pre.xml", body: inlineVAST(id: "pre-ad"))
        server.route("/mid.xml", body: inlineVAST(id: "mid-ad"))
        let doc = vmap(
            adBreak("start", id: "pre", source: #"<vmap:AdSource id="1"><vmap:AdTagURI templateType="vast3"><![CDATA[ \#(server.url("/pre.xml")) ]]></vmap:AdTagURI></vmap:AdSource>"#)
            + adBreak("00:01:00", id: "mid", source: #"<vmap:AdSource><AdTagURI>\#(server.url("/mid.xml"))</AdTagURI></vmap:AdSource>"#)
            + adBreak("end", id: "post", source: #"<vmap:AdSource><vmap:AdTagURI><![CDATA[\#(server.url("/404.xml"))]]></vmap:AdTagURI></vmap:AdSource>"#))
        server.route("/vmap.xml", body: doc)
        let s = try await AdTagResolver(options: AdTagOptions(initialTimeout: 2)).load(tag: server.url("/vmap.xml"))
        #expect(s.breaks.map { $0.ads.first?.id } == ["pre-ad", "mid-ad", nil])
        #expect(s.breaks[0].adTagURI == server.url("/pre.xml"))
        let e = try #require(s.errors.first)
        #expect(e.code == .vmapRetrieval && e.breakId == "post")
        #expect(e.errorURLs == ["https://t.example.com/post/error?c=[ERRORCODE]"])
        #expect(s.breaks[0].trackingURLs(for: "breakStart") == ["https://t.example.com/pre/start"])
    }

    @Test func sourceAttributesAndTemplates() async throws {
        let server = try HTTPTestServer()
        server.route("/inline.xml", body: inlineVAST(id: "deep"))
        let pod = "<VAST version=\"3.0\">\(adElement(inlineVAST(id: "a", sequence: 1)))\(adElement(inlineVAST(id: "b", sequence: 2)))</VAST>"
        let doc = vmap(
            adBreak("start", id: "nofollow", source: embedded(wrapperVAST(tag: server.url("/inline.xml")), attributes: #"followRedirects="false""#))
            + adBreak("00:00:05", id: "follow", source: embedded(wrapperVAST(tag: server.url("/inline.xml"))))
            + adBreak("00:00:10", id: "single", source: embedded(pod, attributes: #"allowMultipleAds="false""#))
            + adBreak("00:00:15", id: "multi", source: embedded(pod))
            + adBreak("00:00:20", id: "custom", source: #"<vmap:AdSource><vmap:CustomAdData templateType="proprietary"><![CDATA[{"ad":1}]]></vmap:CustomAdData></vmap:AdSource>"#))
        let s = try await loadResponse(doc)
        let byId = Dictionary(uniqueKeysWithValues: s.breaks.map { ($0.id!, $0) })
        #expect(byId["nofollow"]?.ads.isEmpty == true && byId["follow"]?.ads.map(\.id) == ["deep"])
        #expect(byId["single"]?.ads.map(\.id) == ["a"] && byId["multi"]?.ads.map(\.id) == ["a", "b"])
        #expect(s.errors.first { $0.breakId == "nofollow" }?.code == .wrapperGeneral)
        #expect(s.errors.first { $0.breakId == "custom" }?.code == .vmapTemplateType)
    }

    @Test func emptyEmbeddedVASTIsANoAdBreak() async throws {
        let s = try await loadResponse(vmap(adBreak("start", id: "empty", source: embedded(#"<VAST version="3.0"></VAST>"#))))
        #expect(s.cuePoints == [0] && s.allAds.isEmpty)
        #expect(s.errors.map(\.code) == [.noAdsAfterWrapper])
        #expect(s.errors[0].errorURLs == ["https://t.example.com/empty/error?c=[ERRORCODE]"])
    }

    @Test func bumperExtensionsAndTopLevelExtensionsAreKept() throws {
        let doc = #"""
        <vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0.1">
          <vmap:AdBreak timeOffset="end" breakType="linear" breakId="postroll">
            <vmap:Extensions><vmap:Extension type="bumper" suppress_bumper="true"/></vmap:Extensions>
          </vmap:AdBreak>
          <vmap:Extensions><vmap:Extension type="x"><Thing>1</Thing></vmap:Extension></vmap:Extensions>
        </vmap:VMAP>
        """#
        guard case .success(.vmap(let v)) = AdResponseParser().parse(Data(doc.utf8)) else { Issue.record("not VMAP"); return }
        #expect(v.version == "1.0.1" && v.breaks.first?.extensions.first?.attributes["suppress_bumper"] == "true")
        #expect(v.extensions.first?.innerXML == "<Thing>1</Thing>")
        #expect(v.breaks.first?.adSource == nil)
    }

    @Test func unsupportedVMAPVersionIs1001() async throws {
        await #expect { try await loadResponse(#"<VMAP version="2.0"/>"#) } throws: { ($0 as? AdLoadError)?.code == .vmapVersion }
    }
}

@Suite(.enabled(if: Corpus.available, "VAST corpus not found at ../shared/vast-corpus relative to the package root"))
struct VMAPCorpusTests {
    private let madman = "flipkart-incubator__madman-android/madman/src/test/assets/"

    @Test func spotxBreaksOutOfOrder() async throws {
        let s = try await Corpus.schedule("guozheng__jvast/src/test/resources/pixel/vmap_1.0_spotx.xml")
        #expect(s.cuePoints == [5, 15, 25])
    }

    @Test func reorderedMixedOffsets() async throws {
        let v = try Corpus.vmap(madman + "vmap_reordered.xml")
        #expect(v.breaks.map(\.rawTimeOffset) == ["00:00:15.125", "70%", "#1", "end"])
        #expect(v.breaks.map(\.breakTypes) == [["linear"], ["nonlinear"], ["linear"], ["linear"]])
        guard case .adTagURI(let uri, let type)? = v.breaks[0].adSource?.content else { Issue.record("no AdTagURI"); return }
        #expect(uri.template == "//playertest.longtailvideo.com/adtags/vast3_pod.xml" && type == "vast3")
        let s = try await Corpus.schedule(madman + "vmap_reordered.xml", contentDuration: MediaTime(seconds: 200))
        #expect(s.cuePoints == [15.125, 140, -1])
        #expect(s.breaks[0].adTagURI == "https://playertest.longtailvideo.com/adtags/vast3_pod.xml")
    }

    @Test func prerollWithEmbeddedVAST() async throws {
        let s = try await Corpus.schedule(madman + "vmap_with_preroll.xml")
        #expect(s.cuePoints.first == 0)
        let ad = try #require(s.breaks.first?.ads.first)
        #expect(ad.duration == MediaTime(value: 106, timescale: 10))   // "00:00:10.6": one fractional digit
    }

    @Test func noAdSourceStillHasTracking() async throws {
        let s = try await Corpus.schedule(madman + "vmap_with_no_ad_source.xml")
        #expect(!s.breaks.isEmpty && s.breaks.allSatisfy { $0.ads.isEmpty })
        #expect(s.breaks.contains { !$0.trackingURLs(for: "breakStart").isEmpty })
        #expect(s.errors.isEmpty)
    }

    @Test func googlePremidpostAdRules() throws {
        let v = try Corpus.vmap(madman + "vmap_with_ad_uri.xml")
        let ids = v.breaks.compactMap { $0.adSource?.id }
        #expect(ids.contains("preroll-ad-1"))
        #expect(v.breaks.first?.timeOffset == .start && v.breaks.last?.timeOffset == .end)
    }

    @Test func vmapJSUndeclaredPrefixes() throws {
        let v = try Corpus.vmap("dailymotion__vmap-js/spec/samples/correct-vmap.xml")
        #expect(v.breaks.map(\.breakId) == ["mypre", "myid", "mypost"])
        #expect(v.breaks[0].trackingEvents.filter { $0.event == "breakEnd" }.count == 2)
        guard case .adTagURI(let uri, let type)? = v.breaks[2].adSource?.content else { Issue.record("no AdTagURI"); return }
        #expect(uri.template == "http://server.com/vast.xml" && type == nil)
    }
}
